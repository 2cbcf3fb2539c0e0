"""The locks and reads every live-play write starts from, in one place.

Every change at a live table follows one path: lock the table row (one writer per table:
`lock_table`, or `lock_table_with_host` for a command whose frames name the host), apply
an overdue deadline first (play/clocks.py), check the client's expected version, call
the rules engine, persist the state, its events and the new version, move chips through
the one ledger function (play/chips.py), and broadcast per-viewer frames only once the
transaction has committed (play/viewing.py). Each public service is one transaction,
named <thing>_<verb>, taking keyword arguments.

`now` is the services' one clock: every module calls it as `locks.now()`, so that a test
that moves it moves it everywhere."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone

from play import store
from play.models import Game
from play.selectors import presence_cutoff, seats_connected
from tables.models import Seat, Table


def now() -> datetime.datetime:
    return timezone.now()


def seconds(value: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=value)


def lock_table(table_id: int) -> Table:
    """The table's row, locked to the end of the transaction: one writer per table. Every
    service that changes a table starts here (or with `lock_table_with_host`)."""
    return Table.objects.select_for_update().get(pk=table_id)


def lock_table_with_host(table_id: int) -> Table:
    """The table, locked for the command that reads it (only its own row: the host, whose
    name goes into every frame (frames.table_info), is read with it, not locked)."""
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
    when a game is in play (a move's case, play.store), more otherwise. The table's row
    is locked first, as everywhere else.

    Waiting for the lock, the statement sees the latest version of both rows (READ
    COMMITTED re-checks a locked row), but not a game begun meanwhile: then it finds none,
    and the statements that follow, each with a fresh snapshot, find that game."""
    at = now()
    game, seats = store.table_and_game_locked(table_id, presence_cutoff(at))
    if game is not None:
        _seats_known(game.table, seats, at)
        return game.table, game
    table = lock_table_with_host(table_id)
    return table, playing_game(table)


def playing_game(table: Table) -> Game | None:
    game = Game.objects.select_for_update().filter(table=table, status=Game.Status.PLAYING).first()
    if game is not None:
        game.table = table  # read through game.table (chips, records): not fetched again
    return game


def latest_game(table: Table) -> Game | None:
    game = Game.objects.filter(table=table).order_by("-number").first()
    if game is not None:
        game.table = table
    return game


def table_seats(table: Table) -> list[Seat]:
    """The table's seats by number, with their players: those a move read under the
    table's lock (`read_seats`, `lock_table_and_game`), else read now."""
    known: list[Seat] | None = getattr(table, "_seats_read", None)
    if known is not None:
        return known
    return list(table.seats.select_related("player").order_by("number"))


def read_seats(table: Table) -> list[Seat]:
    """Read the seats of a table just locked, once for every step of the command that
    follows (its own seat, the next decision's, every frame): seat rows change only under
    that lock, and a step that changes them keeps the list true (`end_game`) or has it
    read again (`forget_seats`, `start_next`). Three reads of the same rows were a sixth of a
    move's queries.

    Each seat comes with whether its player is connected (`selectors.seat_presence_since`), in
    the same statement, for the frames the command ends with (`viewing.frames_on_commit`):
    that was a statement of its own in every move. Presence rows are not written under
    the table's lock, so read now or at the command's end, a few milliseconds later, they
    race the same way with a socket that opens or closes meanwhile, whose own presence
    frame follows its commit."""
    at = now()
    seats = store.seats_read(table.pk, presence_cutoff(at))
    _seats_known(table, seats, at)
    return seats


def _seats_known(table: Table, seats: list[Seat], at: datetime.datetime) -> None:
    for seat in seats:
        seat.table = table  # as `table.seats` would: not read again through a seat
    table._seats_read = seats  # type: ignore[attr-defined]
    table._seats_read_at = at  # type: ignore[attr-defined]


def seat_row(table: Table, entry: dict[str, Any]) -> Seat | None:
    if not entry:
        return None
    return next((s for s in table_seats(table) if s.number == entry["number"]), None)


def forget_seats(table: Table) -> None:
    """Seat rows of `table` were written: the next `table_seats` reads them again."""
    table.__dict__.pop("_seats_read", None)
    table.__dict__.pop("_seats_read_at", None)


def seats_read_connected(table: Table) -> set[int] | None:
    """Which seated players are connected, as read with the seats under the table's lock
    (`read_seats`); None when the seats were not read so (or were read again since)."""
    seats: list[Seat] | None = getattr(table, "_seats_read", None)
    at: datetime.datetime | None = getattr(table, "_seats_read_at", None)
    if seats is None or at is None:
        return None
    return seats_connected(table, seats, at)
