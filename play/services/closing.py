"""Closing and reopening a table, and voiding a game: the host's `close` command and the
administrators' actions (play/admin.py)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games import engine
from play import wall
from play.db.locks import lock_table, playing_game
from play.frames.viewing import frames_on_commit
from play.models import Game
from play.services.errors import PlayError
from play.services.lifecycle import close_if_settled, close_locked_table, end_game
from play.services.permissions import require_host
from tables.models import Table
from tables.signals import table_changed_on_commit


@transaction.atomic
def table_close(*, table: Table) -> Table:
    """Close a table now (an administrator): a game in play is voided (every stake
    returned), seats are freed."""
    table = lock_table(table.pk)
    game = playing_game(table)
    close_locked_table(table, game, wall.now())
    frames_on_commit(table, game, [{"type": "table_closed"}])
    return table


@transaction.atomic
def table_close_by_host(*, table: Table, by: Any) -> dict[str, Any]:
    """The `close` command. At a chip table whose deal (salon) or bank (banker36) has
    chips in play the table is not closed now — voiding would hand back the stakes of a
    deal everyone has seen, the host's own included — but once that deal or bank settles
    by the rules (`transition`); the answer says so with `closing`. Anywhere else it
    closes at once. Voiding a game in play is the administrators' (table_close,
    game_void: play/admin.py)."""
    table = lock_table(table.pk)
    require_host(table, by)
    game = playing_game(table)
    if table.variant_spec.stakes_chips and game is not None and engine.in_play(game.state):
        if not table.closing:
            table.closing = True
            table.save(update_fields=["closing"])
            frames_on_commit(table, game, [{"type": "table_closing"}])
        return {"closing": True}
    close_locked_table(table, game, wall.now())
    frames_on_commit(table, game, [{"type": "table_closed"}])
    return {}


@transaction.atomic
def table_reopen(*, table: Table) -> Table:
    table = lock_table(table.pk)
    table.status = Table.Status.OPEN
    table.closed_at = None
    table.closing = False
    table.save(update_fields=["status", "closed_at", "closing"])
    frames_on_commit(table, None, [])
    table_changed_on_commit(table, added=True)
    return table


@transaction.atomic
def game_void(*, game: Game) -> Game:
    """An admin voids a game in play: stakes go back, the record ends where it stood."""
    table = lock_table(game.table_id)
    current = playing_game(table)
    if current is None or current.pk != game.pk:
        raise PlayError("no_game", _("Эта игра уже окончена."))
    now = wall.now()
    end_game(table, current, now, status=Game.Status.VOIDED)
    table.save(update_fields=["next_game_at"])
    # A table its host was closing waited for this game's deal to settle; voided, it has
    # nothing left to wait for.
    frames_on_commit(
        table, current, close_if_settled(table, current, now, [{"type": "game_voided"}])
    )
    return current
