"""Reads of live play that change nothing: who is connected to a table (a presence
row with a heartbeat in the shared cache), and the games a player sat in."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.expressions import RawSQL

from play.models import Game, Presence
from tables.models import Table

# A connection's presence row is written when it opens and deleted when it closes. In
# between, its consumer beats every PRESENCE_HEARTBEAT_SECONDS; a connection whose last
# sign of life (the row's `seen_at`, or its last beat) is older than PRESENCE_TTL_SECONDS
# belongs to a server that died without closing it (a SIGKILL, a crash), and counts as a
# dropped connection.
#
# The beats go to the cache (Redis, shared by every web process and the Celery workers;
# in-process memory in embedded mode, where the ticker sweeps in the same process), not
# to the database: a write per socket every 20 s was a fifth of the web process's
# database work at 400 players (make bench-live). The sweep copies a beat into `seen_at`
# once a row has aged past the TTL, so most reads need only the row.
PRESENCE_HEARTBEAT_SECONDS = 20

PRESENCE_TTL_SECONDS = 60


def beat_key(channel_name: str) -> str:
    return f"presence-beat:{channel_name}"


def last_beats(rows: list[tuple[Any, ...]]) -> dict[str, float]:
    """channel name -> its last beat (epoch seconds), for (channel name, …) rows."""
    if not rows:
        return {}
    keys = {beat_key(row[0]): row[0] for row in rows}
    return {keys[key]: float(value) for key, value in cache.get_many(list(keys)).items()}


def connected_users(table: Table, now: datetime.datetime) -> set[int]:
    """The users with a live connection at `table`."""
    cutoff = presence_cutoff(now)
    rows = list(
        Presence.objects.filter(table=table).values_list("channel_name", "user_id", "seen_at")
    )
    aged = [row for row in rows if row[2] < cutoff]
    beats = last_beats(aged)
    return {
        user_id
        for channel, user_id, seen_at in rows
        if seen_at >= cutoff or beats.get(channel, 0.0) >= cutoff.timestamp()
    }


def presence_cutoff(now: datetime.datetime) -> datetime.datetime:
    """A presence row seen before this has aged past the TTL: its beat decides."""
    return now - datetime.timedelta(seconds=PRESENCE_TTL_SECONDS)


def seat_presence_since(cutoff: datetime.datetime) -> dict[str, Exists]:
    """Annotations for a table's seats, read with them in one statement: whether the
    seat's player has a presence row there seen since `cutoff` (`presence_cutoff`),
    young enough to count without its beat (`present_now`), and whether one aged past
    it (`present_aged`), whose beat in the cache decides (`seats_connected`)."""
    rows = Presence.objects.filter(table_id=OuterRef("table_id"), user_id=OuterRef("player_id"))
    return {
        "present_now": Exists(rows.filter(seen_at__gte=cutoff)),
        "present_aged": Exists(rows.filter(seen_at__lt=cutoff)),
    }


def seats_connected(table: Table, seats: list[Any], now: datetime.datetime) -> set[int]:
    """`connected_users` as far as the frames use it (which seated players are
    connected), from seats read with `seat_presence_since`. A player whose only rows have aged
    past the TTL (their beats are in the cache, copied to the rows by the sweep) has the
    table's rows read as `connected_users` reads them."""
    if any(s.present_aged and not s.present_now for s in seats if s.player_id is not None):
        return connected_users(table, now)
    return {s.player_id for s in seats if s.player_id is not None and s.present_now}


def games_played_by(user: Any) -> QuerySet[Game]:
    """Games over (finished or voided) in which the user held a seat, newest first."""
    return games_seating(user).exclude(status=Game.Status.PLAYING)


def games_seating(user: Any) -> QuerySet[Game]:
    """Every game in which the user held a seat, those in play included, newest first."""
    games = Game.objects.select_related("table")
    if connection.vendor == "postgresql":
        games = games.filter(players__contains=[{"user": user.pk}])
    else:  # SQLite has no JSON containment: walk each game's list of players
        table = Game._meta.db_table
        games = games.filter(
            pk__in=RawSQL(
                f"SELECT g.id FROM {table} g, json_each(g.players) p "
                "WHERE json_extract(p.value, '$.user') = %s",
                (user.pk,),
            )
        )
    return games.order_by("-finished_at", "-id")


def latest_game(table: Table) -> Game | None:
    game = Game.objects.filter(table=table).order_by("-number").first()
    if game is not None:
        game.table = table
    return game
