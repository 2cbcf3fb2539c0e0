"""The chip ledger: one transfer function, append-only entries, no negative balances."""

from __future__ import annotations

import contextlib

import pytest
from django.db import IntegrityError, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Account, LedgerEntry
from accounts.services import (
    WELCOME_GRANT_CHIPS,
    IdempotencyConflict,
    InsufficientChips,
    chips_adjust,
    chips_in_circulation,
    chips_transfer,
    escrow_account,
    grants_account,
    wallet_for,
    welcome_grant,
)
from tests.conftest import examples

pytestmark = pytest.mark.django_db

STAKE = LedgerEntry.Reason.STAKE
PAYOUT = LedgerEntry.Reason.PAYOUT


def test_new_user_gets_a_wallet_with_the_welcome_grant_through_the_ledger(make_user):
    user = make_user()
    wallet = wallet_for(user)
    assert wallet.balance == WELCOME_GRANT_CHIPS == 10_000
    (entry,) = LedgerEntry.objects.for_account(wallet)
    assert entry.reason == LedgerEntry.Reason.WELCOME_GRANT
    assert entry.source == grants_account()
    assert entry.amount == 10_000
    assert entry.idempotency_key == f"welcome:{user.pk}"


def test_welcome_grant_is_given_once_per_user(make_user):
    user = make_user()
    again = welcome_grant(user=user)
    assert LedgerEntry.objects.filter(reason=LedgerEntry.Reason.WELCOME_GRANT).count() == 1
    assert again.idempotency_key == f"welcome:{user.pk}"
    assert wallet_for(user).balance == 10_000


def test_stake_moves_into_escrow_and_payout_back_conserving_chips(make_user):
    alice, bob = wallet_for(make_user()), wallet_for(make_user())
    pot = escrow_account("escrow:round:1")
    before = chips_in_circulation()
    chips_transfer(
        source=alice,
        destination=pot,
        amount=300,
        reason=STAKE,
        idempotency_key="r1:alice:bet",
        round_ref="1",
    )
    chips_transfer(
        source=bob,
        destination=pot,
        amount=300,
        reason=STAKE,
        idempotency_key="r1:bob:bet",
        round_ref="1",
    )
    assert chips_in_circulation() == before
    pot.refresh_from_db()
    assert pot.balance == 600
    chips_transfer(
        source=pot,
        destination=alice,
        amount=600,
        reason=PAYOUT,
        idempotency_key="r1:alice:win",
        round_ref="1",
    )
    alice.refresh_from_db()
    bob.refresh_from_db()
    pot.refresh_from_db()
    assert (alice.balance, bob.balance, pot.balance) == (10_300, 9_700, 0)
    assert chips_in_circulation() == before
    assert LedgerEntry.objects.filter(round_ref="1").count() == 3


def test_transfer_updates_callers_objects_and_records_balances_after(make_user):
    alice = wallet_for(make_user())
    pot = escrow_account("escrow:t")
    entry = chips_transfer(
        source=alice, destination=pot, amount=25, reason=STAKE, idempotency_key="k1"
    )
    assert alice.balance == 9_975 and pot.balance == 25
    assert (entry.source_balance_after, entry.destination_balance_after) == (9_975, 25)


def test_same_idempotency_key_moves_chips_once_and_returns_the_first_entry(make_user):
    alice = wallet_for(make_user())
    pot = escrow_account("escrow:t")
    first = chips_transfer(
        source=alice, destination=pot, amount=10, reason=STAKE, idempotency_key="double-click"
    )
    second = chips_transfer(
        source=alice, destination=pot, amount=10, reason=STAKE, idempotency_key="double-click"
    )
    assert first.pk == second.pk
    alice.refresh_from_db()
    assert alice.balance == 9_990


def test_a_replay_returns_the_first_entry_even_when_the_balance_is_spent_since(make_user):
    alice = wallet_for(make_user())
    pot = escrow_account("escrow:t")
    first = chips_transfer(
        source=alice, destination=pot, amount=10_000, reason=STAKE, idempotency_key="all-in"
    )
    again = chips_transfer(
        source=alice, destination=pot, amount=10_000, reason=STAKE, idempotency_key="all-in"
    )
    assert again.pk == first.pk
    alice.refresh_from_db()
    pot.refresh_from_db()
    assert (alice.balance, pot.balance) == (0, 10_000)
    assert LedgerEntry.objects.filter(idempotency_key="all-in").count() == 1


def test_reused_idempotency_key_for_a_different_movement_is_refused(make_user):
    alice = wallet_for(make_user())
    pot = escrow_account("escrow:t")
    chips_transfer(source=alice, destination=pot, amount=10, reason=STAKE, idempotency_key="k")
    with pytest.raises(IdempotencyConflict):
        chips_transfer(source=alice, destination=pot, amount=11, reason=STAKE, idempotency_key="k")
    alice.refresh_from_db()
    assert alice.balance == 9_990


