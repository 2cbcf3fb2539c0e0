"""Gaps a review found in what the suite proved about the ledger and accounts: each of
these would have let a regression through before."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission
from django.contrib.auth.password_validation import get_default_password_validators
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from accounts.models import LedgerEntry
from accounts.services import (
    IdempotencyConflict,
    chips_transfer,
    escrow_account,
    wallet_for,
)
from tests.accounts.test_ledger_concurrency import _run_concurrently

STAKE = LedgerEntry.Reason.STAKE


@pytest.mark.django_db
@pytest.mark.parametrize("changed", ["source", "destination"])
def test_a_key_reused_for_another_source_or_destination_is_refused(make_user, changed):
    alice, bob = wallet_for(make_user()), wallet_for(make_user())
    pot, other_pot = escrow_account("escrow:a"), escrow_account("escrow:b")
    chips_transfer(source=alice, destination=pot, amount=10, reason=STAKE, idempotency_key="k")
    source, destination = (bob, pot) if changed == "source" else (alice, other_pot)
    with pytest.raises(IdempotencyConflict):
        chips_transfer(
            source=source, destination=destination, amount=10, reason=STAKE, idempotency_key="k"
        )
    for account in (alice, bob, pot, other_pot):
        account.refresh_from_db()
    assert (alice.balance, bob.balance, pot.balance, other_pot.balance) == (9_990, 10_000, 10, 0)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_one_key_raced_over_disjoint_accounts_applies_once_through_the_unique_index(
    postgres, make_user
):
    """No row lock is shared here (every transfer has its own two accounts), so only the
    unique index on the key stops the second insert: the IntegrityError path."""
    wallets = [wallet_for(make_user()) for _ in range(8)]
    pots = [escrow_account(f"escrow:race:{i}") for i in range(8)]
    jobs = [
        (
            lambda w=w, p=p: chips_transfer(
                source=w, destination=p, amount=100, reason=STAKE, idempotency_key="race"
            )
        )
        for w, p in zip(wallets, pots, strict=True)
    ]
    results = _run_concurrently(jobs, threads=8)
    applied = [r for r in results if isinstance(r, LedgerEntry)]
    assert len(applied) == 1, results
    assert all(isinstance(r, IdempotencyConflict) for r in results if r not in applied), results
    assert LedgerEntry.objects.filter(idempotency_key="race").count() == 1
    balances = sorted(
        w.balance for w in type(wallets[0]).objects.filter(pk__in=[w.pk for w in wallets])
    )
    assert balances == [9_900] + [10_000] * 7
    assert sum(p.balance for p in type(pots[0]).objects.filter(pk__in=[p.pk for p in pots])) == 100


@pytest.mark.django_db
def test_postgresql_refuses_deleting_a_ledger_entry_behind_the_orm(postgres, make_user):
    entry = LedgerEntry.objects.for_account(wallet_for(make_user())).get()
    table = LedgerEntry._meta.db_table
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"DELETE FROM {table} WHERE id = %s", [entry.pk])
    assert LedgerEntry.objects.filter(pk=entry.pk).exists()


@pytest.mark.django_db
def test_password_validators_are_configured_and_refuse_weak_passwords(make_user):
    names = {type(v).__name__ for v in get_default_password_validators()}
    assert names == {
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    }
    assert settings.AUTH_PASSWORD_VALIDATORS  # the list the sign-up form checks against


@pytest.mark.django_db
@pytest.mark.parametrize("password", ["12345678", "password", "short1", "vasilisa-1"])
def test_sign_up_refuses_a_weak_password(client, password):
    response = client.post(
        reverse("signup"),
        {
            "username": "vasilisa",
            "email": "vasilisa@example.com",
            "password1": password,
            "password2": password,
        },
    )
    assert response.status_code == 200  # the form again, with the validator's message
    assert "password2" in response.context["form"].errors
    assert not LedgerEntry.objects.exists()


@pytest.mark.django_db
def test_staff_without_the_change_permission_cannot_adjust_chips(client, make_user):
    clerk = make_user("clerk", is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_account"))
    client.force_login(clerk)
    wallet = wallet_for(make_user())
    url = reverse("admin:accounts_account_adjust", args=[wallet.pk])
    assert client.get(url).status_code == 403
    answer = client.post(
        url, {"direction": "grant", "amount": 1_000, "memo": "me", "idempotency_key": "x"}
    )
    assert answer.status_code == 403
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADMIN_GRANT).exists()
