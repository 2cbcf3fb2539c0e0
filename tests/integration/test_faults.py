"""Faults against real processes: nothing is lost or applied twice when a service dies.

Each test runs the production stack as subprocesses (daphne, a Celery worker, beat) on
the test database and a Redis of the stack's own (so that restarting it disturbs no one
else on the machine), breaks one thing mid-game, and ends with the chip ledger's
conservation check and every stored hand record replaying to its result:

- Redis restarted mid-round: the sockets close, the clients reconnect and get the
  snapshot, the round finishes; a command resent with its id after the reconnect is
  answered "repeat" and stored once (protocol §5.4).
- PostgreSQL connections dropped (pg_terminate_backend on this test database's backends
  of the stack, found by their application name) while actions are in flight: each
  action fails with a clear error or succeeds, never half; the next action works.
- The Celery worker killed (SIGKILL) in the middle of a sweep, and beat stopped for 10 s:
  an action by the player whose deadline passed meanwhile plays the overdue timeout
  first, and the timeout that fell due while they were down is played once when they
  come back.
- Two workers sweeping at once: every due timeout is applied exactly once.
"""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import global_settings
from django.db import connection
from django.utils import timezone

from accounts.models import Account, LedgerEntry
from play.models import ClientCommand, Game, GameEvent, Presence
from play.services import seating
from tables import services
from tables.models import Table
from tests.integration.live_stack import (
    STACK_APPLICATION_NAME,
    Conn,
    RowLock,
    Stack,
    caught_up,
    check_frames,
    check_ledger,
    check_records,
    check_versions,
    close_all,
    create_players,
    deal_first_bank,
    has_event,
    load_game,
    make_stack,
    open_retrying,
    picture,
    play_to_the_end,
    quiet,
    require_redis_server,
    run_scenario,
    send_tasks,
    sign_in_async,
    stack_env,
    stack_waiting,
    start_stack,
    table_version,
    task_results,
    until,
)

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

STAKE = 10
SCENARIO_TIMEOUT = 120.0
BEAT_DOWN_SECONDS = 10.0
db = database_sync_to_async


# --- fixtures --------------------------------------------------------------------------


@pytest.fixture
def launch(
    postgres: None, transactional_db: None, tmp_path: Path
) -> Iterator[Callable[..., Stack]]:
    """Start a stack (on its own Redis) with the given processes; stopped at the end,
    before the test database is flushed (transactional_db is set up first)."""
    require_redis_server()
    stacks: list[Stack] = []

    def start(**processes: Any) -> Stack:
        env = stack_env(
            "",  # the stack's own Redis
            # Long enough that a bank is dealt by its players' client seeds.
            CLIENT_SEED_SECONDS="5",
            # No next bank while a test runs: what it plays is one bank per table.
            GAME_INTERLUDE_SECONDS="600",
        )
        logs = tmp_path / f"stack{len(stacks) + 1}"
        logs.mkdir()
        stack = make_stack(env, logs, private_redis=True, **processes)
        stacks.append(stack)
        return start_stack(stack)

    yield start
    for stack in stacks:
        stack.stop()


def banker36_table(names: list[str], *, decision_seconds: int) -> Table:
    users = create_players(names)
    return services.table_create(
        variant="banker36",
        name=f"Faults {names[0]}",
        created_by=users[0],
        stake=STAKE,
        entry_limit=100,
        decision_seconds=decision_seconds,
        reconnect_grace_seconds=30,
    )


@pytest.fixture
def real_passwords(settings: Any) -> None:
    # Passwords hashed as daphne checks them (the suite's fast MD5 hasher is test-only).
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS


@pytest.fixture
def duel(transactional_db: None, real_passwords: None) -> Table:
    return banker36_table(["ann", "bob"], decision_seconds=60)


@pytest.fixture
def trio(transactional_db: None, real_passwords: None) -> Table:
    # Three players: the first ponter's timeout leaves the second's decision running.
    return banker36_table(["ann", "bob", "cat"], decision_seconds=5)


# --- a scenario: players and a spectator on real sockets ------------------------------


