"""Deadlines that fell due: a decision's clock (the rules' `timeout`), the next game's
start, the deal that waited for client seeds, and players away too long."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction

from games import engine
from games.ai import choose_action
from play import wall
from play.db import store
from play.db.locks import lock_table_or_skip, playing_game
from play.db.seat_reads import read_seats
from play.db.selectors import connected_users, latest_game
from play.frames.viewing import frames_on_commit
from play.models import Game
from play.services.errors import PlayError
from play.services.lifecycle import deal, start_next, transition
from play.wall import seconds
from tables.models import Table
from tables.signals import table_changed_on_commit

logger = logging.getLogger(__name__)


def swept(step: Callable[[int, datetime.datetime], int], table_id: int, now: Any) -> int:
    """One table's part of a sweep. A table whose deadline cannot be played (its chips
    cannot move, a bug) is logged and left for an admin, not allowed to stop the clock of
    every table swept after it; its own transaction has rolled back."""
    try:
        return step(table_id, now)
    except Exception:
        logger.exception("sweep of table %s failed", table_id)
        return 0


def apply_due_if_any(table_id: int, now: datetime.datetime) -> int:
    return apply_due(table_id, now, look_first=True)


def apply_due(table_id: int, now: datetime.datetime, *, look_first: bool = False) -> int:
    # `look_first`: when nothing is due (the common case before a move), one read, with
    # no lock and no transaction.
    if (
        look_first
        and not Game.objects.filter(
            table_id=table_id, status=Game.Status.PLAYING, deadline__lte=now
        ).exists()
    ):
        return 0
    # The decision's writes go in one statement, as a move's do (play.db.store).
    with transaction.atomic(), store.writes_together() as writes:
        table = lock_table_or_skip(table_id)
        if table is None:
            return 0  # another sweeper (or a move) holds this table right now
        game = playing_game(table)
        if game is None or game.deadline is None or game.deadline > now:
            return 0
        read_seats(table)
        decision_due_play(table, game, now)
        writes.send()
        return 1


def decision_due_play(table: Table, game: Game, now: datetime.datetime) -> None:
    """Play the decision that fell due at `game`: an AI seat's choice, a person's
    timeout. The caller holds the table's lock and has read its seats."""
    seat_id = game.deadline_seat
    entry = game.player_entry(seat_id) or {}
    if entry.get("ai"):
        turn = engine.legal_actions(game.state)
        assert turn is not None and turn["seat"] == seat_id
        view = engine.view(game.state, seat_id)
        action = choose_action(game.variant, entry["ai"], view, turn["actions"])
    else:
        action = {"seat": seat_id, "action": "timeout"}
    transition(table, game, action, now)


def start_due(table_id: int, now: datetime.datetime) -> int:
    with transaction.atomic():
        table = lock_table_or_skip(table_id)
        if table is None or table.next_game_at is None or table.next_game_at > now:
            return 0
        table.next_game_at = None
        _stand_up_absent(table, now)
        try:
            with transaction.atomic():
                start_next(table, now)
        except PlayError:
            table.save(update_fields=["next_game_at"])
            frames_on_commit(table, latest_game(table), [{"type": "waiting_for_players"}])
            return 0
        return 1


def deal_due(table_id: int, now: datetime.datetime) -> int:
    """The client-seed window of an announced game is over: deal without the missing."""
    with transaction.atomic():
        table = lock_table_or_skip(table_id)
        if table is None or table.pending is None or table.deal_at is None or table.deal_at > now:
            return 0
        try:
            with transaction.atomic():
                deal(table, now)
        except PlayError:  # the players it was announced for have gone
            table.pending = None
            table.deal_at = None
            frames_on_commit(
                table,
                latest_game(table),
                [{"type": "waiting_for_players"}],
                saving=["pending", "deal_at"],
                latest_known=True,
            )
            return 0
        return 1


def _stand_up_absent(table: Table, now: datetime.datetime) -> None:
    """Before a game that starts by itself: players gone longer than the reconnect grace
    lose their seats, so a table of absent players does not play on for ever."""
    cutoff = now - seconds(table.reconnect_grace_seconds)
    # A seat can keep `away_since` while its player is connected (a reload's new socket
    # joining as the old one leaves): a live connection says they are here.
    online = connected_users(table, wall.now())
    gone = list(
        table.seats.filter(away_since__lt=cutoff)
        .exclude(player_id__in=list(online))
        .select_related("player")
    )
    for seat in gone:
        seat.delete()
    if gone:
        frames_on_commit(
            table,
            latest_game(table),
            [{"type": "stood_up", "seat": s.seat_id, "reason": "away"} for s in gone],
        )
        table_changed_on_commit(table)
