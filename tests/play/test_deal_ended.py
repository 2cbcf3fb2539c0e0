"""Live play announces each deal's end with `play.signals.deal_ended`, after the commit:
one per settled round, the last one with the game's end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from games import deals
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
    # One per move that settled a round or ended the game (a move may settle two rounds
    # when the next is dealt a natural: one announcement); none for the deal itself.
    ending_moves = [
        row.version
        for row in game.events.filter(action__isnull=False)
        if deals.ends_a_deal(row.events)
    ]
    assert len(ending_moves) >= 1
    assert len(heard) == len(ending_moves)
    assert set(heard) == {(table.pk, game.pk)}
