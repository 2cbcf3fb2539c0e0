"""Live play's store: the reads and writes every move makes, stated once.

A move locks its table and game, reads the seats, and writes its event, the game, the
table's new version and the client's command id. On PostgreSQL these are SQL written
here (built once, from the models' table and column names), because building the same
querysets for every move cost Django more CPU than PostgreSQL spent running them, and
because a move's writes are one statement (a data-modifying `WITH`), so a move costs
five round trips: the session check, BEGIN, the locked read, the writes, COMMIT. On
SQLite the same reads and writes go through the ORM, each when it is made; both paths
return the same instances and raise the same errors (tests run both).

The rows read become model instances through `Model.from_db` (lib/rows.py). The
transaction and its COMMIT are Django's own (`transaction.atomic`): nothing here runs
outside the caller's atomic block.

Writes that wait (`Writes`): inside `writes_together`, on PostgreSQL, the writes made with
`later=True` wait and are made together by `Writes.send`, in one statement with the
client's command id. On SQLite each write is made when it is asked for (its driver
runs one statement per execute: nothing to save by waiting). A write may
wait only when nothing read after it in the transaction is one of its rows (play.
lifecycle sends them before a game's end reads its events) and no savepoint that may
roll back while the transaction goes on is open around it (the move and the client seed
make them in their own block, which has none).
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model

from lib.rows import Columns, column, quoted, stamp, stored_fields, table_name, written
from play.db.selectors import seat_presence_since
from play.models import ClientCommand, Game, GameEvent, Presence
from tables.models import Seat, Table


class RowChanged(Exception):
    """A write did not find its row as the transaction read it (the table's version moved
    on, the game's row is gone): raised inside the atomic block, which rolls back."""


def uses_sql() -> bool:
    """Whether this database takes the statements written here (PostgreSQL), else the
    ORM's (SQLite)."""
    return connection.vendor == "postgresql"


def reads_together() -> bool:
    """Whether one execute may carry two statements with their values: psycopg's
    client-side binding cursor, Django's default on PostgreSQL (its OPTIONS'
    `server_side_binding` off), sends them as one query and each result is read in turn
    (DB-API `nextset`)."""
    options = connection.settings_dict.get("OPTIONS") or {}
    return uses_sql() and not options.get("server_side_binding")


# --- reads -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reads:
    table: Columns
    host: Columns
    game: Columns
    seat: Columns
    player: Columns
    table_with_host: str
    table_and_game: str
    seats: str


@functools.cache
def _reads() -> _Reads:
    user = get_user_model()
    table = Columns(Table, "t")
    host = Columns(user, "u", ["id", "username"])
    game = Columns(Game, "g")
    seat = Columns(Seat, "s")
    # A seat's player: the name, and whether it is a bot (`bot_owner`, frames' `bot`).
    player = Columns(user, "p", ["id", "username", "bot_owner"])
    tables, games, users = table_name(Table), table_name(Game), table_name(user)
    user_id = column(user, "id")
    return _Reads(
        table=table,
        host=host,
        game=game,
        seat=seat,
        player=player,
        # A command that shows the table locks it, with its host's name for the frames.
        table_with_host=f"""
            SELECT {table.sql}, {host.sql}
            FROM {tables} t
            LEFT JOIN {users} u ON u.{user_id} = t.{column(Table, "created_by")}
            WHERE t.{column(Table, "id")} = %s
            FOR UPDATE OF t""",
        # A move's lock: the table's row and its game in play, one statement. The table
        # is named first in FOR UPDATE OF, the order every service locks them in.
        table_and_game=f"""
            SELECT {table.sql}, {host.sql}, {game.sql}
            FROM {games} g
            JOIN {tables} t ON t.{column(Table, "id")} = g.{column(Game, "table")}
            LEFT JOIN {users} u ON u.{user_id} = t.{column(Table, "created_by")}
            WHERE g.{column(Game, "table")} = %s AND g.{column(Game, "status")} = %s
            ORDER BY g.{column(Game, "id")}
            LIMIT 1
            FOR UPDATE OF t, g""",
        # The seats with their players' names and whether each player has a presence
        # row there seen since the cutoff, or only older ones (play.db.selectors): who is
        # connected, for the frames the command ends with.
        seats=f"""
            SELECT {seat.sql}, {player.sql},
                EXISTS (SELECT 1 FROM {table_name(Presence)} pr
                        WHERE pr.{column(Presence, "table")} = s.{column(Seat, "table")}
                          AND pr.{column(Presence, "user")} = s.{column(Seat, "player")}
                          AND pr.{column(Presence, "seen_at")} >= %s),
                EXISTS (SELECT 1 FROM {table_name(Presence)} pr
                        WHERE pr.{column(Presence, "table")} = s.{column(Seat, "table")}
                          AND pr.{column(Presence, "user")} = s.{column(Seat, "player")}
                          AND pr.{column(Presence, "seen_at")} < %s)
            FROM {table_name(Seat)} s
            LEFT JOIN {users} p ON p.{user_id} = s.{column(Seat, "player")}
            WHERE s.{column(Seat, "table")} = %s
            ORDER BY s.{column(Seat, "number")}""",
    )


def _table_of(reads: _Reads, row: Any) -> Table:
    table: Table = reads.table.instance(row)
    # The host as the frames show them: their name only, not fetched again.
    table.created_by = reads.host.instance_or_none(row, reads.table.width)
    return table


def _seats_of(reads: _Reads, rows: Any) -> list[Seat]:
    seats = []
    width = reads.seat.width
    for row in rows:
        seat: Seat = reads.seat.instance(row)
        seat.player = reads.player.instance_or_none(row, width)
        seat.present_now, seat.present_aged = row[-2], row[-1]  # type: ignore[attr-defined]
        seats.append(seat)
    return seats


def _seats_queryset(table_id: int, cutoff: datetime.datetime) -> Any:
    return (
        Seat.objects.filter(table_id=table_id)
        .select_related("player")
        .only(*(f.name for f in stored_fields(Seat)), "player__username", "player__bot_owner")
        .annotate(**seat_presence_since(cutoff))
        .order_by("number")
    )


def table_with_host_locked(table_id: int) -> Table:
    """The table's row, locked to the end of the transaction, with its host's name."""
    if not uses_sql():
        return Table.objects.select_for_update().select_related("created_by").get(pk=table_id)
    reads = _reads()
    with connection.cursor() as cursor:
        cursor.execute(reads.table_with_host, [table_id])
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist("Table matching query does not exist.")
    return _table_of(reads, row)


def table_and_game_locked(
    table_id: int, cutoff: datetime.datetime
) -> tuple[Game | None, list[Seat]]:
    """The table's game in play, locked with its table (the table first; the game's
    `table` is that table, its host's name read), and the table's seats read after the
    locks are granted (`seats`). No game in play: (None, []) with nothing locked; the
    caller locks the table alone.

    On PostgreSQL the two statements go in one query: PostgreSQL runs them in order,
    each with a snapshot of its own, so the seats read are those committed until the
    lock was granted, as if read in a round trip of their own."""
    if not uses_sql():
        game = (
            Game.objects.select_for_update()
            .select_related("table__created_by")
            .filter(table_id=table_id, status=Game.Status.PLAYING)
            .order_by("pk")
            .first()
        )
        return game, (seats_read(table_id, cutoff) if game is not None else [])
    reads = _reads()
    values = [table_id, Game.Status.PLAYING.value]
    with connection.cursor() as cursor:
        if reads_together():
            cursor.execute(
                f"{reads.table_and_game}; {reads.seats}", [*values, cutoff, cutoff, table_id]
            )
            row = cursor.fetchone()
            cursor.nextset()
            seat_rows = cursor.fetchall()
        else:
            cursor.execute(reads.table_and_game, values)
            row = cursor.fetchone()
            seat_rows = None
    if row is None:
        return None, []
    table = _table_of(reads, row)
    game: Game = reads.game.instance(row, reads.table.width + reads.host.width)
    game.table = table
    if seat_rows is None:
        return game, seats_read(table_id, cutoff)
    return game, _seats_of(reads, seat_rows)


def seats_read(table_id: int, cutoff: datetime.datetime) -> list[Seat]:
    """The table's seats by number, each with its player's name and whether the player
    has a presence row seen since `cutoff` (`present_now`) or only older ones
    (`present_aged`)."""
    if not uses_sql():
        return list(_seats_queryset(table_id, cutoff))
    reads = _reads()
    with connection.cursor() as cursor:
        cursor.execute(reads.seats, [cutoff, cutoff, table_id])
        return _seats_of(reads, cursor.fetchall())


# --- writes ------------------------------------------------------------------------------


@dataclass
class _Update:
    instance: Model
    fields: list[str]
    # The table's version the transaction read, which the update requires (None: no check).
    version_was: int | None


@dataclass
class Writes:
    """The writes of one transaction that wait to be made together (`send`)."""

    events: list[GameEvent] = field(default_factory=list)
    updates: dict[tuple[type[Model], Any], _Update] = field(default_factory=dict)

    def insert_event(self, event: GameEvent) -> None:
        stamp(event, _event_fields(), adding=True)  # its time, told in the frames now
        self.events.append(event)

    def update(self, instance: Model, fields: list[str], version_was: int | None) -> None:
        # One row is updated once per statement (PostgreSQL would apply only one of two
        # updates of a row in the same WITH): a row written twice through one instance is
        # written once, with every field named and the version the transaction first
        # read; through another instance, what waits is made first.
        key = (type(instance), instance.pk)
        waiting = self.updates.get(key)
        if waiting is not None and waiting.instance is not instance:
            self.send()
            waiting = None
        if waiting is None:
            self.updates[key] = _Update(instance, list(dict.fromkeys(fields)), version_was)
        else:
            waiting.fields = list(dict.fromkeys([*waiting.fields, *fields]))

    def send(self, command: ClientCommand | None = None) -> bool:
        """Make the writes that wait and, with `command`, store the client's command id —
        in one statement on PostgreSQL, one after another on SQLite. False when the
        command's id was stored already (the writes made with it must not stand: the
        caller raises, and its atomic block rolls them back). Raises `RowChanged` when an
        update misses its row or the table's version it expects."""
        events, updates = self.events, list(self.updates.values())
        self.events, self.updates = [], {}
        if not uses_sql():
            return _send_orm(events, updates, command)
        if not events and not updates and command is None:
            return True
        return _send_sql(events, updates, command)


def _send_orm(
    events: list[GameEvent], updates: list[_Update], command: ClientCommand | None
) -> bool:
    for event in events:  # made when asked for: its time is the save's own
        event.save(force_insert=True)
    for update in updates:
        _update_orm(update)
    if command is None:
        return True
    # SQLite's transactions take the database's write lock as they begin (settings:
    # IMMEDIATE), so nothing stores the id between this look and the insert.
    key = {f: getattr(command, f) for f in _COMMAND_KEY}
    if ClientCommand.objects.filter(**key).exists():
        return False
    command.save(force_insert=True)
    return True


def _update_orm(update: _Update) -> None:
    instance = update.instance
    model = type(instance)
    fields = stored_fields(model, update.fields)
    stamp(instance, fields, adding=False)
    rows = model._default_manager.filter(pk=instance.pk)
    if update.version_was is not None:
        rows = rows.filter(version=update.version_was)
    if rows.update(**{f.attname: getattr(instance, f.attname) for f in fields}) != 1:
        raise RowChanged(f"{model.__name__} {instance.pk} changed under the transaction")


# The unique key a client's command id is stored once under (ClientCommand.Meta).
_COMMAND_KEY = ("user_id", "table_id", "client_id")


@functools.cache
def _event_fields() -> list[Any]:
    return [f for f in stored_fields(GameEvent) if not f.primary_key]


@functools.cache
def _insert_sql(model: type[Model]) -> tuple[str, tuple[Any, ...]]:
    fields = tuple(f for f in stored_fields(model) if not f.primary_key)
    columns = ", ".join(quoted(f.column) for f in fields)
    places = ", ".join("%s" for _f in fields)
    return f"INSERT INTO {table_name(model)} ({columns}) VALUES ({places})", fields


@functools.cache
def _update_sql(model: type[Model], names: tuple[str, ...], checked: bool) -> tuple[str, Any]:
    fields = stored_fields(model, names)
    assignments = ", ".join(f"{quoted(f.column)} = %s" for f in fields)
    where = f"{column(model, 'id')} = %s"
    if checked:
        where += f" AND {column(model, 'version')} = %s"
    return f"UPDATE {table_name(model)} SET {assignments} WHERE {where}", fields


@functools.cache
def _command_sql() -> tuple[str, tuple[Any, ...]]:
    insert, fields = _insert_sql(ClientCommand)
    target = ", ".join(quoted(ClientCommand._meta.get_field(name).column) for name in _COMMAND_KEY)
    # A duplicate id inserts nothing and returns no row: told apart without an error, so
    # no other write's failure can be taken for it.
    return (
        f"{insert} ON CONFLICT ({target}) DO NOTHING RETURNING {column(ClientCommand, 'id')}",
        fields,
    )


@functools.cache
def _writes_sql(shape: tuple[Any, ...]) -> str:
    """The statement that makes a transaction's waiting writes (`shape`: how many events,
    each update's model, fields and version check, whether a command id is stored): a
    data-modifying WITH, each write a part of its own, and a row of what each did —
    the events' keys, how many rows each update found, the command's key or NULL."""
    events, updates, with_command = shape
    parts, results = [], []
    insert, _fields = _insert_sql(GameEvent)
    for n in range(events):
        parts.append(f"e{n} AS ({insert} RETURNING {column(GameEvent, 'id')})")
        results.append(f"(SELECT {column(GameEvent, 'id')} FROM e{n})")
    for n, (model, names, checked) in enumerate(updates):
        update, _fields = _update_sql(model, names, checked)
        parts.append(f"u{n} AS ({update} RETURNING 1)")
        results.append(f"(SELECT count(*) FROM u{n})")
    if with_command:
        parts.append(f"c AS ({_command_sql()[0]})")
        results.append(f"(SELECT {column(ClientCommand, 'id')} FROM c)")
    return "WITH " + ",\n".join(parts) + "\nSELECT " + ", ".join(results)


def _send_sql(
    events: list[GameEvent], updates: list[_Update], command: ClientCommand | None
) -> bool:
    params: list[Any] = []
    _insert, event_fields = _insert_sql(GameEvent)
    for event in events:
        params += written(event, event_fields)
    shape_updates = []
    for update in updates:
        model = type(update.instance)
        checked = update.version_was is not None
        _update, fields = _update_sql(model, tuple(update.fields), checked)
        stamp(update.instance, fields, adding=False)
        params += [*written(update.instance, fields), update.instance.pk]
        if checked:
            params.append(update.version_was)
        shape_updates.append((model, tuple(update.fields), checked))
    if command is not None:
        _sql, command_fields = _command_sql()
        stamp(command, command_fields, adding=True)
        params += written(command, command_fields)
    sql = _writes_sql((len(events), tuple(shape_updates), command is not None))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    for event, key in zip(events, row, strict=False):
        event.pk = key
        event._state.adding = False
        event._state.db = connection.alias
    found = row[len(events) : len(events) + len(updates)]
    for update, count in zip(updates, found, strict=True):
        if count != 1:
            model = type(update.instance)
            raise RowChanged(f"{model.__name__} {update.instance.pk} changed under the transaction")
    if command is None:
        return True
    key = row[-1]
    if key is None:
        return False
    command.pk = key
    command._state.adding = False
    command._state.db = connection.alias
    return True


# --- the transaction's waiting writes ----------------------------------------------------

_waiting: contextvars.ContextVar[Writes | None] = contextvars.ContextVar("waiting", default=None)


@contextlib.contextmanager
def writes_together() -> Iterator[Writes]:
    """Inside an atomic block: the writes made with `later=True` until the block's end wait
    for `Writes.send` (the caller sends them before it leaves; leaving with an exception
    drops them, the atomic block rolling back what was made). Inside another such block:
    that block's writes."""
    outer = _waiting.get()
    if outer is not None:
        yield outer
        return
    writes = Writes()
    token = _waiting.set(writes)
    try:
        yield writes
    finally:
        _waiting.reset(token)


def send_waiting() -> None:
    """Make the writes that wait now: before a statement that reads their rows."""
    writes = _waiting.get()
    if writes is not None:
        writes.send()


def event_insert(event: GameEvent, *, later: bool = False) -> GameEvent:
    """Insert a game's event; `later`: wait for the transaction's other writes (its time
    set now, its key once sent)."""
    writes = _waiting.get() if later and uses_sql() else None
    if writes is None:
        writes = Writes()
        writes.insert_event(event)
        writes.send()
    else:
        writes.insert_event(event)
    return event


def row_update(
    instance: Model, fields: list[str], *, version_was: int | None = None, later: bool = False
) -> None:
    """`instance.save(update_fields=fields)` without the model's signals (none of the
    live path's models has receivers); `version_was`: only if the row's version is
    still that (else `RowChanged`). `later`: wait for the transaction's other writes."""
    writes = _waiting.get() if later and uses_sql() else None
    if writes is None:
        writes = Writes()
        writes.update(instance, fields, version_was)
        writes.send()
    else:
        writes.update(instance, fields, version_was)
