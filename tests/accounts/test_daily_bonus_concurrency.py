"""The daily bonus under real concurrency, on PostgreSQL: claims posted at once (a double
click, two tabs, a script) grant once, and a claim racing an admin's grant to the same
wallet neither deadlocks nor loses a chip.

Each thread has its own database connection and the claims commit for real
(transactional_db), so the row locks are what is tested.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections

from accounts.bonus import BonusClaimedToday, daily_bonus_claim
from accounts.models import Account, DailyBonusClaim, LedgerEntry
from accounts.services import chips_adjust, wallet_for
from tests.accounts.test_daily_bonus import _spend_down
from tests.conftest import chips_unbalanced

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

THREADS = 12


def _run_concurrently(jobs):
    """Run the callables on their own threads, released together; return their results
    (a refusal is a result)."""
    go = threading.Event()

    def run(job):
        try:
            go.wait(timeout=30)
            return job()
        except BonusClaimedToday as refusal:
            return refusal
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [pool.submit(run, job) for job in jobs]
        go.set()
        return [f.result() for f in futures]


def _broke_player(make_user, *, left: int):
    player = make_user()
    _spend_down(player, to=left)
    return player


def test_claims_posted_at_once_grant_the_bonus_once(postgres, make_user):
    assert connection.vendor == "postgresql"
    player = _broke_player(make_user, left=100)

    results = _run_concurrently(
        [lambda: daily_bonus_claim(user=player, time_zone="Europe/Moscow")] * THREADS
    )

    granted = [r for r in results if isinstance(r, LedgerEntry)]
    refused = [r for r in results if isinstance(r, BonusClaimedToday)]
    assert (len(granted), len(refused)) == (1, THREADS - 1), results
    assert granted[0].amount == 900
    assert LedgerEntry.objects.filter(reason="daily_bonus").count() == 1
    assert DailyBonusClaim.objects.count() == 1
    assert wallet_for(player).balance == 1_000
    assert chips_unbalanced() is None


def test_claims_racing_admin_grants_to_the_same_wallet_neither_deadlock_nor_lose_chips(
    postgres, make_user
):
    """The claim locks the grants account and the wallet in chips_transfer's order; in
    another order it would deadlock against an admin grant, which locks the same two."""
    root = make_user("root", is_staff=True)
    player = _broke_player(make_user, left=100)
    wallet = wallet_for(player)
    claims = [lambda: daily_bonus_claim(user=player, time_zone="UTC")] * 6
    grants = [
        (
            lambda i=i: chips_adjust(
                wallet=Account.objects.get(pk=wallet.pk),
                amount=1,
                memo="конкурс",
                by=root,
                idempotency_key=f"admin:race:{i}",
            )
        )
        for i in range(6)
    ]

    results = _run_concurrently([job for pair in zip(claims, grants, strict=True) for job in pair])

    bonuses = [r for r in results if isinstance(r, LedgerEntry) and r.reason == "daily_bonus"]
    assert len(bonuses) == 1, results
    assert sum(isinstance(r, LedgerEntry) for r in results) == 7  # the bonus and six grants
    # The bonus tops up whatever the grants before it had added; those after it add on.
    granted_after = LedgerEntry.objects.filter(reason="admin_grant", pk__gt=bonuses[0].pk).count()
    assert wallet_for(player).balance == 1_000 + granted_after
    assert chips_unbalanced() is None
