"""The one sweep of everything due: sent by Celery beat once something is due (beat
looks every settings.DEADLINE_SWEEP_SECONDS: play/clock/schedules.py), or run by the embedded
ticker (play/clock/ticker.py)."""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import QuerySet, Subquery

from play import wall
from play.db.selectors import PRESENCE_TTL_SECONDS
from play.models import Game, Presence
from play.services.commands import client_commands_forget
from play.services.deadlines import apply_due, deal_due, start_due, swept
from play.services.presence import presences_expire
from play.wall import seconds
from tables.models import Table


def next_due_at() -> datetime.datetime | None:
    """When the sweep next has something to do, in one query: the earliest decision
    deadline of a game in play, game start and deal of an open table, and moment a
    connection's presence row ages past its TTL (presences_expire). None: nothing waits.
    Beat asks this every tick (play.clock.schedules) and sends the sweep only once it has come."""
    games = Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False)
    tables = Table.objects.filter(status=Table.Status.OPEN)
    # One statement: the four earliest moments as scalar subqueries (each the first row of
    # an index on its column), selected alongside any one table row.
    earliest = (
        Table.objects.order_by()
        .annotate(
            game=Subquery(_earliest(games, "deadline")),
            start=Subquery(_earliest(tables.filter(next_game_at__isnull=False), "next_game_at")),
            deal=Subquery(_earliest(tables.filter(deal_at__isnull=False), "deal_at")),
            seen=Subquery(_earliest(Presence.objects.all(), "seen_at")),
        )
        .values_list("game", "start", "deal", "seen")[:1]
    )
    found = next(iter(earliest), None)
    if found is None:  # no table at all
        return None
    game, start, deal, seen = found
    if seen is not None:
        seen = seen + seconds(PRESENCE_TTL_SECONDS)
    moments = [m for m in (game, start, deal, seen) if m is not None]
    return min(moments) if moments else None


def _earliest(rows: QuerySet[Any], field: str) -> QuerySet[Any]:
    return rows.order_by(field).values(field)[:1]


def deadlines_sweep(*, now: datetime.datetime) -> int:
    """Play every decision whose deadline has passed (the rules' timeout, or an AI seat's
    choice) and start every game whose interlude is over; returns how many it played.

    Sent by Celery beat when `next_due_at` has come (play/clock/schedules.py; the task is
    play/tasks.py, queued as tables.tasks.sweep_deadlines) and at least once a minute, or
    run by the in-process ticker in embedded mode. Safe with several sweepers at once:
    each table is locked with SKIP LOCKED and its deadline re-read under the lock, so a
    decision is played once.
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
    presences_expire(now=wall.now())
    client_commands_forget(now=wall.now())
    return applied