class Scene:
    """The players' and a spectator's sockets to one table, and every frame they got."""

    def __init__(self, stack: Stack, table_id: int, players: list[str]) -> None:
        self.stack, self.table_id, self.players = stack, table_id, players
        self.cookies: dict[str, str] = {}
        self.seen: dict[str | None, list[str]] = {name: [] for name in [*players, None]}
        self.conns: list[Conn] = []  # every socket opened, closed ones included
        self.live: dict[str | None, Conn] = {}

    async def connect(self, name: str | None) -> Conn:
        if name is not None and name not in self.cookies:
            self.cookies[name] = await sign_in_async(self.stack.port, name)
        conn = await open_retrying(
            name or "spectator",
            self.stack.port,
            self.table_id,
            self.seen[name],
            self.cookies.get(name) if name else None,
        )
        self.conns.append(conn)
        self.live[name] = conn
        return conn

    async def connect_all(self) -> None:
        for name in [*self.players, None]:
            await self.connect(name)

    @property
    def spectator(self) -> Conn:
        return self.live[None]

    def seats(self) -> dict[str, Conn]:
        return {name: self.live[name] for name in self.players}

    async def everyone_at(self, version: int) -> None:
        for conn in self.live.values():
            await caught_up(conn, version)

    async def close(self) -> None:
        for conn in self.conns:
            await conn.close()

    async def wrap_up(self) -> None:
        """Everyone stands; then the ledger, the records, the order of every socket's
        frames and what each viewer was shown are checked against the database."""
        for name in self.players:
            await self.live[name].command("stand")
        await until(lambda: db(quiet)(self.table_id), "an empty table")
        final = await db(table_version)(self.table_id)
        for conn in self.live.values():
            assert (await caught_up(conn, final))["version"] == final
        for conn in self.conns:
            check_versions(conn)
        await db(check_ledger)(self.table_id)
        assert await db(check_records)() >= 1
        for name, frames in self.seen.items():
            await db(check_frames)(name, frames, self.table_id)


async def run(stack: Stack, scene: Scene, play: Callable[[], Coroutine[Any, Any, None]]) -> None:
    await run_scenario(stack, play(), timeout=SCENARIO_TIMEOUT, cleanup=scene.close)


# --- the database, seen from outside the stack -----------------------------------------


def terminate_stack_backends() -> int:
    """Drop every connection the stack has to this test database (none of the test's)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s"
            " AND pid <> pg_backend_pid()",
            [STACK_APPLICATION_NAME],
        )
        return int(cursor.fetchone()[0])


def table_state(table_id: int) -> dict[str, Any]:
    """Everything an action writes, to compare before and after a failed one."""
    game = Game.objects.get(table_id=table_id, number=1)
    return {
        "version": Table.objects.get(pk=table_id).version,
        "actions": game.actions,
        "engine": game.state["version"],
        "events": GameEvent.objects.filter(game=game).count(),
        "ledger": LedgerEntry.objects.count(),
        "balances": dict(Account.objects.values_list("pk", "balance")),
        "commands": sorted(ClientCommand.objects.values_list("client_id", flat=True)),
    }


def presences(table_id: int) -> int:
    return Presence.objects.filter(table_id=table_id).count()


def wallet_of(username: str) -> int:
    return Account.objects.get(owner__username=username, kind=Account.Kind.PLAYER).pk


def sweeps(worker_log: str, ids: list[str] | None = None) -> dict[str, int]:
    """Sweep tasks a worker's log says it finished, with what each applied."""
    return task_results(worker_log, "sweep_deadlines", ids)


# --- Redis restarted -------------------------------------------------------------------


async def test_redis_restarted_mid_round_clients_reconnect_and_nothing_is_applied_twice(
    launch: Callable[..., Stack], duel: Table
) -> None:
    stack = await asyncio.to_thread(launch)
    scene = Scene(stack, duel.pk, ["ann", "bob"])

    async def play() -> None:
        await scene.connect_all()
        start = await deal_first_bank(scene.live, scene.players)
        ponter = start[None]["game"]["view"]["turn"]
        bettor = scene.live[ponter]
        bet = {"action": "bet", "amount": STAKE, "version": picture(bettor)["version"]}
        bet_id = Conn.new_id(ponter)
        ack = await bettor.request("action", cid=bet_id, **bet)
        assert ack["type"] == "ack" and "repeat" not in ack, ack
        await scene.everyone_at(ack["version"])
        views = {name: picture(conn)["game"]["view"] for name, conn in scene.live.items()}

        # Redis stops mid-decision. Every consumer of daphne loses the channel layer: the
        # sockets close (the server's fault: 1011), and the connections are forgotten.
        await asyncio.to_thread(stack.redis.stop)
        for conn in scene.live.values():
            await conn.wait_closed()
            assert conn.ws.close_code == 1011, conn.ws.close_code
        await until(_no_presence, "the dead sockets forgotten")

        # Redis is back on its port, empty. The clients reconnect and find the game as
        # they left it, but for one version: the ponter's socket closed during his
        # decision, so he was granted the reconnect grace (§8.4).
        await asyncio.to_thread(stack.start_redis)
        await scene.connect_all()
        version = await db(table_version)(duel.pk)
        assert version == ack["version"] + 1
        for name, conn in scene.live.items():
            assert conn.snapshot["version"] == version
            assert conn.snapshot["game"]["view"] == views[name]
        assert await db(presences)(duel.pk) == len(scene.players)  # the new sockets only

        # The bet's ack counts as lost: resent with its id, it is answered with its first
        # outcome and not applied again.
        again = await scene.live[ponter].request("action", cid=bet_id, **bet)
        assert again == {**ack, "repeat": True, "version": ack["version"]}, again
        game = await db(load_game)(duel.pk, 1)
        assert game.actions == [{"seat": ponter, "action": "bet", "amount": STAKE}]
        assert await db(table_version)(duel.pk) == version

        # The round finishes as usual.
        over = await play_to_the_end(scene.seats(), 1)
        assert over["game"]["status"] == "finished"
        await scene.wrap_up()

    async def _no_presence() -> bool:
        return await db(presences)(duel.pk) == 0

    await run(stack, scene, play)


