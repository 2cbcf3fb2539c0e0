"""`python -m bot`'s options reach the lobby's `open_table` as the protocol names them."""

from __future__ import annotations

from typing import Any

import pytest

import bot.__main__ as command
from bot.player import BotStopped


@pytest.mark.asyncio
@pytest.mark.parametrize(("flag", "expected"), [([], None), (["--bots-allowed"], True)])
async def test_open_passes_bots_allowed_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, flag: list[str], expected: bool | None
) -> None:
    opened: dict[str, Any] = {}

    async def open_table(transport: Any, variant: str, **fields: Any) -> int:
        opened.update(fields, variant=variant)
        raise BotStopped("no server in this test")

    monkeypatch.setattr(command, "open_table", open_table)
    status = await command.main(["--token", "t21_x", "--open", "banker36", "--seats", "2", *flag])
    assert status == 1
    assert opened["variant"] == "banker36" and opened["seat_count"] == 2
    assert opened["bots_allowed"] is expected
