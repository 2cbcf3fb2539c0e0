"""Live play's store (play.db.store) and the ledger's (accounts.ledger): the same rows,
instances and answers as the ORM's own, on SQLite and on PostgreSQL alike; a move's
writes made together, a stale version, a missing row and a duplicate command id each
told apart without reading an error's text."""

from __future__ import annotations

import datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services as accounts
from accounts.models import Account, LedgerEntry
from play.db import locks, seat_reads, store
from play.db.selectors import PRESENCE_TTL_SECONDS, presence_cutoff
from play.models import ClientCommand, Game, GameEvent, Presence
from play.services import commands, moves, presence, seating
from play.services.errors import PlayError
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
    for table in (first, second):
        expected = Game.objects.select_related("table__created_by").get(
            table=table, status=Game.Status.PLAYING
        )
        names = [s.player.username for s in expected.table.seats.order_by("number")]
        with transaction.atomic():
            locked, game = locks.lock_table_and_game(table.pk)
            assert game is not None
            with CaptureQueriesContext(connection) as queries:
                assert game.pk == expected.pk
                assert game.state == expected.state  # its JSON read back as the ORM reads it
                assert game.players == expected.players
                assert game.deadline == expected.deadline
                assert game.paused == expected.paused
                assert locked.name == table.name and locked.version == expected.table.version
                assert locked.pending == expected.table.pending
                assert locked.created_by.username == expected.table.created_by.username
                assert game.table is locked
                seats = seat_reads.table_seats(locked)
                assert [s.player.username for s in seats] == names
            assert queries.captured_queries == []


@pytest.mark.django_db(transaction=True)
def test_a_table_with_no_game_is_locked_alone_and_has_no_game(make_user):
    table = services.table_create(variant="classic", name="Пусто", created_by=make_user())
    with transaction.atomic():
        locked, game = locks.lock_table_and_game(table.pk)
    assert game is None and locked.pk == table.pk
    assert locked.created_by.username == table.created_by.username


