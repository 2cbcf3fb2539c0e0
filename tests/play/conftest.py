"""Fixtures shared by the live-table socket tests."""

from __future__ import annotations

from typing import Any

import pytest

from play.edge import sockets


@pytest.fixture
def machine_speed_play(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games played by a test at machine speed over real sockets."""
    settings.GAME_INTERLUDE_SECONDS = 0
    # The test plays AI seats (and timeouts) itself, by sweeping past the deadline; a
    # long real deadline keeps a slow machine's clock from playing them first.
    settings.AI_DECISION_SECONDS = 60
    # The test's clients play at machine speed; the per-connection rate limit is for
    # people (test_ws_errors checks it).
    monkeypatch.setattr(sockets, "RATE_PER_SECOND", 10_000.0)
    monkeypatch.setattr(sockets, "USER_RATE_PER_SECOND", 1_000_000)
