"""Beat sends the deadline sweep when something is due, not on every tick (issue 19: an
idle platform costs its Celery worker nothing): one query a tick says when the next
thing falls due (play.clock.sweep.next_due_at), and the schedule (play.clock.schedules) sends the
sweep once that moment has come."""

from __future__ import annotations

import datetime
import pickle
import time

import pytest
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from play.clock import schedules, sweep, ticker
from play.clock.schedules import DeadlinesDue
from play.clock.sweep import next_due_at
from play.db.selectors import PRESENCE_TTL_SECONDS
from play.models import Game, Presence
from play.services import seating
from tables import services
from tables.models import Table

SECOND = datetime.timedelta(seconds=1)


@pytest.fixture
def bank(make_user):
    """A banker36 bank in play with a deadline (no interlude, no client seeds)."""
    users = [make_user(f"p{i}") for i in range(2)]
    table = services.table_create(
        variant="banker36", name="Due", created_by=users[0], stake=10, entry_limit=100
    )
    for user in users:
        seating.seat_take(table=table, player=user)
    for user in users:
        seating.seat_ready(table=table, player=user)
    game = Game.objects.get(table=table, status=Game.Status.PLAYING)
    assert game.deadline is not None
    return table, game, users


@pytest.mark.django_db
def test_nothing_is_due_on_an_empty_platform_and_asking_costs_one_query():
    with CaptureQueriesContext(connection) as queries:
        assert next_due_at() is None
    assert len(queries.captured_queries) <= 1


@pytest.mark.django_db
def test_the_next_due_moment_is_the_earliest_deadline_start_deal_or_presence_expiry(settings, bank):
    settings.CLIENT_SEED_SECONDS = 0
    table, game, users = bank
    with CaptureQueriesContext(connection) as queries:
        assert next_due_at() == game.deadline
    assert len(queries.captured_queries) == 1
    soon = timezone.now() + 3 * SECOND
    Table.objects.filter(pk=table.pk).update(next_game_at=soon)
    assert next_due_at() == soon
    sooner = timezone.now() + 2 * SECOND
    Table.objects.filter(pk=table.pk).update(deal_at=sooner)
    assert next_due_at() == sooner
    seen = timezone.now() - datetime.timedelta(seconds=PRESENCE_TTL_SECONDS) + SECOND
    Presence.objects.create(table=table, user=users[0], channel_name="tab-1")
    Presence.objects.filter(channel_name="tab-1").update(seen_at=seen)
    assert next_due_at() == seen + datetime.timedelta(seconds=PRESENCE_TTL_SECONDS)
    # A closed table's moments and a finished game's deadline wait for nothing.
    Presence.objects.all().delete()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    assert next_due_at() is None


@pytest.mark.django_db
def test_beat_does_not_send_the_sweep_while_nothing_is_due_and_checks_again_within_a_tick():
    schedule = DeadlinesDue(run_every=60.0, tick=0.25)
    due, next_check = schedule.is_due(timezone.now())
    assert not due and 0 < next_check <= 0.25


@pytest.mark.django_db
def test_beat_sends_the_sweep_once_a_deadline_has_passed(bank):
    _table, game, _users = bank
    schedule = DeadlinesDue(run_every=60.0, tick=0.25)
    assert not schedule.is_due(timezone.now()).is_due
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - SECOND)
    due, next_check = schedule.is_due(timezone.now())
    assert due and next_check == 0.25


@pytest.mark.django_db
def test_beat_checks_again_right_at_a_deadline_nearer_than_a_tick(bank):
    _table, game, _users = bank
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + datetime.timedelta(0, 0.1))
    due, next_check = DeadlinesDue(run_every=60.0, tick=0.25).is_due(timezone.now())
    assert not due and next_check <= 0.1


@pytest.mark.django_db
def test_beat_sends_the_sweep_at_least_once_a_minute_for_its_housekeeping():
    schedule = DeadlinesDue(run_every=60.0, tick=0.25)
    assert schedule.is_due(timezone.now() - 61 * SECOND).is_due


def test_beat_sweeps_on_every_tick_when_the_database_cannot_be_asked(monkeypatch):
    def broken() -> None:
        raise DatabaseError("connection refused")

    monkeypatch.setattr(schedules, "_seconds_to_next_due", broken)
    due, next_check = DeadlinesDue(run_every=60.0, tick=0.25).is_due(timezone.now())
    assert due and next_check == 0.25


def test_the_schedule_survives_beats_shelve_file():
    copy = pickle.loads(pickle.dumps(DeadlinesDue(run_every=60.0, tick=0.25)))
    assert (copy.run_every, copy.tick) == (datetime.timedelta(seconds=60), 0.25)


@pytest.mark.django_db
def test_the_embedded_ticker_sweeps_only_when_something_is_due(monkeypatch, bank):
    _table, game, _users = bank
    sweeps: list[datetime.datetime] = []
    monkeypatch.setattr(sweep, "deadlines_sweep", lambda now: sweeps.append(now) or 0)
    monkeypatch.setattr(ticker, "_swept_at", time.monotonic())  # housekeeping just done
    ticker._sweep_once()
    assert sweeps == []
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - SECOND)
    ticker._sweep_once()
    assert len(sweeps) == 1