# --- PostgreSQL connections dropped ----------------------------------------------------


async def test_postgres_connections_dropped_during_actions_fail_cleanly_or_succeed(
    launch: Callable[..., Stack], duel: Table
) -> None:
    stack = await asyncio.to_thread(launch)
    scene = Scene(stack, duel.pk, ["ann", "bob"])
    lock = await asyncio.to_thread(RowLock)

    async def drop_connections_while_waiting(on: str) -> None:
        """Once a command of the stack waits for the row the test holds, terminate every
        connection the stack has to the database, then let the row go."""
        await until(lambda: db(stack_waiting)(on), f"a statement waiting on {on}")
        assert await db(terminate_stack_backends)() >= 1
        await asyncio.to_thread(lock.release)

    async def play() -> None:
        await scene.connect_all()
        start = await deal_first_bank(scene.live, scene.players)
        ponter = start[None]["game"]["view"]["turn"]
        bettor = scene.live[ponter]
        version = picture(bettor)["version"]
        before = await db(table_state)(duel.pk)

        # 1. The bet is applied to the game and its event written, then waits to move
        # the stake out of the ponter's wallet (the test holds the row): the connections
        # drop mid-transaction. The bet fails with a clear error, and none of it stays.
        await asyncio.to_thread(lock.hold, "accounts_account", await db(wallet_of)(ponter))
        bet = {"action": "bet", "amount": STAKE, "version": version}
        bet_id = Conn.new_id(ponter)
        await bettor.send_command("action", bet_id, **bet)
        await drop_connections_while_waiting("accounts_account")
        refused = await bettor.answer(bet_id)
        assert refused["type"] == "error" and refused["code"] == "unavailable", refused
        assert refused["version"] == version
        assert await db(table_state)(duel.pk) == before
        assert not bettor.closed.is_set()
        # The next action works: the same bet, resent with its id, is applied once.
        ack = await bettor.request("action", cid=bet_id, **bet)
        assert ack == {"type": "ack", "id": bet_id, "version": version + 1}, ack
        await scene.everyone_at(version + 1)
        game = await db(load_game)(duel.pk, 1)
        assert game.actions == [{"seat": ponter, "action": "bet", "amount": STAKE}]

        # 2. The next move waits for the game row (the test holds it) when the
        # connections drop: wherever it was — its look for an overdue decision reads
        # without a lock, so it is usually the move's own write — it fails cleanly, as the
        # bet did, and resent with its id it is applied once; or, dropped before it had
        # begun, it ran on a new connection and succeeded. Never half, never twice.
        await asyncio.to_thread(lock.hold, "tables_game", game.pk)
        move_id = Conn.new_id(ponter)
        move = {"action": "stand", "version": version + 1}
        await bettor.send_command("action", move_id, **move)
        await drop_connections_while_waiting("tables_game")
        answer = await bettor.answer(move_id)
        if answer["type"] == "error":
            assert answer["code"] == "unavailable" and answer["version"] == version + 1, answer
            assert (await db(load_game)(duel.pk, 1)).actions == game.actions
            answer = await bettor.request("action", cid=move_id, **move)
        assert answer == {"type": "ack", "id": move_id, "version": version + 2}, answer
        game = await db(load_game)(duel.pk, 1)
        assert game.actions[1:] == [{"seat": ponter, "action": "stand"}]
        await scene.everyone_at(version + 2)
        assert not bettor.closed.is_set()

        # 3. Whatever connections the stack holds between commands are dropped too (the
        # worker's, a heartbeat's): the game plays to its end and everyone stands up.
        await db(terminate_stack_backends)()
        over = await play_to_the_end(scene.seats(), 1)
        assert over["game"]["status"] == "finished"
        await scene.wrap_up()

    try:
        await run(stack, scene, play)
    finally:
        await asyncio.to_thread(lock.close)


