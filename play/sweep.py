"""The one sweep of everything due: Celery beat every quarter second
(settings.DEADLINE_SWEEP_SECONDS), or the embedded ticker (play/ticker.py)."""

from __future__ import annotations

import datetime

from play import locks
from play.clocks import apply_due, deal_due, start_due, swept
from play.commands import client_commands_forget
from play.models import Game
from play.presence import presences_expire
from tables.models import Table


def deadlines_sweep(*, now: datetime.datetime) -> int:
    """Play every decision whose deadline has passed (the rules' timeout, or an AI seat's
    choice) and start every game whose interlude is over; returns how many it played.

    Called every DEADLINE_SWEEP_SECONDS (a quarter second) by Celery beat (play/tasks.py,
    queued as tables.tasks.sweep_deadlines) or, in embedded mode, by the in-process
    ticker. Safe with several sweepers at once: each table is locked with SKIP LOCKED and
    its deadline re-read under the lock, so a decision is played once.
    """
    applied = 0
    due = Game.objects.filter(status=Game.Status.PLAYING, deadline__lte=now)
    for table_id in list(due.values_list("table_id", flat=True)):
        applied += swept(apply_due, table_id, now)
    starting = Table.objects.filter(status=Table.Status.OPEN, next_game_at__lte=now)
    for table_id in list(starting.values_list("pk", flat=True)):
        applied += swept(start_due, table_id, now)
    dealing = Table.objects.filter(status=Table.Status.OPEN, deal_at__lte=now)
    for table_id in list(dealing.values_list("pk", flat=True)):
        applied += swept(deal_due, table_id, now)
    # Heartbeats keep the wall clock, whatever `now` the caller sweeps for.
    presences_expire(now=locks.now())
    client_commands_forget(now=locks.now())
    return applied