@pytest.mark.django_db(transaction=True)
def test_seats_read_with_presence_take_the_time_they_are_given(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 0
    table, users = _table_with_game(make_user, "Присутствие")
    presence.presence_join(table=table, user=users[0], channel_name="sock-0")
    seen = Presence.objects.get(channel_name="sock-0").seen_at
    with transaction.atomic():
        locks.lock_table_with_host(table.pk)
        seats = seat_reads.read_seats(table)
    assert [s.player_id for s in seats] == [u.pk for u in users]
    assert [(s.present_now, s.present_aged) for s in seats] == [(True, False), (False, False)]
    assert all(s.table is table for s in seats)
    later = seen + datetime.timedelta(seconds=PRESENCE_TTL_SECONDS + 1)
    seats = store.seats_read(table.pk, presence_cutoff(later))
    assert [(s.present_now, s.present_aged) for s in seats] == [(False, True), (False, False)]


@pytest.mark.django_db(transaction=True)
def test_a_moves_writes_and_its_command_id_are_one_statement_on_postgresql(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Вместе")
    with (
        CaptureQueriesContext(connection) as queries,
        transaction.atomic(),
        store.writes_together() as writes,
    ):
        locked = locks.lock_table_with_host(table.pk)
        locked.version += 1
        store.row_update(locked, ["version"], version_was=locked.version - 1, later=True)
        command = ClientCommand(user=user, table=locked, client_id="w-1", outcome={"a": 1})
        assert writes.send(command)
    sent = [q["sql"].lstrip() for q in queries.captured_queries]
    writes_sent = [q for q in sent if not q.startswith(("SELECT", "BEGIN", "COMMIT"))]
    if store.uses_sql():
        assert len(writes_sent) == 1 and writes_sent[0].startswith("WITH"), writes_sent
    assert command.pk is not None
    assert Table.objects.get(pk=table.pk).version == table.version + 1
    assert ClientCommand.objects.get(pk=command.pk).outcome == {"a": 1}


@pytest.mark.django_db(transaction=True)
def test_a_stale_version_raises_and_rolls_the_whole_transaction_back(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Устарело")
    with (
        pytest.raises(store.RowChanged),
        transaction.atomic(),
        store.writes_together() as writes,
    ):
        locked = locks.lock_table_with_host(table.pk)
        Table.objects.filter(pk=table.pk).update(version=41)  # moved on meanwhile
        locked.version += 1
        store.row_update(locked, ["version"], version_was=locked.version - 1, later=True)
        writes.send(ClientCommand(user=user, table=locked, client_id="s-1", outcome={}))
    assert Table.objects.get(pk=table.pk).version == table.version
    assert not ClientCommand.objects.filter(client_id="s-1").exists()


@pytest.mark.django_db(transaction=True)
def test_an_update_that_misses_its_row_raises_row_changed(make_user):
    table = services.table_create(variant="classic", name="Нет строки")
    ghost = Table(pk=table.pk + 1000, version=1)
    with pytest.raises(store.RowChanged), transaction.atomic():
        store.row_update(ghost, ["version"], version_was=0)


@pytest.mark.django_db(transaction=True)
def test_a_command_id_stored_twice_is_a_repeat_and_its_other_writes_roll_back(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Повтор")

    def run() -> dict:
        locked = locks.lock_table_with_host(table.pk)
        locked.version += 1
        store.row_update(locked, ["version"], version_was=locked.version - 1, later=True)
        return {"version": locked.version}

    first = commands.command_run(user=user, table=table, client_id="c-1", run=run)
    again = commands.command_run(user=user, table=table, client_id="c-1", run=run)
    assert again == {**first, "repeat": True}
    # The second run's version moved with the id's insert, and rolled back with it.
    assert Table.objects.get(pk=table.pk).version == first["version"]
    assert ClientCommand.objects.filter(client_id="c-1").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_command_whose_write_fails_is_not_a_repeat_and_stores_nothing(make_user):
    user = make_user()
    table = services.table_create(variant="classic", name="Сбой")

    def breaks() -> dict:
        ghost = Table(pk=table.pk + 1000, version=1)
        store.row_update(ghost, ["version"], version_was=1, later=True)
        return {"version": 2}

    with pytest.raises(store.RowChanged):
        commands.command_run(user=user, table=table, client_id="c-2", run=breaks)
    assert not ClientCommand.objects.filter(client_id="c-2").exists()


@pytest.mark.django_db(transaction=True)
def test_an_events_time_in_the_frames_is_the_time_stored(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 0
    table, _users = _table_with_game(make_user, "Время")
    game = Game.objects.get(table=table, status=Game.Status.PLAYING)
    event = GameEvent(game=game, version=999, action={"a": 1}, events=[])
    with transaction.atomic(), store.writes_together() as writes:
        store.event_insert(event, later=True)
        told = event.created_at
        writes.send()
    assert event.pk is not None
    assert GameEvent.objects.get(pk=event.pk).created_at == told


@pytest.mark.django_db(transaction=True)
def test_a_replayed_transfer_moves_nothing_and_answers_with_the_first_entry(make_user):
    player = make_user()
    wallet = accounts.wallet_for(player)
    bank = accounts.grants_account()
    before = wallet.balance
    with transaction.atomic():
        first = accounts.chips_transfer(
            source=bank, destination=wallet, amount=5, reason="admin_grant", idempotency_key="k-1"
        )
        again = accounts.chips_transfer(
            source=bank, destination=wallet, amount=5, reason="admin_grant", idempotency_key="k-1"
        )
        assert again.pk == first.pk
    assert LedgerEntry.objects.filter(idempotency_key="k-1").count() == 1
    assert Account.objects.get(pk=wallet.pk).balance == before + 5
    entry = LedgerEntry.objects.get(pk=first.pk)
    assert entry.destination_balance_after == before + 5


@pytest.mark.django_db(transaction=True)
def test_a_refused_transfer_leaves_the_callers_transaction_going(make_user):
    player = make_user()
    wallet = accounts.wallet_for(player)
    pot = accounts.escrow_account("escrow:test:refused")
    with transaction.atomic():
        with pytest.raises(accounts.InsufficientChips):
            accounts.chips_transfer(
                source=wallet,
                destination=pot,
                amount=wallet.balance + 1,
                reason="stake",
                idempotency_key="too-much",
            )
        # Nothing was written, and the transaction goes on.
        accounts.chips_transfer(
            source=wallet, destination=pot, amount=1, reason="stake", idempotency_key="one"
        )
    assert Account.objects.get(pk=pot.pk).balance == 1


@pytest.mark.django_db(transaction=True)
def test_the_database_refuses_a_negative_balance_written_past_the_check(make_user):
    player = make_user()
    wallet = accounts.wallet_for(player)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=wallet.pk).update(balance=-1)


@pytest.mark.django_db(transaction=True)
def test_a_move_meeting_an_overdue_decision_plays_it_first_and_its_refusal_keeps_it(
    make_user, settings
):
    settings.CLIENT_SEED_SECONDS = 0
    table, users = _table_with_game(make_user, "Просрочено")
    game = Game.objects.get(table=table, status=Game.Status.PLAYING)
    due_seat = game.deadline_seat
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - datetime.timedelta(seconds=1))
    version = Table.objects.get(pk=table.pk).version
    user = next(u for u in users if game.player_entry(due_seat)["user"] == u.pk)

    def act() -> dict:
        return moves.game_act(
            table=Table(pk=table.pk), player=user, action={"action": "stand"}, version=version
        )

    with pytest.raises(PlayError) as refused:
        commands.command_run(
            user=user, table=Table(pk=table.pk), client_id="late", run=act, plays_overdue=True
        )
    # The clock played the seat's decision first (here it ends the game); the move,
    # decided on the table before it, is refused, and the decision stands.
    assert refused.value.code in ("stale_version", "no_game")
    game.refresh_from_db()
    assert game.actions[-1] == {"seat": due_seat, "action": "timeout"}
    assert Table.objects.get(pk=table.pk).version == version + 1
    assert GameEvent.objects.filter(game=game).order_by("-version").first().action == {
        "seat": due_seat,
        "action": "timeout",
    }
    assert not ClientCommand.objects.filter(client_id="late").exists()


@pytest.mark.django_db(transaction=True)
def test_one_row_saved_through_two_instances_keeps_both_saves_in_order(make_user):
    table = services.table_create(variant="classic", name="Два экземпляра")
    with transaction.atomic(), store.writes_together() as writes:
        first = locks.lock_table_with_host(table.pk)
        second = Table.objects.get(pk=table.pk)
        first.version += 1
        store.row_update(first, ["version"], version_was=first.version - 1, later=True)
        second.version = first.version + 1
        store.row_update(second, ["version"], version_was=first.version, later=True)
        writes.send()
    assert Table.objects.get(pk=table.pk).version == table.version + 2
