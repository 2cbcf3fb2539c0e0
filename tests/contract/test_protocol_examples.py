"""docs/protocol.md §16's transcripts (and §5.4's) are what the server sends today: each
session is played again (tests/contract/examples.py) and its blocks compared with the page's. With
PROTOCOL_EXAMPLES=write (`make examples`) the page's blocks are rewritten instead."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
import time_machine
from channels.layers import channel_layers

from play.edge import sockets
from play.services import lifecycle
from tests.contract import examples
from tests.verifier import verified

WRITE = os.environ.get("PROTOCOL_EXAMPLES") == "write"


@pytest.fixture
def example_settings(section: str, settings: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The settings §16's introduction names, the in-process channel layer, and the server
    seeds of `examples.server_seeds`."""
    settings.GAME_INTERLUDE_SECONDS = 0
    settings.AI_DECISION_SECONDS = 0
    settings.CLASSIC_ROUND_PAUSE_SECONDS = 0
    settings.BLACKJACK_ROUND_PAUSE_SECONDS = 0
    settings.CLIENT_SEED_SECONDS = 3
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    monkeypatch.setattr(sockets, "RATE_PER_SECOND", 10_000.0)
    monkeypatch.setattr(sockets, "USER_RATE_PER_SECOND", 1_000_000)
    seeds = examples.server_seeds(examples.SEED_LABELS.get(section, section))
    monkeypatch.setattr(lifecycle, "fresh_seed", lambda: next(seeds))
    yield
    channel_layers.backends.clear()


# Whole sessions played in process (35 s together): `make test` checks them, the inner
# loop (`make test-fast`) leaves them out.
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, reset_sequences=True)
@pytest.mark.parametrize("section", sorted(examples.SESSIONS))
async def test_the_protocols_example_session_is_what_the_server_sends(
    section, example_settings, make_user
):
    with time_machine.travel(examples.START, tick=False) as traveller:
        run = examples.Run(traveller)
        try:
            await examples.SESSIONS[section](run, make_user)
        finally:
            await run.close_all()
    blocks = ["\n".join(block) for block in run.blocks]
    for record in run.records:
        status, output = verified(record)
        assert status == 0, f"a record of §{section} does not verify:\n{output}"
    text = examples.PROTOCOL.read_text(encoding="utf-8")
    if WRITE:
        examples.PROTOCOL.write_text(examples.with_blocks(text, section, blocks), "utf-8")
        return
    documented = [examples.comparable(block) for block in examples.blocks_of(text, section)]
    assert documented == [examples.comparable(block) for block in blocks], (
        f"docs/protocol.md §{section} is not what the server sends now: run make examples"
    )


def test_every_example_session_is_played():
    text = examples.PROTOCOL.read_text(encoding="utf-8")
    sections = re.findall(r"\n### (16\.\d+) ", text)
    assert sections == [f"16.{n}" for n in range(1, 7)]
    assert all(examples.blocks_of(text, s) for s in sections)
    assert set(examples.SESSIONS) == {"5.4", *sections}
