"""The locks every live-play write starts from, in one place.

Every change at a live table follows one path: lock the table row (one writer per table:
`lock_table`, or `lock_table_with_host` for a command whose frames name the host), apply
an overdue deadline first (play/services/deadlines.py), check the client's expected
version, call the rules engine, persist the state, its events and the new version, move
chips through the one ledger function (play/services/chips.py), and broadcast per-viewer
frames only once the transaction has committed (play/frames/viewing.py). Each public
service is one transaction, named <thing>_<verb>, taking keyword arguments.

The seats read under these locks, and kept on the table for the rest of the command, are
play/db/seat_reads.py's."""

from __future__ import annotations

from play import wall
from play.db import store
from play.db.seat_reads import seats_known
from play.db.selectors import presence_cutoff
from play.models import Game
from tables.models import Table


def lock_table(table_id: int) -> Table:
    """The table's row, locked to the end of the transaction: one writer per table. Every
    service that changes a table starts here (or with `lock_table_with_host`)."""
    return Table.objects.select_for_update().get(pk=table_id)


def lock_table_with_host(table_id: int) -> Table:
    """The table, locked for the command that reads it (only its own row: the host, whose
    name goes into every frame (build.table_info), is read with it, not locked)."""
    return store.table_with_host_locked(table_id)


def lock_table_version(table_id: int) -> int:
    """Lock the table's row and read its version alone (a command checked against the
    version it was decided on, before it runs)."""
    return int(
        Table.objects.select_for_update()
        .filter(pk=table_id)
        .values_list("version", flat=True)
        .get()
    )


def lock_table_or_skip(table_id: int) -> Table | None:
    """The table's row locked, or None if another transaction holds it (the sweep moves on
    to the next table)."""
    return Table.objects.select_for_update(skip_locked=True).filter(pk=table_id).first()


def lock_table_and_game(table_id: int) -> tuple[Table, Game | None]:
    """The table locked with its host read (`lock_table_with_host`) and its game in play
    locked (`playing_game`), the seats read after the locks (`read_seats`): one round trip
    when a game is in play (a move's case, play.db.store), more otherwise. The table's row
    is locked first, as everywhere else.

    Waiting for the lock, the statement sees the latest version of both rows (READ
    COMMITTED re-checks a locked row), but not a game begun meanwhile: then it finds none,
    and the statements that follow, each with a fresh snapshot, find that game."""
    at = wall.now()
    game, seats = store.table_and_game_locked(table_id, presence_cutoff(at))
    if game is not None:
        seats_known(game.table, seats, at)
        return game.table, game
    table = lock_table_with_host(table_id)
    return table, playing_game(table)


def playing_game(table: Table) -> Game | None:
    game = Game.objects.select_for_update().filter(table=table, status=Game.Status.PLAYING).first()
    if game is not None:
        game.table = table  # read through game.table (chips, records): not fetched again
    return game