# --- the Celery worker killed mid-sweep, beat stopped -----------------------------------


async def test_a_worker_killed_mid_sweep_and_beat_stopped_lose_no_timeout_and_apply_none_twice(
    launch: Callable[..., Stack], trio: Table
) -> None:
    stack = await asyncio.to_thread(launch)
    scene = Scene(stack, trio.pk, ["ann", "bob", "cat"])
    lock = await asyncio.to_thread(RowLock)

    async def both_waiting() -> bool:
        return await db(stack_waiting)() >= 2

    async def play() -> None:
        await scene.connect_all()
        start = await deal_first_bank(scene.live, scene.players)
        game = start[None]["game"]
        first = game["view"]["turn"]
        version = start[None]["version"]

        # The first ponter's clock runs (5 s). The test holds the game row, so that the
        # sweep of beat that finds the deadline takes the table and then waits.
        await asyncio.to_thread(lock.hold, "tables_game", game["id"])
        assert time.time() * 1000 < game["deadline"], "dealt too late to hold the game"
        await until(
            lambda: db(stack_waiting)("tables_game"), "the sweep waiting for the game", timeout=20
        )
        assert "sweep_deadlines" in stack.worker.log_text()

        # The worker dies in the middle of that sweep; beat stops.
        await asyncio.to_thread(stack.worker.kill)
        await asyncio.to_thread(stack.beat.stop)  # type: ignore[union-attr]
        down_at = time.monotonic()

        # The ponter bets now, past his deadline, while the dead sweep's transaction
        # still holds the table. His move first plays the overdue timeout (a bet sat
        # out), which stands; the bet itself is then stale.
        bet_id = Conn.new_id(first)
        mover = scene.live[first]
        await mover.send_command("action", bet_id, action="bet", amount=STAKE, version=version)
        await until(both_waiting, "the move waiting behind the sweep", timeout=20)
        await asyncio.to_thread(lock.release)
        answer = await mover.answer(bet_id)
        assert answer["type"] == "error" and answer["code"] == "stale_version", answer
        await mover.expect(lambda f: f["type"] == "snapshot", what="the snapshot after it")
        timed_out = await scene.spectator.expect(
            lambda f: has_event(f, "sit_out", seat=first, reason="timeout"), what="the timeout"
        )
        assert timed_out["version"] == version + 1
        game1 = await db(load_game)(trio.pk, 1)
        assert game1.actions == [{"seat": first, "action": "timeout"}]
        second = timed_out["game"]["view"]["turn"]
        assert second not in (first, None) and timed_out["game"]["deadline_seat"] == second

        # Nobody sweeps while the worker and beat are down: the second ponter's deadline
        # passes and nothing happens, until beat has been stopped for 10 s.
        deadline = timed_out["game"]["deadline"] / 1000
        await until(
            lambda: time.time() > deadline + 1 and time.monotonic() - down_at >= BEAT_DOWN_SECONDS,
            "the outage's end",
            timeout=BEAT_DOWN_SECONDS + 10,
            every=0.2,
        )
        assert (await db(load_game)(trio.pk, 1)).actions == game1.actions
        assert await db(table_version)(trio.pk) == version + 1

        # They come back: the overdue timeout is played, once.
        await asyncio.to_thread(stack.worker.start)
        await asyncio.to_thread(stack.wait_for_worker, stack.worker)
        await asyncio.to_thread(stack.beat.start)  # type: ignore[union-attr]
        played = await scene.spectator.expect(
            lambda f: has_event(f, "sit_out", seat=second, reason="timeout"),
            timeout=20,
            what="the overdue timeout",
        )
        assert played["version"] == version + 2
        assert played["game"]["status"] == "finished"  # both sat out: the banker collects
        game1 = await db(load_game)(trio.pk, 1)
        assert game1.actions == [
            {"seat": first, "action": "timeout"},
            {"seat": second, "action": "timeout"},
        ]
        # The restarted worker's sweeps played exactly that one decision.
        await until(lambda: sum(sweeps(stack.worker.log_text(2)).values()) >= 1, "its sweep")
        await scene.wrap_up()
        assert sum(sweeps(stack.worker.log_text(2)).values()) == 1

    try:
        await run(stack, scene, play)
    finally:
        await asyncio.to_thread(lock.close)


