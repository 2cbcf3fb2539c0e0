"""What each viewer of a table is sent after a change: their own frame (docs/protocol.md),
built once the change has committed and broadcast to the table's group."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from contract.table_out import HistoryEntry, Snapshot
from games import engine
from play import wall
from play.db import store
from play.db.seat_reads import seats_read_connected, table_seats
from play.db.selectors import connected_users, latest_game
from play.frames import broadcast, build
from play.frames.build import epoch_ms, table_info
from play.models import Game, GameEvent
from tables.models import Table


def frames_on_commit(
    table: Table,
    game: Game | None,
    events: list[dict[str, Any]],
    *,
    saving: Sequence[str] = (),
    latest_known: bool = False,
    at: datetime.datetime | None = None,
    later: bool = False,
) -> None:
    """A new table version: save it and, once committed, send each viewer its frame.
    `saving`: more of the table's columns that the change wrote, saved in the same
    statement as its version (a statement of their own each was a round trip more).
    `latest_known`: `game` is the table's latest game, None when it has had none yet
    (not looked for again). `at`: the time of the game's transition the change is (its
    event's `created_at`), told in the frames as their history entry tells it. `later`: the
    save waits for the transaction's other writes (play.db.store)."""
    table.version += 1
    # Every change saves its version, only over the version it was decided on.
    store.row_update(
        table,
        ["version", "next_game_at", *saving],
        version_was=table.version - 1,
        later=later,
    )
    common = _viewing(table, game, connected=seats_read_connected(table), game_known=latest_known)
    # The table's part is every viewer's alike: built once for all of the change's frames.
    info = table_info(table, common["seats"], common["connected"])
    players = {
        s.player_id: build.update(seat=s.seat_id, events=events, info=info, at=at, **common)
        for s in common["seats"]
        if s.player_id is not None
    }
    spectator = build.update(seat=None, events=events, info=info, at=at, **common)
    table_id = table.pk
    transaction.on_commit(lambda: broadcast.send_frames(table_id, spectator, players))


def _viewing(
    table: Table,
    game: Game | None = None,
    *,
    connected: set[int] | None = None,
    game_known: bool = False,
) -> dict[str, Any]:
    """What every frame of the table is built from: its seats, who is connected, and the
    game shown — the one in play or, between games, the last (the latest number);
    `game_known`: `game` is that game, None when the table has had none yet."""
    return {
        "table": table,
        "seats": table_seats(table),
        "connected": connected if connected is not None else connected_users(table, wall.now()),
        "game": game if game is not None or game_known else latest_game(table),
    }


def table_snapshot(*, table: Table, user: Any) -> Snapshot:
    """The full picture for one connection (on connect, on a gap, after a refusal)."""
    common = _viewing(table)
    user_id = getattr(user, "pk", None)
    # An anonymous viewer (no pk) must not match an AI seat, whose player is None too.
    seat_id = next(
        (s.seat_id for s in common["seats"] if user_id is not None and s.player_id == user_id),
        None,
    )
    return build.snapshot(seat=seat_id, history=game_history(common["game"], seat_id), **common)


def game_start_event(game: Game) -> dict[str, Any]:
    """The announcement a game's deal begins with, in its update and in its history."""
    return {"type": "game_start", "game": game.number, "commitment": game.commitment}


# How many of the shown game's latest transitions a snapshot carries (docs/protocol.md §6.1).
HISTORY_TRANSITIONS = 60


def game_history(game: Game | None, seat: str | None) -> list[HistoryEntry]:
    """The shown game's latest transitions, oldest first, each with its engine version, its
    time and its events as `seat` may see them (`engine.events_for`, as in an update): what
    a page rebuilds its log («Ход игры») from after a reload."""
    if game is None:
        return []
    holder = seat if seat in game.seat_ids else None
    rows = (
        GameEvent.objects.filter(game=game)
        .order_by("-version")
        .values_list("version", "created_at", "action", "events")[:HISTORY_TRANSITIONS]
    )
    history = []
    for version, at, action, events in reversed(list(rows)):
        if action is None:  # the deal: its update began with the game's announcement
            events = [game_start_event(game), *events]
        history.append(
            HistoryEntry(
                version=version,
                at=epoch_ms(at),  # type: ignore[arg-type]
                events=engine.events_for(events, holder),
            )
        )
    return history
