"""A live `banker36` table against real processes, as CI runs them.

daphne, a Celery worker and Celery beat run as subprocesses on pytest-django's test
database (PostgreSQL) and Redis. Two players sign in through the real login form and
play over real WebSockets while an anonymous spectator watches: a decision times out
and beat's sweep (run by the worker) plays it, a player drops and reconnects within the
reconnect grace, daphne is killed with SIGKILL mid-round and restarted, and beat opens
the next bank after the interlude. Afterwards the chip ledger, the hand records and every
frame each viewer got (the spectator's above all) are checked against the database.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import global_settings

from accounts.models import User
from accounts.services import WELCOME_GRANT_CHIPS
from games import fairness
from games.record import replay
from play.models import Game
from play.services import records
from tables import services
from tables.models import Table
from tests.integration.live_stack import (
    HTTP_TIMEOUT,
    PASSWORD,
    Conn,
    Stack,
    check_frames,
    check_ledger,
    chips,
    close_all,
    epoch_ms,
    game_of,
    hand_of,
    has_event,
    load_game,
    make_stack,
    quiet,
    run_scenario,
    shows_game,
    sign_in,
    stack_env,
    table_version,
)

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

STAKE = 10
DECISION_SECONDS = 5  # the table's minimum
GRACE_SECONDS = 15  # room for a reconnect and a daphne restart on a loaded machine
INTERLUDE_SECONDS = 1
SCENARIO_TIMEOUT = 120.0  # the whole game, whatever happens


@pytest.fixture
def stack(
    postgres: None, redis_url: str, transactional_db: None, tmp_path: Path
) -> Iterator[Stack]:
    # transactional_db: what the test writes is committed, so the subprocesses read it;
    # requested before this fixture starts them, it is flushed only after they stop.
    env = stack_env(
        redis_url,
        GAME_INTERLUDE_SECONDS=str(INTERLUDE_SECONDS),
        # Long enough that bank 1 is dealt by the clients' seeds, not by the clock;
        # bank 2's announcement (nobody sends seeds) is dealt by beat at its end.
        CLIENT_SEED_SECONDS="2",
    )
    processes = make_stack(env, tmp_path)
    try:
        try:
            processes.start()
        except AssertionError as error:
            pytest.fail(f"{error}\n{processes.logs()}", pytrace=False)
        yield processes
    finally:
        processes.stop()


@pytest.fixture
def table(transactional_db: None, settings: Any) -> Table:
    # Passwords hashed as daphne checks them (the suite's fast MD5 hasher is test-only).
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    for name in ("ann", "bob"):
        User.objects.create_user(name, email=f"{name}@example.com", password=PASSWORD)
    host = User.objects.get(username="ann")
    return services.table_create(
        variant="banker36",
        name="Integration",
        created_by=host,
        stake=STAKE,
        entry_limit=100,
        decision_seconds=DECISION_SECONDS,
        reconnect_grace_seconds=GRACE_SECONDS,
    )


# --- the test --------------------------------------------------------------------------


async def test_banker36_bank_with_real_daphne_celery_and_beat(stack: Stack, table: Table) -> None:
    conns: list[Conn] = []
    await run_scenario(
        stack,
        _play(stack, table.pk, conns),
        timeout=SCENARIO_TIMEOUT,
        cleanup=lambda: close_all(conns),
    )


async def _play(stack: Stack, table_id: int, conns: list[Conn]) -> None:
    db = database_sync_to_async
    port = stack.port
    cookies = {
        name: await asyncio.wait_for(asyncio.to_thread(sign_in, port, name), 2 * HTTP_TIMEOUT)
        for name in ("ann", "bob")
    }
    seen: dict[str | None, list[str]] = {"ann": [], "bob": [], None: []}

    async def open_conn(name: str | None) -> Conn:
        cookie = cookies[name] if name else None
        conn = await Conn.open(name or "spectator", port, table_id, seen[name], cookie)
        conns.append(conn)
        return conn

    live = {name: await open_conn(name) for name in ("ann", "bob", None)}
    assert live["ann"].snapshot["you"] == {"seat": None, "in_game": False}
    assert live[None].snapshot["game"] is None

    # Sit down and say ready: the bank starts by itself.
    for name in ("ann", "bob"):
        assert (await live[name].command("sit"))["seat"] == name
    for name in ("ann", "bob"):
        await live[name].command("ready")
    # The bank is announced with its commitment before any card; each player's client
    # sends a client seed (as the page does), and the deal follows the last one.
    announced = await live[None].expect(
        lambda f: (f.get("table") or {}).get("pending") is not None, what="the announcement"
    )
    pending = announced["table"]["pending"]
    assert pending["game"] == 1 and pending["given"] == [] and announced["game"] is None
    for name in ("ann", "bob"):
        await live[name].command("client_seed", seed=f"{name}-from-the-page")
    start = {
        name: await conn.expect(shows_game(1), what="game 1 started") for name, conn in live.items()
    }
    view = start[None]["game"]["view"]
    banker = view["banker"]
    ponter = "bob" if banker == "ann" else "ann"
    commitment = start[None]["game"]["commitment"]
    assert start[None]["game"]["seed"] is None and commitment == pending["commitment"]
    assert start[None]["game"]["server_seed"] is None
    assert [c["seed"] for c in start[None]["game"]["client_seeds"]] == [
        "ann-from-the-page",
        "bob-from-the-page",
    ]
    assert view["bank"] == STAKE and start[None]["game"]["deadline_seat"] == ponter
    assert hand_of(view, ponter) == {"seat": ponter, "status": "playing", "cards": [], "hidden": 1}
    assert hand_of(start[banker]["game"]["view"], ponter)["cards"] == []
    mine = start[ponter]["game"]["view"]
    assert len(hand_of(mine, ponter)["cards"]) == 1
    # Only the whole bank (= the stake) can be bet against a bank of one stake.
    assert mine["actions"] == [{"action": "bet", "amounts": [STAKE]}]

    # The ponter bets the offered amount, naming the version he saw.
    game1 = await db(load_game)(table_id, 1)
    ack = await live[ponter].command(
        "action", action="bet", amount=STAKE, version=live[ponter].version
    )
    bet = {
        name: await conn.expect(
            lambda f: has_event(f, "bet", seat=ponter, amount=STAKE), what="the bet"
        )
        for name, conn in live.items()
    }
    assert {f["version"] for f in bet.values()} == {ack["version"]}
    assert bet[ponter]["game"]["view"]["actions"] == [{"action": "hit"}, {"action": "stand"}]
    card = hand_of(bet[ponter]["game"]["view"], ponter)["cards"]
    assert await db(chips)(game1.pk) == {
        banker: WELCOME_GRANT_CHIPS - STAKE,
        ponter: WELCOME_GRANT_CHIPS - STAKE,
        "escrow": 2 * STAKE,
    }

    # The ponter's connection drops mid-decision: the reconnect grace extends his clock.
    bet_deadline = bet[None]["game"]["deadline"]
    dropped_at = time.time()
    await live[ponter].close()
    away = await live[None].expect(lambda f: has_event(f, "away", seat=ponter), what="away")
    await live[banker].expect(lambda f: has_event(f, "away", seat=ponter), what="away")
    noticed_at = time.time()
    game1 = await db(load_game)(table_id, 1)
    assert game1.grace_version == game1.state["version"]
    graced = game1.deadline.timestamp()
    assert dropped_at + GRACE_SECONDS - 0.5 <= graced <= noticed_at + GRACE_SECONDS + 0.5
    assert epoch_ms(game1.deadline) == away["game"]["deadline"] > bet_deadline

    # He reconnects: the snapshot gives back his seat, his card, the chips and the clock.
    live[ponter] = await open_conn(ponter)
    snap = live[ponter].snapshot
    assert snap["you"] == {"seat": ponter, "in_game": True}
    assert snap["version"] == away["version"]
    seen_view = snap["game"]["view"]
    assert hand_of(seen_view, ponter)["cards"] == card == game1.state["circle"]["hands"][ponter]
    assert {s["id"]: s["chips"] for s in seen_view["seats"]} == game1.state["chips"]
    assert seen_view["circle"]["duel"] == {
        "seat": ponter,
        "bet": STAKE,
        "banker_cards": [],
        "banker_total": 0,
    }
    assert seen_view["actions"] == [{"action": "hit"}, {"action": "stand"}]
    assert snap["game"]["deadline"] == epoch_ms(game1.deadline)
    assert next(s for s in snap["table"]["seats"] if s["id"] == ponter)["connected"]

    # A second drop in the same decision gets no second grace.
    await live[ponter].close()
    await live[None].expect(
        lambda f: f["type"] == "presence" and f["seat"] == ponter and f["connected"] is False,
        what="the second drop",
    )
    again = await db(load_game)(table_id, 1)
    assert (again.deadline, again.grace_version) == (game1.deadline, game1.grace_version)
    live[ponter] = await open_conn(ponter)
    assert live[ponter].snapshot["game"]["deadline"] == epoch_ms(game1.deadline)

    # daphne dies mid-round (SIGKILL) and comes back on the same port.
    before = {name: conn.version for name, conn in live.items()}
    views = {
        name: next(game_of(f) for f in reversed(conn.frames) if game_of(f))["view"]
        for name, conn in live.items()
    }
    stack.daphne.kill()
    for conn in live.values():
        await conn.wait_closed()
    restart = await asyncio.to_thread(stack.restart_daphne)
    live = {name: await open_conn(name) for name in ("ann", "bob", None)}
    version = await db(table_version)(table_id)
    assert time.time() < graced, f"the decision ran out while daphne restarted ({restart:.1f} s)"
    for name, conn in live.items():
        assert conn.snapshot["version"] == before[name] == version
        assert conn.snapshot["game"]["view"] == views[name]
        assert conn.snapshot["game"]["deadline"] == epoch_ms(game1.deadline)
    assert await db(chips)(game1.pk) == {
        banker: WELCOME_GRANT_CHIPS - STAKE,
        ponter: WELCOME_GRANT_CHIPS - STAKE,
        "escrow": 2 * STAKE,
    }

    # Nobody moves: beat's sweep, run by the worker, plays the rules' timeout (a stand).
    wait = graced - time.time() + 8
    timed_out = {
        name: await conn.expect(
            lambda f: has_event(f, "stand", seat=ponter, timeout=True),
            timeout=wait,
            what="the timeout",
        )
        for name, conn in live.items()
    }
    assert {f["version"] for f in timed_out.values()} == {version + 1}
    game1 = await db(load_game)(table_id, 1)
    assert game1.actions == [
        {"seat": ponter, "action": "bet", "amount": STAKE},
        {"seat": ponter, "action": "timeout"},
    ]
    assert game1.status == Game.Status.FINISHED
    over = timed_out[None]["game"]
    assert over["status"] == "finished" and over["result"] == game1.result
    context = {"table": game1.table_id, "shoe": game1.number, "variant": "banker36"}
    assert over["seed"] == game1.seed and over["server_seed"] == game1.server_seed
    assert fairness.commit(over["server_seed"], context) == commitment
    assert fairness.derive(over["server_seed"], context, over["client_seeds"]) == over["seed"]
    assert replay(await db(records.game_record)(game1))["result"] == game1.result
    await asyncio.to_thread(
        stack.worker.wait_for_log, r"sweep_deadlines\[[-0-9a-f]+\] succeeded in \S+: 1\b", 10
    )
    assert "embedded deadline ticker started" not in stack.daphne.log_text()

    # After the interlude beat opens the next bank, held by the seat on the left.
    second = {
        name: await conn.expect(shows_game(2), timeout=INTERLUDE_SECONDS + 8, what="game 2")
        for name, conn in live.items()
    }
    assert second[None]["game"]["view"]["banker"] == ponter
    player, conn = banker, live[banker]
    offers = second[player]["game"]["view"]["actions"][0]["amounts"]
    move: dict[str, Any] = {"action": "bet", "amount": max(offers)}
    for _ in range(12):
        ack = await conn.command("action", version=conn.version, **move)
        frame = await conn.expect(
            lambda f, v=ack["version"]: f["type"] == "update" and f["version"] >= v,
            what="the move's update",
        )
        if has_event(frame, "settle", seat=player):
            break
        total = hand_of(frame["game"]["view"], player)["total"]
        move = {"action": "hit" if total <= 11 else "stand"}
    else:
        raise AssertionError("the duel of game 2 did not settle")
    assert frame["game"]["status"] == "finished"

    # Both stand up; once the table is quiet, the ledger must add up.
    for name in ("ann", "bob"):
        await live[name].command("stand")
    for _ in range(100):
        if await db(quiet)(table_id):
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError("the table did not empty")
    games = await db(check_ledger)(table_id)
    assert [g.number for g in games][:2] == [1, 2]

    # Every connection got every version after its snapshot, in order and without gaps.
    final = await db(table_version)(table_id)
    for conn in live.values():
        if conn.version < final:
            await conn.expect(lambda f: f.get("version") == final, what="the last version")
    for each in conns:
        base = each.snapshot["version"]
        updates = [f["version"] for f in each.frames if f["type"] == "update"]
        updates = [v for v in updates if v > base]
        assert updates == list(range(base + 1, base + 1 + len(updates))), each.name

    # What each viewer was sent matches the database and hides what it must.
    hidden = {name: await db(check_frames)(name, frames, table_id) for name, frames in seen.items()}
    assert hidden[None] >= 4 and hidden[banker] >= 3, hidden
