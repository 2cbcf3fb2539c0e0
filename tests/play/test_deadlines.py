"""The turn-deadline sweep: Celery beat every quarter second with Redis, the ticker without."""

from __future__ import annotations

import datetime
import time
from unittest import mock

import pytest
from django.conf import settings
from django.utils import timezone

from config.celery import app
from play import tasks
from play.clock import ticker
from play.clock.schedules import DeadlinesDue
from play.clock.sweep import deadlines_sweep


def test_beat_checks_for_due_deadlines_every_quarter_second_and_sweeps_at_least_once_a_minute():
    """A quarter second, not one: timeouts are played sooner, and the games whose
    interludes end together are announced in smaller waves (config/settings.py)."""
    entry = app.conf.beat_schedule["sweep-deadlines"]
    assert entry["task"] == "tables.tasks.sweep_deadlines"
    assert isinstance(entry["schedule"], DeadlinesDue)
    assert entry["schedule"].tick == 0.25
    assert entry["schedule"].run_every == datetime.timedelta(seconds=60)
    assert "tables.tasks.sweep_deadlines" in app.tasks


def test_sweep_task_calls_the_deadline_service_with_the_current_time():
    with mock.patch.object(tasks, "deadlines_sweep", return_value=3) as sweep:
        assert tasks.sweep_deadlines.apply().get() == 3
    (call,) = sweep.call_args_list
    assert abs((call.kwargs["now"] - timezone.now()).total_seconds()) < 5


@pytest.mark.django_db
def test_sweep_service_finds_nothing_due_without_games_in_play():
    assert deadlines_sweep(now=timezone.now()) == 0


def test_embedded_mode_runs_tasks_in_process_and_enables_the_ticker_by_default():
    if settings.REDIS_URL:
        assert not app.conf.task_always_eager
        assert app.conf.broker_url == settings.REDIS_URL
    else:
        assert app.conf.task_always_eager
        assert app.conf.broker_url == "memory://"


def test_ticker_calls_the_sweep_repeatedly_and_survives_errors():
    calls = []

    def sweep():
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise RuntimeError("one bad sweep")
        return 0

    t = ticker.DeadlineTicker(interval=0.02, sweep=sweep)
    t.start()
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    t.stop()
    assert len(calls) >= 3 and not t.is_alive()


@pytest.mark.asyncio
async def test_asgi_app_starts_the_ticker_only_when_enabled(settings):
    started = []
    inner_calls = []

    async def inner(scope, receive, send):
        inner_calls.append(scope["type"])

    with mock.patch.object(ticker, "DeadlineTicker") as cls:
        cls.return_value.start.side_effect = lambda: started.append(1)
        cls.return_value.is_alive.return_value = True
        settings.DEADLINE_TICKER = False
        await ticker.StartTickerMiddleware(inner)({"type": "http"}, None, None)
        assert started == []
        settings.DEADLINE_TICKER = True
        with mock.patch.object(ticker, "_ticker", None):
            app_ = ticker.StartTickerMiddleware(inner)
            await app_({"type": "http"}, None, None)
            await app_({"type": "websocket"}, None, None)
            assert started == [1]
            cls.assert_called_once_with(interval=settings.DEADLINE_SWEEP_SECONDS)
    assert inner_calls == ["http", "http", "websocket"]


@pytest.mark.asyncio
async def test_asgi_lifespan_starts_and_stops_the_ticker(settings):
    settings.DEADLINE_TICKER = True
    messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    sent = []

    async def receive():
        return next(messages)

    async def send(message):
        sent.append(message["type"])

    with (
        mock.patch.object(ticker, "DeadlineTicker") as cls,
        mock.patch.object(ticker, "_ticker", None),
    ):
        cls.return_value.is_alive.return_value = True
        await ticker.StartTickerMiddleware(None)({"type": "lifespan"}, receive, send)
        cls.return_value.start.assert_called_once()
        cls.return_value.stop.assert_called_once()
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
