"""The ledger under real concurrency, on PostgreSQL (row locks are what is tested).

Each thread has its own database connection (Django connections are per thread) and the
transfers commit for real (transactional_db), so SELECT ... FOR UPDATE is what keeps the
wallet from going below zero and keys from being applied twice.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections

from accounts.models import Account, LedgerEntry
from accounts.services import (
    IdempotencyConflict,
    InsufficientChips,
    chips_transfer,
    escrow_account,
    wallet_for,
)

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

THREADS = 12


def _run_concurrently(jobs, threads=THREADS):
    """Run the callables on `threads` threads, released together; return their results."""
    go = threading.Event()

    def run(job):
        try:
            go.wait(timeout=30)
            return job()
        except (InsufficientChips, IdempotencyConflict) as exc:
            return exc
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(run, job) for job in jobs]
        go.set()
        return [f.result() for f in futures]


def _total_chips() -> int:
    return sum(Account.objects.exclude(kind=Account.Kind.SYSTEM).values_list("balance", flat=True))


def test_concurrent_transfers_out_of_one_wallet_never_overdraw_it(postgres, make_user):
    assert connection.vendor == "postgresql"
    wallet = wallet_for(make_user())  # 10,000 chips
    pots = [escrow_account(f"escrow:round:{i}") for i in range(4)]
    total = _total_chips()

    # 60 transfers of 300 = 18,000 asked from 10,000: exactly 33 can succeed.
    jobs = [
        (
            lambda i=i: chips_transfer(
                source=wallet,
                destination=pots[i % 4],
                amount=300,
                reason=LedgerEntry.Reason.STAKE,
                idempotency_key=f"bet:{i}",
                round_ref=str(i % 4),
            )
        )
        for i in range(60)
    ]
    results = _run_concurrently(jobs)

    done = [r for r in results if isinstance(r, LedgerEntry)]
    refused = [r for r in results if isinstance(r, InsufficientChips)]
    assert len(done) == 33 and len(refused) == 27
    wallet.refresh_from_db()
    assert wallet.balance == 10_000 - 33 * 300 == 100
    assert _total_chips() == total
    assert LedgerEntry.objects.filter(source=wallet).count() == 33


def test_concurrent_retries_of_one_key_apply_it_once(postgres, make_user):
    wallet = wallet_for(make_user())
    pot = escrow_account("escrow:round:retry")
    total = _total_chips()

    # Five distinct bets, each sent eight times at once (double clicks, resends).
    jobs = [
        (
            lambda k=k: chips_transfer(
                source=wallet,
                destination=pot,
                amount=1_000,
                reason=LedgerEntry.Reason.STAKE,
                idempotency_key=f"once:{k}",
            )
        )
        for k in range(5)
        for _ in range(8)
    ]
    results = _run_concurrently(jobs, threads=16)

    assert all(isinstance(r, LedgerEntry) for r in results), results
    assert len({r.pk for r in results}) == 5
    assert LedgerEntry.objects.filter(idempotency_key__startswith="once:").count() == 5
    wallet.refresh_from_db()
    pot.refresh_from_db()
    assert (wallet.balance, pot.balance) == (5_000, 5_000)
    assert _total_chips() == total


def test_concurrent_transfers_both_ways_between_wallets_conserve_chips(postgres, make_user):
    """Opposite transfers lock in one order (by id), so they cannot deadlock."""
    a, b = wallet_for(make_user()), wallet_for(make_user())
    pot = escrow_account("escrow:round:mix")
    total = _total_chips()
    pairs = [(a, b), (b, a), (a, pot), (b, pot), (pot, a), (pot, b)]
    jobs = [
        (
            lambda i=i, s=s, d=d: chips_transfer(
                source=s,
                destination=d,
                amount=700 + i,
                reason=LedgerEntry.Reason.STAKE,
                idempotency_key=f"mix:{i}",
            )
        )
        for i, (s, d) in enumerate(pairs * 8)
    ]
    _run_concurrently(jobs)

    for account in (a, b, pot):
        account.refresh_from_db()
        assert account.balance >= 0
        entries = LedgerEntry.objects.for_account(account)
        assert account.balance == sum(
            e.amount if e.destination_id == account.pk else -e.amount for e in entries
        )
    assert _total_chips() == total
