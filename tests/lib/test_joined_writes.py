"""Writes sent together (lib.prepared.joined_writes, read_together): on PostgreSQL a
transaction's writes made `later` go to the database in one round trip, with its COMMIT
when asked; every other statement still sees every write made before it; a failure of
any of them rolls the whole transaction back. On SQLite each is sent when it is made."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts import services as accounts
from accounts.models import LedgerEntry
from lib.prepared import (
    JoinedWriteFailed,
    insert,
    joined_writes,
    read_together,
    sends_several,
    update_fields,
)
from play import commands, locks
from play.models import ClientCommand
from tables import services
from tables.models import Table


def _several() -> bool:
    return sends_several(connection)


def _sent(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries]


@pytest.mark.django_db(transaction=True)
def test_writes_made_later_go_together_with_the_commit_and_are_all_there_after(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Вместе")
    with (
        CaptureQueriesContext(connection) as queries,
        transaction.atomic(),
        joined_writes() as joined,
    ):
        table.version = 7
        update_fields(table, ["version"], later=True)
        command = insert(
            ClientCommand(user=user, table=table, client_id="j-1", outcome={"a": 1}),
            later=True,
        )
        committed = joined.send(commit=True)
    sent = _sent(queries)
    if _several():
        assert committed
        # One round trip: the update, the insert and the COMMIT (psycopg then skips the
        # block's own COMMIT, which Django still logs).
        writes = [q for q in sent if "tables_table" in q or "tables_clientcommand" in q]
        assert len(writes) == 1 and writes[0].endswith("; COMMIT"), sent
    else:
        assert not committed
        assert sum("tables_table" in q or "tables_clientcommand" in q for q in sent) == 2
    assert command.pk is not None  # its key read back from the round trip
    assert Table.objects.get(pk=table.pk).version == 7
    assert ClientCommand.objects.get(pk=command.pk).outcome == {"a": 1}


@pytest.mark.django_db(transaction=True)
def test_any_other_statement_sees_the_writes_made_before_it(make_user):
    table = services.table_create(variant="classic", name="Видно")
    with transaction.atomic(), joined_writes():
        table.version = 11
        update_fields(table, ["version"], later=True)
        # An ORM read (not prepared): what waits is sent first, on its own.
        assert Table.objects.values_list("version", flat=True).get(pk=table.pk) == 11
        table.version = 12
        update_fields(table, ["version"], later=True)
        # A prepared read carries what waits ahead of it, in its own round trip.
        with CaptureQueriesContext(connection) as queries:
            assert locks.lock_table_with_host(table.pk).version == 12
        if _several():
            assert len(queries.captured_queries) == 1
            assert queries.captured_queries[0]["sql"].startswith("WITH changed AS (UPDATE")
    assert Table.objects.get(pk=table.pk).version == 12


@pytest.mark.django_db(transaction=True)
def test_an_update_that_misses_its_row_fails_and_nothing_of_the_transaction_stays(
    make_user,
):
    user = make_user()
    table = services.table_create(variant="classic", name="Мимо")
    gone = Table(pk=table.pk + 1000, version=3)
    with pytest.raises(DatabaseError), transaction.atomic(), joined_writes() as joined:
        insert(ClientCommand(user=user, table=table, client_id="m-1", outcome={}), later=True)
        update_fields(gone, ["version"], later=True)
        joined.send(commit=True)  # the COMMIT after the missed row is not run
    assert not ClientCommand.objects.filter(client_id="m-1").exists()


@pytest.mark.django_db(transaction=True)
def test_leaving_with_an_exception_drops_what_waits(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Отмена")
    with pytest.raises(RuntimeError), transaction.atomic(), joined_writes():
        insert(ClientCommand(user=user, table=table, client_id="x-1", outcome={}), later=True)
        raise RuntimeError("refused")
    assert not ClientCommand.objects.filter(client_id="x-1").exists()
    # The connection is clean again: nothing left waiting for the next transaction.
    with transaction.atomic():
        insert(ClientCommand(user=user, table=table, client_id="x-2", outcome={}))
    assert ClientCommand.objects.filter(client_id="x-2").count() == 1


@pytest.mark.django_db(transaction=True)
def test_joined_writes_is_for_inside_a_transaction():
    with pytest.raises(transaction.TransactionManagementError), joined_writes():
        pass


@pytest.mark.django_db(transaction=True)
def test_a_replayed_transfer_inside_joined_writes_moves_nothing_and_the_rest_commits(
    make_user,
):
    """A ledger entry's key used already is caught in the transfer's savepoint, even with
    the entry sent together with its balances: the first entry is the answer."""
    player = make_user()
    wallet = accounts.wallet_for(player)
    bank = accounts.grants_account()
    before = wallet.balance
    with transaction.atomic(), joined_writes():
        first = accounts.chips_transfer(
            source=bank, destination=wallet, amount=5, reason="admin_grant", idempotency_key="k-1"
        )
        again = accounts.chips_transfer(
            source=bank, destination=wallet, amount=5, reason="admin_grant", idempotency_key="k-1"
        )
        assert again.pk == first.pk
    assert LedgerEntry.objects.filter(idempotency_key="k-1").count() == 1
    wallet.refresh_from_db()
    assert wallet.balance == before + 5


@pytest.mark.django_db(transaction=True)
def test_a_command_id_stored_twice_is_a_repeat_and_another_write_failing_is_not(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Повтор")

    def run() -> dict:
        return {"version": 1}

    first = commands.command_run(user=user, table=table, client_id="c-1", run=run)
    assert first == {"version": 1}
    again = commands.command_run(user=user, table=table, client_id="c-1", run=run)
    assert again == {"version": 1, "repeat": True}

    def breaks() -> dict:
        # A write of the command's own that fails in the same round trip as the id.
        ghost = Table(pk=table.pk + 1000, version=1)
        update_fields(ghost, ["version"], later=True)
        return {"version": 2}

    with pytest.raises(DatabaseError):
        commands.command_run(user=user, table=table, client_id="c-2", run=breaks)
    assert not ClientCommand.objects.filter(client_id="c-2").exists()


@pytest.mark.django_db(transaction=True)
def test_reads_together_equal_the_reads_apart(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 0
    table = services.table_create(variant="classic", name="Вдвоём")
    other = services.table_create(variant="classic", name="Втроём")
    with transaction.atomic():
        with CaptureQueriesContext(connection) as queries:
            found = read_together(
                (locks._TABLE_WITH_HOST, {"table_id": table.pk}),
                (locks._TABLE_WITH_HOST, {"table_id": other.pk}),
            )
        assert [[t.name for t in rows] for rows in found] == [["Вдвоём"], ["Втроём"]]
        assert len(queries.captured_queries) == (1 if _several() else 2)


def test_integrity_errors_are_told_apart_by_their_constraint():
    class Diagnosis:
        constraint_name = "tables_gameevent_game_id_version_uniq"

    class Cause(Exception):
        diag = Diagnosis()

    other = IntegrityError("duplicate")
    other.__cause__ = Cause()
    assert not commands._is_this_command(other)
    Diagnosis.constraint_name = "client_command_once"
    assert commands._is_this_command(other)


@pytest.mark.django_db(transaction=True)
def test_a_savepoint_rolled_back_drops_its_waiting_writes_unsent(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Откат")
    with transaction.atomic(), joined_writes():
        insert(ClientCommand(user=user, table=table, client_id="kept", outcome={}), later=True)
        with CaptureQueriesContext(connection) as queries:
            try:
                with transaction.atomic():
                    insert(
                        ClientCommand(user=user, table=table, client_id="dropped", outcome={}),
                        later=True,
                    )
                    raise RuntimeError("refused")
            except RuntimeError:
                pass
        sent = _sent(queries)
        if _several():
            # The outer write went before the SAVEPOINT; the inner one was never sent.
            assert not any("dropped" in q for q in sent), sent
    assert sorted(ClientCommand.objects.values_list("client_id", flat=True)) == ["kept"]


@pytest.mark.django_db(transaction=True)
def test_writes_failing_at_a_savepoints_release_roll_back_to_it_and_the_rest_commits(
    make_user,
):
    """A write inside a savepoint that fails when the savepoint's release sends it rolls
    back to that savepoint, as a write failing inside it would: the transaction goes on."""
    user = make_user()
    table = services.table_create(variant="classic", name="Выпуск")
    with transaction.atomic(), joined_writes():
        insert(ClientCommand(user=user, table=table, client_id="one", outcome={}), later=True)
        with pytest.raises(DatabaseError), transaction.atomic():
            # The same id again: the unique key refuses it when it is sent.
            insert(ClientCommand(user=user, table=table, client_id="one", outcome={}), later=True)
        assert not connection.needs_rollback
        insert(ClientCommand(user=user, table=table, client_id="two", outcome={}), later=True)
    ids = sorted(ClientCommand.objects.values_list("client_id", flat=True))
    assert ids == ["one", "two"]


@pytest.mark.django_db(transaction=True)
def test_writes_failing_ahead_of_another_statement_are_not_its_integrity_error(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Чужая")
    insert(ClientCommand(user=user, table=table, client_id="taken", outcome={}))
    with pytest.raises(DatabaseError) as failed, transaction.atomic(), joined_writes():
        insert(ClientCommand(user=user, table=table, client_id="taken", outcome={}), later=True)
        Table.objects.filter(pk=table.pk).exists()  # another statement: sends them first
    if _several():
        assert isinstance(failed.value, JoinedWriteFailed)
        assert not isinstance(failed.value, IntegrityError)
        assert isinstance(failed.value.__cause__, IntegrityError)
    else:
        assert isinstance(failed.value, IntegrityError)  # sent when made, as before


@pytest.mark.django_db(transaction=True)
def test_nothing_may_follow_the_commit_sent_with_the_writes(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="После")
    if not _several():
        pytest.skip("SQLite sends each write when it is made: there is no joined COMMIT")
    with transaction.atomic(), joined_writes() as joined:
        insert(ClientCommand(user=user, table=table, client_id="c", outcome={}), later=True)
        assert joined.send(commit=True)
        with pytest.raises(transaction.TransactionManagementError):
            Table.objects.filter(pk=table.pk).exists()
        with pytest.raises(transaction.TransactionManagementError):
            insert(ClientCommand(user=user, table=table, client_id="d", outcome={}), later=True)
    assert list(ClientCommand.objects.values_list("client_id", flat=True)) == ["c"]
