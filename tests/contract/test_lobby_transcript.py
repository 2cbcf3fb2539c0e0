"""docs/protocol.md §14's exchange is what the lobby answers today: each message it shows a
client sending is sent again over a real lobby socket, and the answer must be the one the
page shows (parsed, so key order does not matter). The lines the page elides or that
depend on the moment (the table list, the new table's id and invite code, the flood) are
checked elsewhere (tests/contract/test_lobby_messages.py, tests/lobby)."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from channels.db import database_sync_to_async

from tests.contract import examples
from tests.play.ws_helpers import lobby

_LINE = re.compile(r"^(?P<who>lobby[\w-]*) (?P<arrow>[←→]) (?P<rest>.*)$")


def exchanges() -> list[tuple[str, str, dict[str, Any]]]:
    """(client, what it sends as text, the answer shown) for §14's checkable lines."""
    text = examples.PROTOCOL.read_text(encoding="utf-8")
    start = text.index("\n## 14. ")
    end = text.index("\n## 15. ", start)
    block = re.search(r"\n```\n(lobby ←.*?)\n```", text[start:end], flags=re.S)
    assert block is not None, "§14's exchange is gone"
    lines = [m for m in map(_LINE.match, block.group(1).splitlines()) if m]
    found = []
    for sent, answer in itertools.pairwise(lines):
        if sent["arrow"] != "→" or answer["arrow"] != "←" or sent["who"] != answer["who"]:
            continue
        if "…" in sent["rest"] or sent["who"] == "lobby-flood":
            continue  # elided, or a burst the page describes in words
        shown = json.loads(answer["rest"])
        if shown["type"] == "table_opened":
            continue  # its id and invite code are the moment's
        found.append((sent["who"], sent["rest"], shown))
    return found


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_every_answer_in_the_lobby_exchange_is_what_the_lobby_answers_now(
    make_user: Any,
) -> None:
    checked = exchanges()
    assert len(checked) >= 6
    user = await database_sync_to_async(make_user)()
    sockets: dict[str, Any] = {}
    for who, sent, shown in checked:
        if who not in sockets:
            language = "ru" if who.endswith("-ru") else "en"
            sockets[who] = await lobby(user, cookie_extra=f"; django_language={language}")
        comm = sockets[who]
        await comm.send_to(text_data=sent)
        for _ in range(20):
            answer = await comm.receive_json_from(timeout=5)
            if answer["type"] in ("error", "table_opened"):
                break
        assert answer == shown, f"§14 shows {shown} for {sent}, the lobby answers {answer}"
    for comm in sockets.values():
        await comm.disconnect()
