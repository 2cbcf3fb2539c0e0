"""The embedded stand-in for Celery beat: a thread that looks every
settings.DEADLINE_SWEEP_SECONDS (a quarter second) whether a deadline is due, and sweeps
when one is.

It calls the same service as the beat task (play/tasks.py), so a table
behaves the same with or without a broker. It also runs beat's other entries, those with a
period in seconds (the chat's hourly pruning), as beat would: without it an embedded
platform would keep what production deletes. It is started by the ASGI application on its
first connection (or on ASGI lifespan startup, for servers that send it), and only when
settings.DEADLINE_TICKER is on (the default without REDIS_URL), so tests, management
commands and Celery processes, which never serve a connection, never start it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

logger = logging.getLogger(__name__)


# The ticker sweeps when something is due (as beat sends the sweep: play.clock.schedules), and
# at least this often for the sweep's housekeeping.
HOUSEKEEPING_SECONDS = 60.0
_swept_at = float("-inf")


# When each of beat's periodic entries last ran in this process (time.monotonic()).
_periodic_ran_at: dict[str, float] = {}


def beat_task(name: str) -> Any:
    """The Celery task registered as `name`. A web process never starts a worker, which
    is what imports the apps' task modules (config/celery.py's autodiscover_tasks), so
    they are imported here first (once: Python keeps them)."""
    from celery import current_app

    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def run_periodic_entries() -> list[str]:
    """Run, in this thread, each entry of settings.CELERY_BEAT_SCHEDULE whose schedule is a
    period in seconds and which has not run for that long — the first tick runs them all,
    as beat does when it starts. The deadline sweep's entry has a schedule of its own and
    is this ticker's main work. Tasks are found by name in the Celery app, so live play
    imports none of the apps that declare them. Returns the names of the tasks run."""
    ran = []
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        period = entry.get("schedule")
        if not isinstance(period, int | float):
            continue
        if time.monotonic() - _periodic_ran_at.get(name, float("-inf")) < period:
            continue
        _periodic_ran_at[name] = time.monotonic()
        try:
            beat_task(entry["task"]).apply(
                args=entry.get("args", ()), kwargs=entry.get("kwargs", {})
            )
            ran.append(entry["task"])
        except Exception:
            # One failing entry must not stop the others, nor the clock for the tables.
            logger.exception("periodic task %s failed", entry["task"])
    return ran


def _sweep_once() -> int:
    """One tick: the sweep, if anything is due (one query otherwise), and beat's periodic
    entries that are due (none, most ticks: no query)."""
    from play.clock.sweep import deadlines_sweep, next_due_at

    global _swept_at
    run_periodic_entries()
    now = timezone.now()
    due = next_due_at()
    if (due is None or due > now) and time.monotonic() - _swept_at < HOUSEKEEPING_SECONDS:
        return 0
    _swept_at = time.monotonic()
    return deadlines_sweep(now=now)


class DeadlineTicker:
    """Calls `sweep` every `interval` seconds in a daemon thread until stopped."""

    def __init__(self, *, interval: float = 1.0, sweep: Callable[[], int] = _sweep_once):
        self.interval = interval
        self.sweep = sweep
        self.ticks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deadline-ticker", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sweep()
            except Exception:
                # One failed sweep must not stop the clock for every table.
                logger.exception("deadline sweep failed")
            finally:
                close_old_connections()
            self.ticks += 1


_ticker: DeadlineTicker | None = None
_ticker_lock = threading.Lock()


def ensure_ticker_started() -> DeadlineTicker | None:
    """Start the process-wide ticker once, if this process should run one."""
    global _ticker
    if not settings.DEADLINE_TICKER:
        return None
    with _ticker_lock:
        if _ticker is None or not _ticker.is_alive():
            _ticker = DeadlineTicker(interval=settings.DEADLINE_SWEEP_SECONDS)
            _ticker.start()
            logger.info("embedded deadline ticker started (no REDIS_URL: no Celery beat)")
        return _ticker


class StartTickerMiddleware:
    """ASGI wrapper that starts the ticker with the server's first connection."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._started = False

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if not self._started:
            self._started = True
            ensure_ticker_started()
        await self.app(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._started = True
                ensure_ticker_started()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if _ticker is not None:
                    _ticker.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return
