"""Two web processes, one table: scale-out through the Redis channel layer.

Two daphne processes on different ports share a Redis of the stack's own (the channel
layer), PostgreSQL and Celery, as they would behind a load balancer. At one `banker36`
table ann plays through one process and bob through the other, and each process has a
spectator: every viewer sees the same game, in order, without a lost or duplicated
update, whichever process the move came through. Mid-round the process of the player on
turn is killed with SIGKILL; its player and spectator reconnect to the other process
and the game is played to its end there. Afterwards the ledger adds up, every hand
record replays to its result, and every frame matches the stored game.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import global_settings

from accounts.models import User
from tables import services
from tables.models import Table
from tests.integration.live_stack import (
    PASSWORD,
    Conn,
    Stack,
    caught_up,
    check_frames,
    check_ledger,
    check_records,
    check_versions,
    close_all,
    hand_of,
    has_event,
    make_stack,
    open_retrying,
    picture,
    play_to_the_end,
    quiet,
    require_redis_server,
    run_scenario,
    shows_game,
    sign_in_async,
    stack_env,
    start_stack,
    table_version,
)

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

STAKE = 10
DECISION_SECONDS = 60  # no clock runs out: the players move at once
SCENARIO_TIMEOUT = 90.0


@pytest.fixture
def stack(postgres: None, transactional_db: None, tmp_path: Path) -> Iterator[Stack]:
    require_redis_server()
    env = stack_env(
        "",  # the stack's own Redis
        # Long enough that the players' client seeds deal the bank, not the clock.
        CLIENT_SEED_SECONDS="5",
        # No next bank while the test is running: the game is played, then both stand.
        GAME_INTERLUDE_SECONDS="600",
    )
    processes = start_stack(make_stack(env, tmp_path, webs=2, private_redis=True))
    try:
        yield processes
    finally:
        processes.stop()


@pytest.fixture
def table(transactional_db: None, settings: Any) -> Table:
    # Passwords hashed as daphne checks them (the suite's fast MD5 hasher is test-only).
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    for name in ("ann", "bob"):
        User.objects.create_user(name, email=f"{name}@example.com", password=PASSWORD)
    return services.table_create(
        variant="banker36",
        name="Two processes",
        created_by=User.objects.get(username="ann"),
        stake=STAKE,
        entry_limit=100,
        decision_seconds=DECISION_SECONDS,
        reconnect_grace_seconds=30,
    )


async def test_players_on_two_web_processes_see_one_game_and_survive_one_dying(
    stack: Stack, table: Table
) -> None:
    conns: list[Conn] = []
    await run_scenario(
        stack,
        _play(stack, table.pk, conns),
        timeout=SCENARIO_TIMEOUT,
        cleanup=lambda: close_all(conns),
    )


async def _play(stack: Stack, table_id: int, conns: list[Conn]) -> None:
    db = database_sync_to_async
    a, b = stack.ports
    home = {"ann": 0, "bob": 1, "watcher-a": 0, "watcher-b": 1}  # which process
    cookies = {"ann": await sign_in_async(a, "ann"), "bob": await sign_in_async(b, "bob")}
    seen: dict[str, list[str]] = {name: [] for name in home}

    async def open_conn(name: str, process: int) -> Conn:
        home[name] = process
        conn = await open_retrying(
            name, stack.ports[process], table_id, seen[name], cookies.get(name)
        )
        conns.append(conn)
        return conn

    live = {name: await open_conn(name, process) for name, process in home.items()}

    # Each player sits and says ready through their own process; the announcement and
    # the deal that follows the client seeds reach every viewer on both.
    for name in ("ann", "bob"):
        assert (await live[name].command("sit"))["seat"] == name
    for name in ("ann", "bob"):
        await live[name].command("ready")
    for conn in live.values():
        await conn.expect(
            lambda f: (f.get("table") or {}).get("pending") is not None, what="the announcement"
        )
    for name in ("ann", "bob"):
        await live[name].command("client_seed", seed=f"{name}-two-processes")
    start = {name: await conn.expect(shows_game(1), what="the deal") for name, conn in live.items()}
    assert len({f["version"] for f in start.values()}) == 1
    assert start["watcher-a"] == start["watcher-b"]  # one broadcast, through both processes
    view = start["watcher-a"]["game"]["view"]
    ponter = view["turn"]
    banker = view["banker"]
    assert {ponter, banker} == {"ann", "bob"}

    # The ponter bets through his process; everyone, on both, sees it at once.
    ack = await live[ponter].command(
        "action", action="bet", amount=STAKE, version=live[ponter].version
    )
    for conn in live.values():
        bet = await caught_up(conn, ack["version"])
        assert bet["version"] == ack["version"] and has_event(bet, "bet", seat=ponter)
    mine = picture(live[ponter])["game"]["view"]
    assert mine["turn"] == ponter and [a["action"] for a in mine["actions"]] == ["hit", "stand"]
    card = hand_of(mine, ponter)["cards"]

    # Mid-decision, the ponter's process dies. His socket and its spectator's close; both
    # reconnect to the other process and find the game as it was.
    dead = home[ponter]
    alive = 1 - dead
    gone = [name for name, process in home.items() if process == dead]
    before = {name: picture(live[name]) for name in gone}
    stack.webs[dead].kill()
    for name in gone:
        await live[name].wait_closed()
    version = await db(table_version)(table_id)
    assert version == ack["version"]
    for name in gone:
        live[name] = await open_conn(name, alive)
        snap = live[name].snapshot
        assert snap["version"] == version
        assert snap["game"]["view"] == before[name]["game"]["view"]
    assert hand_of(live[ponter].snapshot["game"]["view"], ponter)["cards"] == card
    # The surviving process's viewers saw nothing happen meanwhile.
    for name in home:
        if name not in gone:
            assert picture(live[name])["version"] == version

    # The game is finished on the surviving process.
    over = await play_to_the_end({"ann": live["ann"], "bob": live["bob"]}, 1)
    assert over["game"]["status"] == "finished"
    for name in ("ann", "bob"):
        await live[name].command("stand")
    for _ in range(100):
        if await db(quiet)(table_id):
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError("the table did not empty")

    # Every viewer, on either process, converged on the table's last version, and got
    # every version in order: none lost, none twice (or a gap resynced, as §7 says).
    final = await db(table_version)(table_id)
    for conn in live.values():
        assert (await caught_up(conn, final))["version"] == final
    for conn in conns:
        check_versions(conn)
    # The spectators were sent the same frame for every version both got.
    spectators: dict[int, str] = {}
    for name in ("watcher-a", "watcher-b"):
        for text in seen[name]:
            frame = json.loads(text)
            if frame["type"] == "update":
                assert spectators.setdefault(frame["version"], text) == text, frame["version"]
    assert set(range(start["ann"]["version"] + 1, final + 1)) <= set(spectators)

    games = await db(check_ledger)(table_id)
    assert [g.number for g in games] == [1]
    assert await db(check_records)() == 1
    hidden = {
        name: await db(check_frames)(None if name.startswith("watcher") else name, frames, table_id)
        for name, frames in seen.items()
    }
    assert hidden["watcher-a"] >= 1 and hidden["watcher-b"] >= 1, hidden
