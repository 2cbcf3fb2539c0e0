"""Admins grant or take chips in the admin, through the ledger, with a reason."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Account, LedgerEntry
from accounts.services import wallet_for

pytestmark = pytest.mark.django_db


def _adjust(client, wallet, **data):
    url = reverse("admin:accounts_account_adjust", args=[wallet.pk])
    form = client.get(url).context["form"]
    payload = {"idempotency_key": form.initial["idempotency_key"], **data}
    return client.post(url, payload), payload


def test_chip_grant_from_admin_writes_a_ledger_entry(admin_client, admin_user, make_user):
    wallet = wallet_for(make_user())
    response, _ = _adjust(
        admin_client, wallet, direction="grant", amount=2_500, memo="Турнир: первое место"
    )
    assert response.status_code == 302
    entry = LedgerEntry.objects.get(reason=LedgerEntry.Reason.ADMIN_GRANT)
    assert (entry.destination, entry.amount, entry.memo, entry.created_by) == (
        wallet,
        2_500,
        "Турнир: первое место",
        admin_user,
    )
    wallet.refresh_from_db()
    assert wallet.balance == 12_500


def test_chip_take_from_admin_and_a_resubmitted_form_applies_once(admin_client, make_user):
    wallet = wallet_for(make_user())
    _, payload = _adjust(admin_client, wallet, direction="take", amount=400, memo="ошибка")
    admin_client.post(reverse("admin:accounts_account_adjust", args=[wallet.pk]), payload)
    assert LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADMIN_TAKE).count() == 1
    wallet.refresh_from_db()
    assert wallet.balance == 9_600


def test_admin_cannot_take_more_than_the_wallet_holds(admin_client, make_user):
    wallet = wallet_for(make_user())
    response, _ = _adjust(admin_client, wallet, direction="take", amount=10_001, memo="x")
    assert response.status_code == 200
    assert "10001" in str(response.context["form"].non_field_errors())
    wallet.refresh_from_db()
    assert wallet.balance == 10_000


def test_adjustment_needs_a_reason(admin_client, make_user):
    wallet = wallet_for(make_user())
    response, _ = _adjust(admin_client, wallet, direction="grant", amount=5, memo="")
    assert response.status_code == 200 and "memo" in response.context["form"].errors
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADMIN_GRANT).exists()


def test_non_staff_cannot_reach_the_adjust_page(client, make_user):
    user = make_user()
    client.force_login(user)
    url = reverse("admin:accounts_account_adjust", args=[wallet_for(user).pk])
    assert (
        client.post(
            url, {"direction": "grant", "amount": 1_000_000, "memo": "me", "idempotency_key": "x"}
        ).status_code
        == 302
    )
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.Reason.ADMIN_GRANT).exists()


def test_ledger_and_wallets_are_read_only_in_admin(admin_client, make_user):
    wallet = wallet_for(make_user())
    entry = LedgerEntry.objects.for_account(wallet).get()
    assert admin_client.get(reverse("admin:accounts_ledgerentry_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:accounts_ledgerentry_add")).status_code == 403
    assert (
        admin_client.post(
            reverse("admin:accounts_ledgerentry_delete", args=[entry.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    admin_client.post(
        reverse("admin:accounts_account_change", args=[wallet.pk]), {"balance": 1_000_000}
    )
    assert Account.objects.get(pk=wallet.pk).balance == 10_000
    page = admin_client.get(reverse("admin:accounts_user_changelist"))
    assert page.status_code == 200 and "10000" in page.content.decode()
