"""The live path's hot statements, compiled to SQL once and run again with new values.

Each move at a table runs the same few statements: the table and its game locked, the
seats read, the session checked, the event inserted, the game and the table saved, the
command stored. Building those statements (querysets cloned, filters resolved, SQL
compiled, `save` walking its fields and signals) cost Django more CPU on every move than
psycopg spent running them (docs/deployment.md, "Where an action's time goes"). A
statement's SQL depends on its shape, not on its values, so here it is built once per
thread and database connection and kept; each run puts that run's values in the places
of its parameters.

- `PreparedQuery` takes a function that builds a queryset from named values. It is
  called once with stand-in values (numbers, texts and times no real row holds), the
  queryset is compiled by the ORM itself (so `FOR UPDATE OF` on PostgreSQL and none on
  SQLite, joins, subqueries: all the ORM's own), and each stand-in's places among the
  parameters are noted. A run substitutes the real values and builds model instances (or
  `values_list` rows) as the queryset would. The values must be plain numbers, texts or
  aware times of the same type on every run, must not change the query's shape (no None,
  no lists), and must reach the parameters as they are given: the values go to the
  database without the preparation a lookup would give them, so the build function
  compares columns with them directly (`exact`, `lt`, `gte`…), not through something
  worked out of them or a lookup that rewrites them (`iexact`, `contains`). The query is
  compiled twice with different stand-ins, and what breaks these rules is refused then.
  A locking query (`select_for_update`) is refused outside a transaction, as the ORM
  refuses it.
- `update_fields` and `insert` write one row as `save(update_fields=…)` and
  `objects.create` do (unsaved related objects refused, each field's `pre_save` —
  `auto_now` and `auto_now_add` — and its database preparation, a failure marking the
  transaction for rollback), with the SQL built once per model and field list. They send
  no `pre_save`/`post_save` signals and call no `save()` of the model's own: used only for
  models with neither (tests/lib/test_prepared.py holds that).
- `joined_writes` and `read_together` spend fewer round trips on the same statements:
  inside `joined_writes`, the writes made `later` wait and go to the database together —
  ahead of the next prepared read, before any other statement, or at the end with the
  transaction's COMMIT — and `read_together` sends several reads at once, where the
  connection can carry several statements in one query (PostgreSQL through psycopg 3's
  client-side binding, Django's default). Each statement still sees every write made
  before it (docs/decisions.md, "A move's writes go together").
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, DataError, connections, router, transaction
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators
from django.db.transaction import TransactionManagementError

_stand_ins = itertools.count(1)

# The kinds of value a prepared query takes, and a stand-in of each that no row holds
# and no constant of a query equals.
_SCALARS = (int, str, datetime.datetime)


def _checked(value: Any) -> Any:
    """`value` if a prepared query may take it as it is (no preparation by a lookup)."""
    if isinstance(value, bool) or not isinstance(value, _SCALARS):
        raise TypeError(f"a prepared query takes numbers, texts and times, not {value!r}")
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        # The ORM would read a naive time in the current time zone; this passes it as is.
        raise TypeError(f"a prepared query takes aware times, not {value!r}")
    return value


def _stand_in(value: Any) -> Any:
    _checked(value)
    n = next(_stand_ins) % 100_000_000
    if isinstance(value, int):  # positive and within a 32-bit integer column's range
        return 2_000_000_000 + n
    if isinstance(value, str):
        # With LIKE's wildcards: a lookup that escapes its value (iexact, contains…) turns
        # it into another text, which the twin compilation then refuses (see _Plan).
        return f"_prepared%stand-in-{n}"
    return datetime.datetime(1901, 1, 1, 0, 0, n % 60, n % 1_000_000, tzinfo=datetime.UTC)


def _kind(value: Any) -> type:
    return next((kind for kind in _SCALARS if isinstance(value, kind)), type(value))


class _Plan:
    """One query's SQL on one connection, where each named value goes in its parameters,
    and how its rows become results."""

    def __init__(self, build: Callable[..., QuerySet[Any]], values: dict[str, Any]) -> None:
        # Compiled twice, with two sets of stand-ins: the SQL and every parameter that is
        # not a stand-in must come out the same. A value the query uses only through
        # something worked out of it (`at - timedelta(…)`), or that changes the query's
        # shape (a branch of an OR dropped), would otherwise be kept as a constant.
        first = {name: _stand_in(value) for name, value in values.items()}
        second = {name: _stand_in(value) for name, value in values.items()}
        queryset = build(**first)
        twin = build(**second)
        self.using = queryset.db
        self.connection = connections[self.using]
        self.locks = bool(queryset.query.select_for_update)
        compiler = queryset.query.get_compiler(using=self.using)
        sql, params = compiler.as_sql()
        twin_sql, twin_params = twin.query.get_compiler(using=self.using).as_sql()
        self.slots = self._slots(params, first)
        if twin_sql != sql or self._slots(twin_params, second) != self.slots:
            raise ValueError(
                "a prepared query's values must reach its parameters as they are given:"
                " pass what the query compares with, not what it is worked out from"
            )
        missing = set(values) - {name for kind, name in self.slots if kind != "constant"}
        if missing:
            raise ValueError(f"the prepared query does not take {sorted(missing)} as parameters")
        self.sql = sql
        self.compiler = compiler
        self.fields = [s[0] for s in compiler.select[0 : compiler.col_count]]
        self.converters = compiler.get_converters(self.fields)
        self.trim = compiler.col_count if compiler.has_extra_select else None
        self.iterable = queryset._iterable_class
        if self.iterable is ModelIterable:
            klass_info = compiler.klass_info
            self.model = klass_info["model"]
            select_fields = klass_info["select_fields"]
            self.model_slice = slice(select_fields[0], select_fields[-1] + 1)
            self.init_list = [f[0].target.attname for f in compiler.select[self.model_slice]]
            self.related = get_related_populators(klass_info, compiler.select, self.using)
            self.annotations = dict(compiler.annotation_col_map or {})
        elif self.iterable is ValuesListIterable:
            query = queryset.query
            names = [*query.extra_select, *query.values_select, *query.annotation_select]
            wanted = list(queryset._fields or names)
            self.order = None if wanted == names else [names.index(n) for n in wanted]
        else:
            raise TypeError("a prepared query yields model instances or values_list rows")

    def _slots(self, params: Sequence[Any], stand_ins: dict[str, Any]) -> list[tuple[str, Any]]:
        """Each parameter: ("value", name), ("time", name) for a time the backend adapts
        (SQLite passes times as text), or ("constant", value)."""
        adapt = self.connection.ops.adapt_datetimefield_value
        slots: list[tuple[str, Any]] = []
        for param in params:
            slot: tuple[str, Any] = ("constant", param)
            for name, stand_in in stand_ins.items():
                if isinstance(param, _kind(stand_in)) and param == stand_in:
                    slot = ("value", name)
                elif isinstance(stand_in, datetime.datetime) and param == adapt(stand_in):
                    slot = ("time", name)
                else:
                    continue
                break
            slots.append(slot)
        return slots

    def params(self, values: dict[str, Any]) -> list[Any]:
        adapt = self.connection.ops.adapt_datetimefield_value
        out = []
        for kind, what in self.slots:
            if kind == "constant":
                out.append(what)
            elif kind == "value":
                out.append(values[what])
            else:
                out.append(adapt(values[what]))
        return out

    def check_transaction(self) -> None:
        if self.locks and self.connection.get_autocommit():
            # As the ORM refuses it when it compiles (here compiled once, maybe inside one).
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )

    def run(self, values: dict[str, Any]) -> list[Any]:
        self.check_transaction()
        with self.connection.cursor() as cursor:
            _execute(self.connection, cursor, self.sql, self.params(values))
            return self.results(cursor.fetchall())

    def results(self, rows: Any) -> list[Any]:
        """The rows of one run as the queryset would yield them."""
        if self.trim is not None:
            rows = [row[: self.trim] for row in rows]
        if self.converters:
            rows = self.compiler.apply_converters(rows, self.converters)
        if self.iterable is ValuesListIterable:
            if self.order is None:
                return [tuple(row) for row in rows]
            return [tuple(row[i] for i in self.order) for row in rows]
        results = []
        for row in rows:
            obj = self.model.from_db(self.using, self.init_list, row[self.model_slice])
            for populator in self.related:
                populator.populate(row, obj)
            for name, position in self.annotations.items():
                setattr(obj, name, row[position])
            results.append(obj)
        return results


class PreparedQuery:
    """A queryset built by `build(**values)`, compiled once per thread and connection
    (see the module's docstring for what `build` may do with its values)."""

    def __init__(self, build: Callable[..., QuerySet[Any]]) -> None:
        self._build = build
        self._local = threading.local()

    def _plan(self, values: dict[str, Any]) -> _Plan:
        plan: _Plan | None = getattr(self._local, "plan", None)
        types = {name: _kind(_checked(value)) for name, value in values.items()}
        if plan is not None:
            if getattr(self._local, "types", None) != types:
                raise TypeError(f"a prepared query's values changed type: {types}")
            if plan.connection is connections[plan.using]:
                return plan
        plan = _Plan(self._build, values)
        self._local.plan = plan
        self._local.types = types
        return plan

    def all(self, **values: Any) -> list[Any]:
        return self._plan(values).run(values)

    def first(self, **values: Any) -> Any:
        """The first result, or None (the build function orders and slices the query)."""
        found = self.all(**values)
        return found[0] if found else None

    def get(self, **values: Any) -> Any:
        """The first model instance, or the model's DoesNotExist, as `.get()` raises it."""
        plan = self._plan(values)
        found = plan.run(values)
        if not found:
            raise plan.model.DoesNotExist(
                f"{plan.model._meta.object_name} matching query does not exist."
            )
        return found[0]


def read_together(*reads: tuple[PreparedQuery, dict[str, Any]]) -> list[list[Any]]:
    """The results of several prepared queries, sent in one round trip where the
    connection can carry several statements (`sends_several`), else one after another.
    PostgreSQL runs them in order, each with a snapshot of its own taken when it starts:
    a read that follows a lock sees what was committed until the lock was granted, as it
    would if it were sent on its own."""
    plans = [query._plan(values) for query, values in reads]
    connection = plans[0].connection
    if any(plan.connection is not connection for plan in plans) or not sends_several(connection):
        return [plan.run(values) for plan, (_query, values) in zip(plans, reads, strict=True)]
    for plan in plans:
        plan.check_transaction()
    sql = "; ".join(plan.sql for plan in plans)
    params = [
        param
        for plan, (_query, values) in zip(plans, reads, strict=True)
        for param in plan.params(values)
    ]
    found = []
    with connection.cursor() as cursor:
        _execute(connection, cursor, sql, params)
        for number, plan in enumerate(plans):
            if number:
                cursor.nextset()
            found.append(plan.results(cursor.fetchall()))
    return found


def _execute(connection: Any, cursor: Any, sql: str, params: list[Any]) -> None:
    """A prepared read, with the writes waiting on the connection (`joined_writes`) sent
    ahead of it in the same round trip: a read may fail only as the whole transaction
    does, so a failure of theirs raised from it is not taken for its own."""
    joined = _joined(connection)
    if joined is None:
        cursor.execute(sql, params)
    else:
        joined.execute_after(cursor, sql, params)


def sends_several(connection: Any) -> bool:
    """Whether one execute on `connection` may carry several statements with their values:
    psycopg 3's client-side binding cursor, Django's default on PostgreSQL, puts the values
    into the text and sends it as one simple query (each statement's result then read in
    turn with `nextset`). SQLite's driver runs one statement per execute."""
    return (
        connection.vendor == "postgresql"
        and connection.Database.__name__ == "psycopg"  # not psycopg2
        and not connection.settings_dict.get("OPTIONS", {}).get("server_side_binding")
    )


# --- writes ----------------------------------------------------------------------------

_writes = threading.local()


def _write_sql(key: tuple[Any, ...], build: Callable[[], str]) -> str:
    cache: dict[tuple[Any, ...], str] | None = getattr(_writes, "sql", None)
    if cache is None:
        cache = _writes.sql = {}
    sql = cache.get(key)
    if sql is None:
        sql = cache[key] = build()
    return sql


def _prepared(field: Any, instance: Model, connection: Any, *, adding: bool) -> Any:
    """A field's value as `save` writes it: its `pre_save` (auto_now, auto_now_add), then
    its preparation for the database (JSON adapted, SQLite's times as text)."""
    return field.get_db_prep_save(field.pre_save(instance, adding), connection)


def update_fields(instance: Model, fields: Sequence[str], *, later: bool = False) -> None:
    """`instance.save(update_fields=fields)`, without the signals (see the module).
    `later`: inside `joined_writes`, the statement waits to go with the transaction's
    other writes (its row must be one the transaction has locked, so that it is there)."""
    model = type(instance)
    using = router.db_for_write(model, instance=instance)
    connection = connections[using]
    meta = model._meta
    fields = list(dict.fromkeys(fields))  # a column named twice: once, as save() does
    if not fields:
        return
    instance._prepare_related_fields_for_save(operation_name="save", fields=fields)
    chosen = [meta.get_field(name) for name in fields]
    qn = connection.ops.quote_name

    def build() -> str:
        columns = ", ".join(f"{qn(field.column)} = %s" for field in chosen)
        return f"UPDATE {qn(meta.db_table)} SET {columns} WHERE {qn(meta.pk.column)} = %s"

    params = [_prepared(field, instance, connection, adding=False) for field in chosen]
    params.append(meta.pk.get_db_prep_value(instance.pk, connection))
    joined = _joined(connection) if later else None
    if joined is not None:
        # A row the update misses fails the statement itself, so that the COMMIT sent
        # after it (JoinedWrites.send) is not run: one divided by the rows it changed.
        sql = _write_sql(
            ("update checked", model, tuple(fields), connection.vendor),
            lambda: f"WITH changed AS ({build()} RETURNING 1) SELECT 1 / COUNT(*) FROM changed",
        )
        joined.wait(sql, params, _nothing)
        instance._state.adding = False
        instance._state.db = using
        return
    sql = _write_sql(("update", model, tuple(fields), connection.vendor), build)
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount == 0:
            raise DatabaseError("Save with update_fields did not affect any rows.")
    instance._state.adding = False
    instance._state.db = using


def insert(instance: Model, *, later: bool = False) -> Model:
    """`Model.objects.create(...)` of an instance built with its values (its primary key
    not set), without the signals (see the module). Returns the instance, saved.
    `later`: inside `joined_writes`, the statement waits to go with the transaction's
    other writes, and the instance has its key once they are sent."""
    model = type(instance)
    using = router.db_for_write(model, instance=instance)
    connection = connections[using]
    meta = model._meta
    if meta.parents or (not meta.pk.auto_created and not meta.pk.db_returning):
        raise TypeError(f"insert() writes models with an automatic key of their own: {model}")
    if instance.pk is not None:
        raise ValueError("insert() makes a new row: the instance must have no key yet")
    instance._prepare_related_fields_for_save(operation_name="save")
    fields = [f for f in meta.concrete_fields if f is not meta.pk]
    qn = connection.ops.quote_name
    returning = connection.features.can_return_columns_from_insert

    def build() -> str:
        columns = ", ".join(qn(field.column) for field in fields)
        places = ", ".join("%s" for _field in fields)
        sql = f"INSERT INTO {qn(meta.db_table)} ({columns}) VALUES ({places})"
        if returning:
            sql += f" RETURNING {qn(meta.db_table)}.{qn(meta.pk.column)}"
        return sql

    sql = _write_sql(("insert", model, connection.vendor), build)
    params = [_prepared(field, instance, connection, adding=True) for field in fields]
    joined = _joined(connection) if later and returning else None
    if joined is not None:

        def keyed(cursor: Any) -> None:
            instance.pk = cursor.fetchone()[0]

        joined.wait(sql, params, keyed)
        instance._state.adding = False
        instance._state.db = using
        return instance
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if returning:
            pk = cursor.fetchone()[0]
        else:  # pragma: no cover - both supported databases return the key
            pk = connection.ops.last_insert_id(cursor, meta.db_table, meta.pk.column)
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = using
    return instance


# --- writes sent together ------------------------------------------------------------------


def _nothing(cursor: Any) -> None:
    pass


class JoinedWriteFailed(DatabaseError):
    """Writes that waited (`joined_writes`) failed when another statement sent them ahead
    of itself: raised from that statement in place of their own error (chained to it), so
    that code catching that statement's errors — an `IntegrityError` around a savepoint,
    say — does not take it for its own."""


class JoinedWrites:
    """The writes of one transaction made with `later=True`, waiting to be sent in one
    round trip (`joined_writes`). Any other statement on the connection sends them first,
    in a round trip of their own, so that every statement sees every write made before
    it, as if each had been sent when it was made: only the round trips are fewer.

    Every write that waits was made after the last statement sent, and so inside the
    innermost savepoint (its SAVEPOINT was such a statement): a rollback to that savepoint
    drops them unsent, and a failure of theirs sent before another statement is that
    statement's, for the atomic blocks around it — a savepoint's release that fails rolls
    back to the savepoint, as when a write inside it fails."""

    def __init__(self, connection: Any, *, active: bool) -> None:
        self.connection = connection
        self.active = active
        self.waiting: list[tuple[str, list[Any], Callable[[Any], None]]] = []
        self.committed = False
        self._sending = False

    def wait(self, sql: str, params: list[Any], done: Callable[[Any], None]) -> None:
        self._refuse_after_commit()
        self.waiting.append((sql, params, done))

    def _refuse_after_commit(self) -> None:
        if self.committed:
            # A statement now would begin a transaction of its own, which the atomic
            # block's exit would commit apart from the one it belongs to.
            raise TransactionManagementError(
                "The transaction was committed with its writes: nothing may follow in it."
            )

    def before_statement(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        """Django's execute wrapper: what waits goes before any other statement."""
        if not self._sending:
            self._refuse_after_commit()
            if self.waiting and sql.startswith("ROLLBACK TO SAVEPOINT"):
                self.waiting = []  # made inside the savepoint rolled back: never sent
            elif self.waiting:
                with self.connection.cursor() as cursor:
                    self.execute_after(cursor, "", [], ahead=True)
        return execute(sql, params, many, context)

    def send(self, *, commit: bool = False) -> bool:
        """Send what waits, in one round trip. `commit`: end it with the transaction's
        COMMIT when this is the outermost atomic block and nothing marked it for rollback
        — psycopg then skips the COMMIT that the block's exit asks for, the transaction
        being over: the caller must leave the block at once (a statement after it is
        refused). Returns whether it committed (False: nothing waited, or the block is not
        the outermost; the block's exit commits as usual)."""
        self._refuse_after_commit()
        if not self.waiting:
            return False
        connection = self.connection
        commit = (
            commit
            and len(connection.atomic_blocks) == 1
            and connection.commit_on_exit
            and not connection.needs_rollback
        )
        with connection.cursor() as cursor:
            self.execute_after(cursor, "COMMIT" if commit else "", [])
        self.committed = commit
        return commit

    def execute_after(
        self, cursor: Any, sql: str, params: list[Any], *, ahead: bool = False
    ) -> None:
        """Run `sql` on `cursor` with what waits sent before it, in the same round trip:
        the cursor is left at `sql`'s result. A failure marks the transaction for
        rollback, as a write's own does (which statement failed is not told apart).
        `ahead`: sent ahead of another statement (`before_statement`): a failure is
        raised as `JoinedWriteFailed` and marks nothing (the statement's atomic blocks
        deal with it)."""
        waiting, self.waiting = self.waiting, []
        if not waiting:
            cursor.execute(sql, params)
            return
        text = "; ".join(
            [*(statement for statement, _params, _done in waiting), *([sql] if sql else [])]
        )
        values = [param for _sql, each, _done in waiting for param in each]
        self._sending = True
        try:
            with (
                contextlib.nullcontext()
                if ahead
                else transaction.mark_for_rollback_on_error(self.connection.alias)
            ):
                try:
                    cursor.execute(text, [*values, *params])
                except DatabaseError as error:
                    if isinstance(error, DataError) and _division_by_zero(error):
                        failure = DatabaseError("Save with update_fields did not affect any rows.")
                    elif ahead:
                        failure = JoinedWriteFailed(f"writes sent together failed: {error}")
                    else:
                        raise
                    raise failure from error
                for _sql, _params, done in waiting:
                    done(cursor)
                    cursor.nextset()
        finally:
            self._sending = False


def send_joined(using: str = DEFAULT_DB_ALIAS) -> None:
    """Send the writes waiting on the connection now (inside `joined_writes`), so that a
    failure of theirs is raised here: in a savepoint that catches it (a ledger entry's
    key used already), not from the savepoint's release."""
    joined = _joined(connections[using])
    if joined is not None:
        joined.send()


def _division_by_zero(error: DataError) -> bool:
    return getattr(getattr(error.__cause__, "diag", None), "sqlstate", None) == "22012"


def _joined(connection: Any) -> JoinedWrites | None:
    joined: JoinedWrites | None = getattr(connection, "_joined_writes", None)
    return joined if joined is not None and joined.active else None


@contextlib.contextmanager
def joined_writes(using: str = DEFAULT_DB_ALIAS) -> Iterator[JoinedWrites]:
    """Inside an atomic block: the writes made with `later=True` until the block's end wait
    and are sent together, in one round trip, before the next other statement or at the
    end (`JoinedWrites.send`, with the COMMIT if the caller asks). Where the connection
    cannot carry several statements (`sends_several`: SQLite), each is sent when made.
    Leaving with an exception, or with the transaction marked for rollback, drops what
    waits: the atomic block around rolls back what was sent."""
    connection = connections[using]
    outer: JoinedWrites | None = getattr(connection, "_joined_writes", None)
    if outer is not None:
        yield outer
        return
    if not connection.in_atomic_block:
        raise TransactionManagementError("joined_writes() is for inside an atomic block.")
    joined = JoinedWrites(connection, active=sends_several(connection))
    connection._joined_writes = joined
    try:
        with connection.execute_wrapper(joined.before_statement):
            yield joined
            if not connection.needs_rollback and not joined.committed:
                joined.send()
    finally:
        joined.waiting = []
        connection._joined_writes = None
