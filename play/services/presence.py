"""Who has a socket open at a table: one row per tab, a heartbeat in the shared cache,
and what happens to a seated player whose last tab went away (the reconnect grace)."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.cache import cache
from django.db import transaction

from play import wall
from play.db import selectors
from play.db.locks import lock_table, playing_game
from play.db.selectors import (
    beat_key,
    connected_users,
    last_beats,
)
from play.frames import broadcast
from play.frames.viewing import frames_on_commit
from play.models import Presence
from play.wall import seconds
from tables.models import Table


@transaction.atomic
def presence_join(*, table: Table, user: Any, channel_name: str) -> None:
    Presence.objects.update_or_create(
        channel_name=channel_name, defaults={"table": table, "user": user}
    )
    cache.delete(beat_key(channel_name))  # a beat left by an earlier use of the name
    seat = table.seats.filter(player=user).first()
    if seat is not None:
        if seat.away_since is not None:
            seat.away_since = None
            seat.save(update_fields=["away_since"])
        transaction.on_commit(
            lambda: broadcast.send_presence(
                table.pk,
                {
                    "type": "presence",
                    "version": table.version,
                    "seat": seat.seat_id,
                    "connected": True,
                },
            )
        )


def presence_touch(*, channel_name: str) -> None:
    """The consumer's heartbeat: this connection is still open (in the cache only)."""
    cache.set(
        beat_key(channel_name),
        wall.now().timestamp(),
        timeout=selectors.PRESENCE_TTL_SECONDS + selectors.PRESENCE_HEARTBEAT_SECONDS,
    )


@transaction.atomic
def presence_leave(*, table: Table, user: Any, channel_name: str) -> None:
    """A connection closed. If it was the player's last one and their decision is
    running, the table's reconnect grace counts from now (once per decision)."""
    Presence.objects.filter(channel_name=channel_name).delete()
    _presence_drop(table, user, wall.now())


def presences_expire(*, now: datetime.datetime) -> int:
    """Forget connections whose server died without closing them, as drops. Part of
    every sweep. A row aged past the TTL whose connection still beats gets its beat's
    time as `seen_at` instead."""
    cutoff = now - seconds(selectors.PRESENCE_TTL_SECONDS)
    aged = list(
        Presence.objects.filter(seen_at__lt=cutoff).values_list(
            "channel_name", "pk", "table_id", "user_id"
        )
    )
    beats = last_beats(aged)
    stale, alive = [], []
    for channel, pk, table_id, user_id in aged:
        beat = beats.get(channel)
        if beat is not None and beat >= cutoff.timestamp():
            alive.append((beat, pk))
        else:
            stale.append((pk, table_id, user_id))
    if alive:  # one statement: the oldest of their beats (never later than any of them)
        seen = datetime.datetime.fromtimestamp(min(beat for beat, _pk in alive), tz=datetime.UTC)
        Presence.objects.filter(pk__in=[pk for _beat, pk in alive]).update(seen_at=seen)
    for pk, table_id, user_id in stale:
        with transaction.atomic():
            Presence.objects.filter(pk=pk).delete()
            table = Table.objects.filter(pk=table_id).first()
            if table is not None:
                _presence_drop(table, user_id, now)
    return len(stale)


def _presence_drop(table: Table, user: Any, now: datetime.datetime) -> None:
    """`user` (a user or its pk) has no open connection at `table` any more."""
    if getattr(user, "pk", user) in connected_users(table, now):
        return
    table = lock_table(table.pk)
    seat = table.seats.filter(player=user).select_related("player").first()
    if seat is None:
        return
    sid = seat.seat_id
    game = playing_game(table)
    seat.away_since = now
    seat.save(update_fields=["away_since"])
    grace = table.reconnect_grace_seconds
    if (
        game is not None
        and game.deadline_seat == sid
        and game.deadline is not None
        and grace > 0
        and game.grace_version != game.state["version"]
    ):
        game.grace_version = game.state["version"]
        game.deadline = max(game.deadline, now + seconds(grace))
        game.save(update_fields=["grace_version", "deadline"])
        frames_on_commit(table, game, [{"type": "away", "seat": sid}])
        return
    version = table.version
    transaction.on_commit(
        lambda: broadcast.send_presence(
            table.pk, {"type": "presence", "version": version, "seat": sid, "connected": False}
        )
    )
