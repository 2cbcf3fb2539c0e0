"""Finding a table through the lobby socket (§14): open one (`open_table`), or take the
first listed table of a variant where the bot may sit (its row's `join`)."""

from __future__ import annotations

import itertools
import json
import secrets
from typing import Any

from bot.frames import Spec, default_spec
from bot.transport import Closed, Transport

_PREFIX = f"l{secrets.token_hex(4)}"
_IDS = (f"{_PREFIX}-{n}" for n in itertools.count(1))
_PUSHES = {"lobby", "table_added", "table_changed", "table_removed", "lobby_counts"}


class LobbyRefused(Exception):
    """The lobby refused (an `error`), or closed the socket (4401: not signed in)."""


def _frame(text: str, strict: bool, spec: Spec) -> dict[str, Any]:
    """A lobby frame; with `strict`, one the spec does not describe is refused (a server
    newer than the bot's copy of the spec may add fields: without it they are ignored)."""
    frame = json.loads(text)
    problem = spec.message_problem("lobby", "receive", frame)
    if problem is not None and strict:
        raise LobbyRefused(f"a lobby frame the spec does not describe ({problem}): {text}")
    result: dict[str, Any] = frame
    return result


async def open_table(
    transport: Transport,
    variant: str,
    *,
    strict: bool = False,
    spec: Spec | None = None,
    **fields: Any,
) -> int:
    """Open a table of `variant` (the bot becomes its host, not seated); its id.

    `fields` are `open_table`'s (`seat_count`, `decision_seconds`, `stake`, …); a None is
    left out."""
    spec = spec or default_spec()
    ident = next(_IDS)
    present = {key: value for key, value in fields.items() if value is not None}
    text = spec.send_text(
        "lobby", {"type": "open_table", "id": ident, "variant": variant, **present}
    )
    try:
        socket = await transport.lobby()
    except Closed as closed:
        raise LobbyRefused(f"the lobby refused the connection: {closed}") from None
    try:
        _frame(await socket.recv(), strict, spec)  # the first `lobby` message
        await socket.send(text)
        while True:
            frame = _frame(await socket.recv(), strict, spec)
            if frame["type"] in _PUSHES or frame.get("id") not in (None, ident):
                continue
            if frame["type"] == "table_opened":
                table: int = frame["table"]
                return table
            raise LobbyRefused(f"open_table refused: {frame['code']}: {frame['message']}")
    except Closed as closed:
        raise LobbyRefused(f"the lobby closed the socket: {closed}") from None
    finally:
        await socket.close()


async def find_table(
    transport: Transport, variant: str, *, strict: bool = False, spec: Spec | None = None
) -> int:
    """A listed table of `variant` where the bot sits already, else the first where it
    may sit (`join.state`); LobbyRefused when there is none."""
    spec = spec or default_spec()
    try:
        socket = await transport.lobby(f"variant={variant}")
    except Closed as closed:
        raise LobbyRefused(f"the lobby refused the connection: {closed}") from None
    try:
        first = _frame(await socket.recv(), strict, spec)
    except Closed as closed:
        raise LobbyRefused(f"the lobby closed the socket: {closed}") from None
    finally:
        await socket.close()
    rows = [row for row in first.get("tables", []) if row["variant"] == variant]
    for state in ("seated", "join"):
        for row in rows:
            if row.get("join", {}).get("state") == state:
                table: int = row["id"]
                return table
    raise LobbyRefused(f"no listed {variant} table with a seat for you (open one: --open)")
