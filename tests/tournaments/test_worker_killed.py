"""A Celery worker killed (SIGKILL) in the middle of an event's step, on the production
stack's worker and PostgreSQL and Redis: the step's transaction dies with it, and the step
run again by a new worker does it once — the event's heats opened once, with no buy-in
taken or returned twice; its prizes paid once each; the chips conserved throughout.

The worker is stopped at a known point inside the step by a lock the test holds from a
connection of its own (tests/integration/live_stack.py's RowLock): at the start, on the
games' table, so that dealing the first heat waits — the event already marked running,
the stacks given, the first heat's table opened and its entrant seated; at the end, on
the last entrant's wallet, so that paying the last prize waits — the heats closed, the
places written and every other prize paid. The worker is killed there, then the test lets
go. No hook in the code: only the database's own locks. (Not a lock on a row that a new
row refers to: PostgreSQL checks Django's foreign keys at COMMIT, and a COMMIT the server
has received completes even if its client is dead.)

No beat: the test sends the clock's task itself, as beat would at its next tick (the
task's message is taken off the queue when a worker receives it, so a killed worker's
run is not delivered again: the next tick's run is what repairs it).
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Account, LedgerEntry, User
from accounts.services import chips_in_circulation, escrow_account, wallet_for
from play.models import Game
from tables.models import Table
from tests.integration.live_stack import (
    RowLock,
    Stack,
    assert_conserved,
    make_stack,
    send_tasks,
    stack_activity,
    stack_connections,
    stack_env,
    stack_waiting,
    start_stack,
    task_results,
)
from tournaments.models import Entry, Tournament
from tournaments.services import entry_register, tournament_registration_open

pytestmark = [pytest.mark.services, pytest.mark.slow]

ENTRANTS = ("ann", "bob", "cat")
BUY_IN = 200
ADVANCE = "tournaments.tasks.tournaments_advance"
WAIT = 30.0  # seconds, for anything the worker does


@pytest.fixture
def stack(
    postgres: None, redis_url: str, transactional_db: None, tmp_path: Path
) -> Iterator[Stack]:
    """A Celery worker only: no daphne (no one plays) and no beat (the test is the clock)."""
    processes = start_stack(make_stack(stack_env(redis_url), tmp_path, webs=0, beat=False))
    try:
        yield processes
    finally:
        processes.stop()


@pytest.fixture
def row_lock() -> Iterator[RowLock]:
    lock = RowLock()
    try:
        yield lock
    finally:
        lock.close()


def wait_for(check: Callable[[], Any], what: str, stack: Stack, timeout: float = WAIT) -> Any:
    """Poll `check` until it holds; its value. Fails with the worker's log otherwise."""
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            activity = "\n".join(map(str, stack_activity()))
            pytest.fail(
                f"no {what} within {timeout:.0f} s\n{activity}\n{stack.logs()}", pytrace=False
            )
        time.sleep(0.1)


def advance(stack: Stack) -> int:
    """The clock's tick: one run of the task on the running worker; what it returned
    (the number of steps taken)."""
    [task] = send_tasks(stack.redis_url, ADVANCE)
    log = stack.worker.log_files[-1]
    results = wait_for(
        lambda: task_results(log.read_text(errors="replace"), "tournaments_advance", [task]),
        "run of the clock's task",
        stack,
    )
    return int(results[task])


def killed_while_waiting(stack: Stack, hold: Callable[[], None], lock: RowLock, on: str) -> None:
    """Take the lock (`hold`), send the clock's task, and once the worker waits for it (in
    a statement naming `on`) kill it there; let go and wait until PostgreSQL has ended the
    dead worker's session (rolling its transaction back). Then start a new worker."""
    hold()
    [task] = send_tasks(stack.redis_url, ADVANCE)
    wait_for(lambda: stack_waiting(on), f"worker waiting for the lock ({on})", stack)
    stack.worker.kill()
    lock.release()
    wait_for(lambda: stack_connections() == 0, "end of the killed worker's session", stack)
    assert task not in task_results(stack.worker.log_text(), "tournaments_advance")
    stack.worker.start()
    stack.wait_for_worker(stack.worker)


def ledger(tournament: Tournament, reason: str) -> dict[str, list[int]]:
    """The event's ledger entries of a reason: the amounts under each idempotency key."""
    found: dict[str, list[int]] = {}
    for key, amount in LedgerEntry.objects.filter(
        reason=reason, idempotency_key__startswith=f"tournament:{tournament.pk}:"
    ).values_list("idempotency_key", "amount"):
        found.setdefault(key, []).append(amount)
    return found