# --- two workers sweeping at once ------------------------------------------------------

TABLES = 6


@pytest.fixture
def bank_tables(transactional_db: None) -> list[Table]:
    """Six banker36 tables of three players, each bank dealt (the test process deals at
    once: CLIENT_SEED_SECONDS is 0 in tests) and waiting for its first ponter."""
    tables = []
    for n in range(TABLES):
        users = create_players([f"p{n}a", f"p{n}b", f"p{n}c"])
        table = services.table_create(
            variant="banker36",
            name=f"Sweep {n}",
            created_by=users[0],
            stake=STAKE,
            entry_limit=100,
            decision_seconds=120,  # no clock runs out by itself: the test makes them due
        )
        for user in users:
            seating.seat_take(table=table, player=user)
        for user in users:
            seating.seat_ready(table=table, player=user)
        assert Game.objects.filter(table=table, status=Game.Status.PLAYING).exists()
        tables.append(table)
    return tables


def make_due(table_ids: list[int]) -> dict[int, str]:
    """Every decision in play at these tables falls due now; whose they are."""
    games = Game.objects.filter(table_id__in=table_ids, status=Game.Status.PLAYING)
    waiting = dict(games.values_list("table_id", "deadline_seat"))
    games.update(deadline=timezone.now() - datetime.timedelta(seconds=1))
    return waiting


def send_sweeps(broker: str, count: int) -> list[str]:
    """`count` sweep tasks at once, as beat sends them; their ids."""
    return send_tasks(broker, "tables.tasks.sweep_deadlines", count)


def versions(table_ids: list[int]) -> dict[int, int]:
    return dict(Table.objects.filter(pk__in=table_ids).values_list("pk", "version"))


def games_actions(table_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    return dict(Game.objects.filter(table_id__in=table_ids).values_list("table_id", "actions"))


async def test_two_workers_sweeping_at_once_apply_every_timeout_exactly_once(
    launch: Callable[..., Stack], bank_tables: list[Table]
) -> None:
    # No beat: the test sends the sweeps itself, many at once, so that both workers run
    # them at the same time.
    stack = await asyncio.to_thread(launch, workers=2, beat=False)
    ids = [t.pk for t in bank_tables]
    watchers: dict[int, list[str]] = {pk: [] for pk in ids}
    conns: list[Conn] = []

    async def play() -> None:
        for pk in ids:
            conns.append(await open_retrying("spectator", stack.port, pk, watchers[pk]))
        history: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
        for _ in range(2):
            before = await db(versions)(ids)
            waiting = await db(make_due)(ids)
            assert len(waiting) == TABLES
            tasks = await asyncio.to_thread(send_sweeps, stack.redis_url, 4 * TABLES)

            def done(tasks: list[str] = tasks) -> bool:
                finished = {}
                for worker in stack.workers:
                    finished.update(sweeps(worker.log_text(), tasks))
                return len(finished) == len(tasks)

            await until(done, "every sweep finished", timeout=60, every=0.2)
            results = [sweeps(worker.log_text(), tasks) for worker in stack.workers]
            # Both workers swept; together they played each due decision once.
            assert all(results), [len(r) for r in results]
            assert sum(sum(r.values()) for r in results) == TABLES, results
            assert await db(versions)(ids) == {pk: v + 1 for pk, v in before.items()}
            actions = await db(games_actions)(ids)
            for pk in ids:
                history[pk].append({"seat": waiting[pk], "action": "timeout"})
                assert actions[pk] == history[pk], pk
            for conn, pk in zip(conns, ids, strict=True):
                frame = await caught_up(conn, before[pk] + 1)
                assert frame["version"] == before[pk] + 1
                assert has_event(frame, "sit_out", seat=waiting[pk], reason="timeout")
        # Both ponters sat out at every table: each bank is over, the banker collected.
        for pk in ids:
            assert (await db(load_game)(pk, 1)).status == Game.Status.FINISHED
        for conn in conns:
            check_versions(conn)
        for pk in ids:
            await db(check_ledger)(pk)
            await db(check_frames)(None, watchers[pk], pk)
        assert await db(check_records)() == TABLES

    await run_scenario(stack, play(), timeout=SCENARIO_TIMEOUT, cleanup=lambda: close_all(conns))
