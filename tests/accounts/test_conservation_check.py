"""The chip-conservation check that tests/conftest.py runs after every test using the
database (issue 7: "after every test: the sum of all wallets plus escrow equals what
grants put in"): it sees chips made or lost behind the ledger, and it leaves tests that
never touch the database without one."""

from __future__ import annotations

import pytest
from django.db.models import F

from accounts.models import Account
from accounts.services import chips_transfer, escrow_account, wallet_for
from tests.conftest import chips_unbalanced


@pytest.mark.django_db
def test_chips_moved_through_the_ledger_are_conserved(make_user):
    ann, bob = make_user(), make_user()
    pot = escrow_account("escrow:game:1")
    chips_transfer(
        source=wallet_for(ann), destination=pot, amount=30, reason="stake", idempotency_key="k1"
    )
    chips_transfer(
        source=pot, destination=wallet_for(bob), amount=20, reason="payout", idempotency_key="k2"
    )
    assert chips_unbalanced() is None


@pytest.mark.django_db
def test_an_empty_ledger_is_conserved():
    assert not Account.objects.exists()
    assert chips_unbalanced() is None


@pytest.mark.django_db
@pytest.mark.breaks_conservation("makes chips behind the ledger to see the check notice")
def test_chips_made_or_lost_behind_the_ledger_are_reported(make_user):
    wallet = wallet_for(make_user())
    Account.objects.filter(pk=wallet.pk).update(balance=F("balance") + 5)
    assert chips_unbalanced() == "wallets + escrow hold 10005, the grants account put in 10000"
    pot = escrow_account("escrow:game:7")
    Account.objects.filter(pk=pot.pk).update(balance=3)
    Account.objects.filter(pk=wallet.pk).update(balance=F("balance") - 15)
    assert chips_unbalanced() == "wallets + escrow hold 9993, the grants account put in 10000"


@pytest.mark.django_db
@pytest.mark.breaks_conservation("adds a system account beside grants to see the check notice")
def test_a_system_account_other_than_grants_is_reported(make_user):
    make_user()
    Account.objects.create(code="house", kind=Account.Kind.SYSTEM, balance=0)
    assert chips_unbalanced() is None
    Account.objects.filter(code="house").update(balance=-1)
    Account.objects.filter(kind=Account.Kind.PLAYER).update(balance=F("balance") + 1)
    assert "all system accounts: 10001" in chips_unbalanced()


def test_a_test_without_the_database_gets_no_check_and_no_database(request):
    assert "_django_db_helper" not in request.fixturenames
    with pytest.raises(RuntimeError, match="Database access not allowed"):
        Account.objects.count()
