"""Statements compiled once (lib.prepared): the same rows, instances and writes as the
ORM's own, each run with its own values, on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import datetime
import threading

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Model, Q
from django.db.models.signals import post_save, pre_save
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Account, LedgerEntry, User
from lib.prepared import PreparedQuery, insert, update_fields
from play import locks, moves, presence, seating
from play.models import ClientCommand, Game, GameEvent, Presence
from play.selectors import PRESENCE_TTL_SECONDS, presence_cutoff
from tables import services
from tables.models import Table


def _table_with_game(make_user, name: str) -> tuple[Table, list]:
    users = [make_user() for _ in range(2)]
    table = services.table_create(
        variant="banker36", name=name, stake=10, entry_limit=100, created_by=make_user()
    )
    for user in users:
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=make_user(is_staff=True))
    return table, users


@pytest.mark.django_db(transaction=True)
def test_the_locked_table_and_game_equal_the_orms_own_read_and_need_no_query_more(
    make_user, settings
):
    settings.CLIENT_SEED_SECONDS = 0  # dealt at once, no client seeds asked
    first, _users = _table_with_game(make_user, "Первый")
    second, _users = _table_with_game(make_user, "Второй")
    for table in (first, second):  # the second run gets its own values, not the first's
        expected = Game.objects.select_related("table__created_by").get(
            table=table, status=Game.Status.PLAYING
        )
        with transaction.atomic():
            locked, game = locks.lock_table_and_game(table.pk)
            assert game is not None
            with CaptureQueriesContext(connection) as queries:
                assert game.pk == expected.pk
                assert game.state == expected.state  # JSON read back as the ORM reads it
                assert game.deadline == expected.deadline
                assert locked.name == table.name and locked.version == expected.table.version
                assert locked.created_by.username == expected.table.created_by.username
                assert game.table is locked
            assert queries.captured_queries == []


@pytest.mark.django_db(transaction=True)
def test_seats_read_with_presence_take_the_time_they_are_given(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 0
    table, users = _table_with_game(make_user, "Присутствие")
    presence.presence_join(table=table, user=users[0], channel_name="sock-0")
    seen = Presence.objects.get(channel_name="sock-0").seen_at
    with transaction.atomic():
        locks.lock_table_with_host(table.pk)
        seats = locks.read_seats(table)
    assert [s.player_id for s in seats] == [u.pk for u in users]
    assert [(s.present_now, s.present_aged) for s in seats] == [(True, False), (False, False)]
    assert all(s.table is table for s in seats)
    # The same statement, another cutoff: the row has now aged past it.
    later = seen + datetime.timedelta(seconds=PRESENCE_TTL_SECONDS + 1)
    with transaction.atomic():
        seats = locks._SEATS_WITH_PRESENCE.all(table_id=table.pk, cutoff=presence_cutoff(later))
    assert [(s.present_now, s.present_aged) for s in seats] == [(False, True), (False, False)]


@pytest.mark.django_db(transaction=True)
def test_a_prepared_query_is_built_once_per_thread_and_each_thread_gets_its_own_rows(
    make_user,
):
    builds = []

    def build(username: str):
        builds.append(threading.get_ident())
        return Account.objects.filter(owner__username=username).values_list(
            "owner__username", "balance"
        )

    query = PreparedQuery(build)
    alice, bob = make_user("alice"), make_user("bob")
    assert query.all(username="alice") == [("alice", 10_000)]
    assert query.all(username="bob") == [("bob", 10_000)]
    assert query.first(username="nobody") is None
    assert len(builds) == 2  # built twice, the twin to check its values (lib.prepared)
    found = []

    def in_another_thread():
        try:
            found.append(query.all(username=bob.username))
        finally:
            connection.close()  # this thread's own connection

    worker = threading.Thread(target=in_another_thread)
    worker.start()
    worker.join()
    assert found == [[("bob", 10_000)]]
    assert len(builds) == 4  # the worker's thread compiled its own, on its own connection
    assert alice.pk != bob.pk


@pytest.mark.django_db
def test_a_prepared_query_refuses_values_that_would_change_its_shape():
    by_name = PreparedQuery(lambda name: Table.objects.filter(name=name))
    with pytest.raises(TypeError):
        by_name.all(name=None)  # None would be IS NULL: another statement
    by_name.all(name="Стол")
    with pytest.raises(TypeError):
        by_name.all(name=5)  # a value of another kind than the one it was compiled with
    ignored = PreparedQuery(lambda name: Table.objects.all())
    with pytest.raises(ValueError):
        ignored.all(name="x")  # a value the query never uses is a mistake in the build
    with pytest.raises(TypeError):
        PreparedQuery(lambda version: Table.objects.filter(version=version)).all(version=True)
    with pytest.raises(TypeError):  # the ORM would read it in the current time zone
        PreparedQuery(lambda at: Table.objects.filter(created_at__lt=at)).all(
            at=datetime.datetime(2026, 1, 1, 12, 0)
        )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "build, value",
    [
        # Used through something worked out of it: that would be kept as a constant.
        (
            lambda v: Table.objects.filter(
                next_game_at__lte=v, next_game_at__gte=v - datetime.timedelta(hours=1)
            ),
            timezone.now(),
        ),
        # A lookup that rewrites its value (LIKE's wildcards escaped, "%" around it): sent
        # as given, "_" would match any letter. (PostgreSQL's iexact compares UPPER()s and
        # takes the value as it is.)
        pytest.param(
            lambda v: Table.objects.filter(name__iexact=v),
            "a_b",
            marks=pytest.mark.skipif(
                connection.vendor != "sqlite", reason="SQLite's iexact is a LIKE"
            ),
        ),
        (lambda v: Table.objects.filter(name__contains=v), "a_b"),
    ],
    ids=["worked-out", "iexact", "contains"],
)
def test_a_value_that_does_not_reach_the_parameters_as_given_is_refused(build, value):
    with pytest.raises(ValueError):
        PreparedQuery(build).all(v=value)


@pytest.mark.django_db
def test_a_value_that_changes_the_shape_of_the_query_is_refused():
    # The same value twice, once as a key: Django may drop a branch no key can match.
    query = PreparedQuery(lambda n: Table.objects.filter(Q(pk=n) | Q(version=n)))
    table = services.table_create(variant="classic", name="Ветви")
    found = query.all(n=table.pk)
    assert found == list(Table.objects.filter(Q(pk=table.pk) | Q(version=table.pk)))


@pytest.mark.django_db(transaction=True)
def test_a_locking_query_is_refused_outside_a_transaction_every_time(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 0
    table, _users = _table_with_game(make_user, "Замок")
    with transaction.atomic():
        locks.lock_table_with_host(table.pk)  # compiled here, inside a transaction
    with pytest.raises(TransactionManagementError):
        locks.lock_table_with_host(table.pk)


@pytest.mark.django_db
def test_update_fields_writes_the_chosen_fields_alone_and_refuses_a_missing_row():
    table = services.table_create(variant="classic", name="Запись")
    table.name = "Не сохранять"
    table.version = 41
    table.pending = {"number": 1, "seats": ["s1"]}
    update_fields(table, ["version", "pending"])
    fresh = Table.objects.get(pk=table.pk)
    assert (fresh.name, fresh.version) == ("Запись", 41)
    assert fresh.pending == {"number": 1, "seats": ["s1"]}
    update_fields(table, ["version", "version"])  # named twice: written once, as save() does
    update_fields(table, [])  # nothing to write: nothing done
    gone = Table(pk=table.pk + 1000, version=1)
    with pytest.raises(DatabaseError):
        update_fields(gone, ["version"])


@pytest.mark.django_db
def test_update_fields_keeps_auto_now(make_user):
    table = services.table_create(variant="classic", name="Часы")
    user = make_user()
    row = Presence.objects.create(table=table, user=user, channel_name="c-1")
    row.seen_at = timezone.now() - datetime.timedelta(days=1)
    update_fields(row, ["seen_at"])  # auto_now: the time of the save, as save() writes it
    assert timezone.now() - Presence.objects.get(pk=row.pk).seen_at < datetime.timedelta(minutes=1)


@pytest.mark.django_db
def test_insert_sets_the_key_and_auto_now_add_and_raises_the_orms_integrity_error(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Команды")
    command = insert(ClientCommand(user=user, table=table, client_id="a-1", outcome={"x": 1}))
    stored = ClientCommand.objects.get(pk=command.pk)
    assert stored.outcome == {"x": 1} and stored.created_at is not None
    assert command.created_at == stored.created_at
    with pytest.raises(IntegrityError), transaction.atomic():
        insert(ClientCommand(user=user, table=table, client_id="a-1", outcome={}))
    assert ClientCommand.objects.filter(client_id="a-1").count() == 1


# The models written through update_fields and insert, which send no save signals and
# call no save() of the model's own.
_WRITTEN_WITHOUT_SAVE = (Table, Game, GameEvent, ClientCommand, Account, LedgerEntry)


def test_no_model_written_without_save_has_a_save_receiver_or_a_save_of_its_own():
    for model in _WRITTEN_WITHOUT_SAVE:
        assert not pre_save.has_listeners(model), model
        assert not post_save.has_listeners(model), model
        if model is LedgerEntry:
            # Its save() only refuses to change an entry: insert() only adds them.
            continue
        assert model.save is Model.save, model


@pytest.mark.django_db
def test_insert_refuses_an_unsaved_related_object_as_save_does(make_user):
    table = services.table_create(variant="classic", name="Связи")
    ghost = User(username="призрак")  # never saved
    with pytest.raises(ValueError):
        insert(ClientCommand(user=ghost, table=table, client_id="x", outcome={}))


@pytest.mark.django_db
def test_get_raises_the_models_does_not_exist_as_the_orm_does():
    with transaction.atomic(), pytest.raises(Table.DoesNotExist):
        locks.lock_table_with_host(987_654)
