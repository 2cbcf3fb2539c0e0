"""Live play announces a game's end with `play.signals.game_ended`, after the commit, and
the decision review is one of its subscribers (live play imports none of them)."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest

from play.models import Game
from play.signals import game_ended
from tests.play.live_helpers import classic_started, play_game_randomly


@pytest.fixture
def eager_tasks(monkeypatch):
    # The review runs where it is sent, as a worker would run it (with REDIS_URL set the
    # suite's Celery app would otherwise queue it for a worker).
    from config.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)


@pytest.fixture
def heard() -> Iterator[list[int]]:
    """The game ids `game_ended` announces, in order, to a subscriber connected last."""
    ids: list[int] = []

    def listen(sender: Any, game_id: int, **kwargs: Any) -> None:
        assert sender is Game
        ids.append(game_id)

    game_ended.connect(listen, dispatch_uid="test_heard")
    yield ids
    game_ended.disconnect(dispatch_uid="test_heard")


def test_a_game_that_ends_is_announced_once_and_only_after_its_commit(
    db, make_user, settings, django_capture_on_commit_callbacks, eager_tasks, heard
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user)
    with django_capture_on_commit_callbacks() as callbacks:
        game = play_game_randomly(table, users, random.Random(3))
    assert game.status == Game.Status.FINISHED
    assert heard == []  # the transaction that ended it has not committed yet
    for callback in callbacks:
        callback()
    assert heard == [game.pk]
    game.refresh_from_db()
    assert game.reviewed_actions == len(game.actions)  # the review subscribed and ran


def test_a_subscriber_that_fails_is_logged_and_stops_neither_the_others_nor_the_game(
    db, make_user, settings, django_capture_on_commit_callbacks, eager_tasks, caplog
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user)
    after: list[int] = []

    def broken(sender: Any, game_id: int, **kwargs: Any) -> None:
        raise RuntimeError("a subscriber that fails")

    game_ended.connect(broken, dispatch_uid="test_broken")
    game_ended.connect(
        lambda sender, game_id, **kw: after.append(game_id), weak=False, dispatch_uid="test_after"
    )
    try:
        with caplog.at_level(logging.ERROR), django_capture_on_commit_callbacks(execute=True):
            game = play_game_randomly(table, users, random.Random(3))
    finally:
        game_ended.disconnect(dispatch_uid="test_broken")
        game_ended.disconnect(dispatch_uid="test_after")
    assert after == [game.pk]
    assert "a subscriber that fails" in caplog.text
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.reviewed_actions == len(game.actions)