def test_a_worker_killed_mid_start_and_mid_finish_opens_each_heat_once_and_pays_each_prize_once(
    stack: Stack, row_lock: RowLock
) -> None:
    now = timezone.now()
    event = tournament_registration_open(
        tournament=Tournament.objects.create(
            name="Заезд с падением",
            variant="blackjack",
            format=Tournament.Format.DUPLICATE,
            registration_opens_at=now,
            starts_at=now + datetime.timedelta(hours=1),
            ends_at=now + datetime.timedelta(hours=2),
            buy_in=BUY_IN,
            rounds=3,
        )
    )
    users = [
        User.objects.create_user(name, email=f"{name}@example.com", password="unused-Pass-42")
        for name in ENTRANTS
    ]
    for user in users:
        entry_register(tournament_id=event.pk, player=user, now=timezone.now())
    circulating = chips_in_circulation()
    buy_ins = {f"tournament:{event.pk}:buy-in:{u.pk}:1": [BUY_IN] for u in users}
    assert ledger(event, LedgerEntry.Reason.TOURNAMENT_BUY_IN) == buy_ins
    last = users[-1]  # prizes are paid in registration order (equal stacks: below)

    # 1. The start is due. The worker opens the first entrant's heat and waits to deal it
    # (the test holds the games' table): killed there.
    Tournament.objects.filter(pk=event.pk).update(
        registration_opens_at=now - datetime.timedelta(minutes=2),
        starts_at=now - datetime.timedelta(minutes=1),
    )
    games = Game._meta.db_table
    killed_while_waiting(stack, lambda: row_lock.hold_writes(games), row_lock, on=games)
    event.refresh_from_db()
    assert event.status == Tournament.Status.REGISTERING  # none of the start stayed
    assert not Table.objects.filter(duplicate__isnull=False).exists()
    assert not Game.objects.exists()
    assert not Entry.objects.filter(tournament=event).exclude(table=None).exists()

    # The next tick, on the new worker, starts the event: one heat per entrant.
    assert advance(stack) == 1
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    entries = list(Entry.objects.filter(tournament=event).select_related("table"))
    assert len({e.table_id for e in entries}) == len(ENTRANTS) and all(e.table for e in entries)
    assert Table.objects.filter(duplicate__isnull=False).count() == len(ENTRANTS)
    for entry in entries:
        assert entry.stack == event.starting_stack
        assert list(Game.objects.filter(table=entry.table).values_list("status", flat=True)) == [
            Game.Status.PLAYING
        ]
        assert list(entry.table.seats.values_list("player_id", flat=True)) == [entry.player_id]
    assert ledger(event, LedgerEntry.Reason.TOURNAMENT_BUY_IN) == buy_ins  # no second buy-in
    assert ledger(event, LedgerEntry.Reason.TOURNAMENT_REFUND) == {}
    assert escrow_account(event.escrow_code).balance == len(ENTRANTS) * BUY_IN

    # 2. Its window is over, its heats unplayed: the same cards and no decision in each,
    # so the stacks are equal and the entrants share the pool, paid in registration order
    # (docs/tournaments.md). The worker closes the heats, ranks the entrants, pays the
    # first prizes and waits to pay the last (the test holds that wallet): killed there.
    Tournament.objects.filter(pk=event.pk).update(ends_at=timezone.now())
    wallet = wallet_for(last)
    accounts = Account._meta.db_table
    killed_while_waiting(stack, lambda: row_lock.hold(accounts, wallet.pk), row_lock, on=accounts)
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING  # none of the end stayed
    assert ledger(event, LedgerEntry.Reason.TOURNAMENT_PRIZE) == {}
    assert not Entry.objects.filter(tournament=event).exclude(status=Entry.Status.REGISTERED)
    assert (
        Table.objects.filter(pk__in=[e.table_id for e in entries], status=Table.Status.OPEN).count()
        == 3
    )
    assert escrow_account(event.escrow_code).balance == len(ENTRANTS) * BUY_IN

    # The next tick, on the new worker, ends it: every prize paid, once.
    assert advance(stack) == 1
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    entries = list(Entry.objects.filter(tournament=event).select_related("table"))
    assert all(e.status == Entry.Status.FINISHED and e.place and e.heat_over for e in entries)
    prizes = ledger(event, LedgerEntry.Reason.TOURNAMENT_PRIZE)
    assert prizes == {
        f"tournament:{event.pk}:prize:{e.player_id}": [e.prize] for e in entries if e.prize
    }
    assert prizes and sum(e.prize for e in entries) == len(ENTRANTS) * BUY_IN
    assert last.pk in {e.player_id for e in entries if e.prize}  # the prize it was killed on
    assert all(not e.table.is_open for e in entries)
    assert escrow_account(event.escrow_code).balance == 0
    assert chips_in_circulation() == circulating
    assert_conserved()

    # A tick more changes nothing: nothing is due, nothing is paid again.
    entries_before = LedgerEntry.objects.count()
    assert advance(stack) == 0
    assert LedgerEntry.objects.count() == entries_before