def test_insufficient_chips_is_refused_with_a_clear_error_and_nothing_moves(make_user):
    alice = wallet_for(make_user())
    pot = escrow_account("escrow:t")
    with pytest.raises(InsufficientChips, match="10001"):
        chips_transfer(
            source=alice, destination=pot, amount=10_001, reason=STAKE, idempotency_key="too-much"
        )
    alice.refresh_from_db()
    assert alice.balance == 10_000
    assert not LedgerEntry.objects.filter(idempotency_key="too-much").exists()


@pytest.mark.parametrize("amount", [0, -5, 1.5, True, "10"])
def test_amount_must_be_a_positive_integer(make_user, amount):
    alice = wallet_for(make_user())
    with pytest.raises(ValueError):
        chips_transfer(
            source=alice,
            destination=escrow_account("e"),
            amount=amount,
            reason=STAKE,
            idempotency_key="k",
        )


def test_transfer_to_the_same_account_is_refused(make_user):
    alice = wallet_for(make_user())
    with pytest.raises(ValueError):
        chips_transfer(source=alice, destination=alice, amount=1, reason=STAKE, idempotency_key="k")


def test_database_refuses_a_negative_wallet_balance(make_user):
    alice = wallet_for(make_user())
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=alice.pk).update(balance=-1)


def test_database_refuses_a_negative_escrow_balance():
    pot = escrow_account("escrow:x")
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=pot.pk).update(balance=-1)


def test_the_grants_account_may_go_negative_by_what_was_granted(make_user):
    make_user()
    make_user()
    assert grants_account().balance == -2 * WELCOME_GRANT_CHIPS
    assert chips_in_circulation() == 2 * WELCOME_GRANT_CHIPS


def test_ledger_entries_cannot_be_changed_or_deleted(make_user):
    entry = LedgerEntry.objects.for_account(wallet_for(make_user())).get()
    entry.memo = "edited"
    with pytest.raises(TypeError):
        entry.save()
    with pytest.raises(TypeError):
        entry.delete()
    with pytest.raises(TypeError):
        LedgerEntry.objects.filter(pk=entry.pk).update(amount=1)
    with pytest.raises(TypeError):
        LedgerEntry.objects.filter(pk=entry.pk).delete()


def test_database_trigger_refuses_updating_a_ledger_entry_behind_the_orm(make_user):
    from django.db import DatabaseError, connection

    entry = LedgerEntry.objects.for_account(wallet_for(make_user())).get()
    table = LedgerEntry._meta.db_table
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET amount = 1 WHERE id = %s", [entry.pk])


def test_admin_adjustment_grants_and_takes_with_a_reason(make_user, admin_user):
    wallet = wallet_for(make_user())
    grant = chips_adjust(
        wallet=wallet, amount=500, memo="prize", by=admin_user, idempotency_key="a1"
    )
    take = chips_adjust(
        wallet=wallet, amount=-200, memo="correction", by=admin_user, idempotency_key="a2"
    )
    assert (grant.reason, grant.memo, grant.created_by) == ("admin_grant", "prize", admin_user)
    assert (take.reason, take.source) == ("admin_take", wallet)
    wallet.refresh_from_db()
    assert wallet.balance == 10_300
    with pytest.raises(ValueError):
        chips_adjust(wallet=wallet, amount=5, memo="  ", by=admin_user, idempotency_key="a3")


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    moves=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(1, 15_000)), max_size=25
    )
)
def test_any_sequence_of_transfers_conserves_chips_and_keeps_balances_non_negative(
    make_user, moves
):
    with transaction.atomic():
        accounts = [wallet_for(make_user()), wallet_for(make_user()), escrow_account("escrow:p")]
        total = chips_in_circulation()
        for i, (a, b, amount) in enumerate(moves):
            if a == b:
                continue
            with contextlib.suppress(InsufficientChips):
                chips_transfer(
                    source=accounts[a],
                    destination=accounts[b],
                    amount=amount,
                    reason=STAKE,
                    idempotency_key=f"p{i}",
                )
        for account in accounts:
            account.refresh_from_db()
            assert account.balance >= 0
            entries = LedgerEntry.objects.for_account(account)
            credited = sum(e.amount for e in entries if e.destination_id == account.pk)
            debited = sum(e.amount for e in entries if e.source_id == account.pk)
            assert account.balance == credited - debited
        assert chips_in_circulation() == total
        transaction.set_rollback(True)


def test_database_refuses_emptying_the_ledger_outside_maintenance(make_user):
    from django.db import DatabaseError, connection

    from accounts.services import ledger_maintenance_end

    make_user()
    table = LedgerEntry._meta.db_table
    # PostgreSQL: TRUNCATE, which row triggers never see; SQLite: DELETE.
    statement = (
        f"TRUNCATE {table} CASCADE" if connection.vendor == "postgresql" else f"DELETE FROM {table}"
    )
    with transaction.atomic():
        ledger_maintenance_end()
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            if connection.vendor == "postgresql":  # TRUNCATE waits for no deferred FK check
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(statement)
        transaction.set_rollback(True)  # the test database stays in maintenance
    assert LedgerEntry.objects.exists()
