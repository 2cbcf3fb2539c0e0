"""Live play announces each deal's end with `play.signals.deal_ended`, after the commit:
one per settled round, the last one with the game's end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from play.models import Game
from play.signals import deal_ended
from tests.play.live_helpers import classic_started, play_game_randomly


@pytest.fixture
def heard() -> Iterator[list[tuple[int, int]]]:
    ends: list[tuple[int, int]] = []

    def listen(sender: Any, table_id: int, game_id: int, **kwargs: Any) -> None:
        assert sender is Game
        ends.append((table_id, game_id))

    deal_ended.connect(listen, dispatch_uid="test_deal_heard")
    yield ends
    deal_ended.disconnect(dispatch_uid="test_deal_heard")


def test_every_deal_of_a_game_is_announced_once_after_its_commit(
    db, make_user, settings, django_capture_on_commit_callbacks, heard
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user)
    with django_capture_on_commit_callbacks() as callbacks:
        game = play_game_randomly(table, users, random.Random(3))
    assert game.status == Game.Status.FINISHED
    assert heard == []  # nothing before the commit
    for callback in callbacks:
        callback()
    game.refresh_from_db()
    # Every round but those settled in the first deal itself (a natural), which no one
    # could have written to during.
    settled_in_the_deal = sum(
        1 for e in game.events.order_by("version").first().events if e["type"] == "settle"
    )
    assert len(heard) == len(game.state["rounds"]) - settled_in_the_deal
    assert set(heard) == {(table.pk, game.pk)}
