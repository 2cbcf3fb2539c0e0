"""Beat's schedule of the deadline sweep: sent when something is due, not on every tick.

Beat used to send `tables.tasks.sweep_deadlines` every DEADLINE_SWEEP_SECONDS (a quarter
second) whatever the database held: with no table open a Celery worker still took four
tasks a second off the broker, ran them and logged them (14–18 % of a core, issue 19).
Beat now asks the database, once per tick, when the next thing falls due (one query:
`play.clock.sweep.next_due_at`) and sends the sweep only when that moment has come. It checks
again at the next tick, or sooner when the next deadline is nearer than a tick, so a
timeout is applied as promptly as before; and at least every `run_every` (a minute) the
sweep is sent anyway, for the housekeeping it also does (command ids forgotten).

Nothing else changes: the sweep is the same task, run by any worker (two at once apply
every deadline once: they lock each table with SKIP LOCKED), and a sweep sent by an
older beat during a deploy is run as before. When the database cannot be asked, the
sweep is sent on every tick, as it always was: the worker meets the same fault and logs it.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from celery.schedules import schedstate, schedule

logger = logging.getLogger(__name__)


class DeadlinesDue(schedule):  # type: ignore[misc]
    """Due when `next_due_at()` has come, checked every `tick` seconds (or sooner), and at
    least every `run_every`."""

    def __init__(self, run_every: float, tick: float, **kwargs: Any) -> None:
        super().__init__(run_every=run_every, **kwargs)
        self.tick = tick

    def __reduce__(self) -> tuple[Any, ...]:  # beat keeps its entries in a shelve file
        return self.__class__, (self.run_every, self.tick)

    def is_due(self, last_run_at: datetime.datetime) -> schedstate:
        housekeeping = super().is_due(last_run_at)
        if housekeeping.is_due:
            return schedstate(is_due=True, next=self.tick)
        try:
            due_in = _seconds_to_next_due()
        except Exception:
            logger.exception("beat could not read the next deadline: sweeping anyway")
            _forget_broken_connection()
            return schedstate(is_due=True, next=self.tick)
        if due_in is not None and due_in <= 0:
            return schedstate(is_due=True, next=self.tick)
        wait = self.tick if due_in is None else min(self.tick, due_in)
        return schedstate(is_due=False, next=max(wait, 0.01))


def _seconds_to_next_due() -> float | None:
    from django.utils import timezone

    from play.clock.sweep import next_due_at

    moment = next_due_at()
    return None if moment is None else (moment - timezone.now()).total_seconds()


def _forget_broken_connection() -> None:
    from django.db import connection

    try:
        connection.close()
    except Exception:
        logger.debug("closing beat's database connection failed", exc_info=True)
