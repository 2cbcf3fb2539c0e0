"""The seats of a table as a command reads them once, under the table's lock, and keeps
on the table instance for every step that follows (its own seat, the next decision's,
every frame); `forget_seats` drops them once seat rows were written."""

from __future__ import annotations

import datetime
from typing import Any

from play import wall
from play.db import store
from play.db.selectors import presence_cutoff, seats_connected
from tables.models import Seat, Table


def table_seats(table: Table) -> list[Seat]:
    """The table's seats by number, with their players: those a move read under the
    table's lock (`read_seats`, `locks.lock_table_and_game`), else read now."""
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
    at = wall.now()
    seats = store.seats_read(table.pk, presence_cutoff(at))
    seats_known(table, seats, at)
    return seats


def seats_known(table: Table, seats: list[Seat], at: datetime.datetime) -> None:
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
