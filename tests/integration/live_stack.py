"""Real clients and the database's checks for the integration tests (tests/integration),
on the production stack that `benchmarks.live.stack.Stack` runs as subprocesses.

`stack_env` points a stack at pytest-django's test database (PostgreSQL) and passes the
test process's environment on whole, so that the processes inherit what the test
runner gave this one (under pytest-xdist, CHANNEL_LAYER_PREFIX and a REDIS_URL of the
worker's own: config/test_settings.py); `make_stack` builds a stack whose workers run as
the tests need them, `start_stack` starts it or fails the test with every process's log.
`sign_in` signs a user in through the real login form; `Conn` is a real WebSocket to a
table that keeps every frame it got. `send_tasks` sends Celery tasks as beat does and
`task_results` reads what a worker's log says they returned; `RowLock` holds rows from a
connection of the test's own, so that a process of the stack waits for them in the
middle of its transaction (to be killed there, say), and `stack_waiting` sees it wait.
The checks at the end read the database: the chip ledger adds up, every hand record
replays to its result, and every frame a viewer got is what the stored game showed at
that version.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from celery import Celery
from django.db import connection
from django.db.models import Sum
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from accounts.models import Account, LedgerEntry, User
from accounts.services import GRANTS_ACCOUNT_CODE, WELCOME_GRANT_CHIPS
from benchmarks import http_login
from benchmarks.live.stack import Stack
from games import engine
from games.record import replay
from play.models import Game
from play.services import records
from tables.models import Table
from tests.contract.frames import table_frame_problem

PASSWORD = "Live-Table-Pass-42"
FRAME_TIMEOUT = 10.0  # one expected frame
WS_TIMEOUT = 10.0  # opening or closing a socket, sending a message
HTTP_TIMEOUT = 10.0

Frame = dict[str, Any]
COMMAND_IDS = itertools.count(1)


# --- the stack -------------------------------------------------------------------------

# What the tests' workers run with: one task at a time in the worker's own process (what
# a test counts in its log is what that process did), and none of the chatter between
# workers that would only slow their start.
WORKER_OPTIONS = ("--pool=solo", "--without-gossip", "--without-mingle", "--without-heartbeat")


def require_redis_server() -> None:
    """A private Redis needs the `redis-server` program (CI's machine has it)."""
    if shutil.which("redis-server") is None:
        what = "no redis-server program on PATH (for a private Redis)"
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(f"REQUIRE_SERVICES=1 but {what}", pytrace=False)
        pytest.skip(what)


def _database_url() -> str:
    """The test database as a URL, so that the subprocesses use it too."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = quote(db["PASSWORD"] or "", safe="")
    auth = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = db["HOST"] or "127.0.0.1"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


# The stack's database connections carry this application name (libpq's PGAPPNAME), so
# that a test can find them, and only them, in pg_stat_activity.
STACK_APPLICATION_NAME = "twentyone-live-stack"


def stack_env(redis_url: str, **settings: str) -> dict[str, str]:
    """The environment of the stack's processes: the test database, `redis_url`, no
    embedded ticker (beat sweeps), and `settings` (CLIENT_SEED_SECONDS="2", …)."""
    return {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        "DEBUG": "1",
        "DEADLINE_TICKER": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        "PGAPPNAME": STACK_APPLICATION_NAME,
        **settings,
    }


def make_stack(env: dict[str, str], logs: Path, **options: Any) -> Stack:
    """A stack whose workers run as the tests need them (`WORKER_OPTIONS`); `options` as
    `Stack` takes them (webs, workers, beat, private_redis)."""
    return Stack(env, logs, worker_options=WORKER_OPTIONS, **options)


def start_stack(stack: Stack) -> Stack:
    """Start it, or fail the test with every process's log."""
    try:
        stack.start()
    except AssertionError as error:
        stack.stop()
        pytest.fail(f"{error}\n{stack.logs()}", pytrace=False)
    return stack


# --- Celery, driven from the test ---------------------------------------------------------


def send_tasks(broker: str, task: str, count: int = 1) -> list[str]:
    """Send `count` of the task named `task` at once, as beat sends them; their ids."""
    client = Celery("tests", broker=broker, set_as_current=False)
    try:
        return [client.send_task(task).id for _ in range(count)]
    finally:
        client.close()


def task_results(worker_log: str, task: str, ids: Iterable[str] | None = None) -> dict[str, int]:
    """The runs of `task` (its name's last part: `sweep_deadlines`) a worker's log says
    finished, by task id, with the number each returned (only `ids`, if given)."""
    found = {
        run: int(value)
        for run, value in re.findall(
            rf"\.{re.escape(task)}\[([-0-9a-f]+)\] succeeded in \S+: (\d+)", worker_log
        )
    }
    if ids is None:
        return found
    wanted = set(ids)
    return {k: v for k, v in found.items() if k in wanted}


# --- the database, held and watched from outside the stack ------------------------------


def _conninfo() -> dict[str, Any]:
    settings = connection.settings_dict
    return {
        "dbname": settings["NAME"],
        "user": settings["USER"] or None,
        "password": settings["PASSWORD"] or None,
        "host": settings["HOST"] or "127.0.0.1",
        "port": settings["PORT"] or None,
        "application_name": "twentyone-test-lock",
    }


class RowLock:
    """A transaction of the test's own, on its own connection, holding row locks: a
    process of the stack that needs one of the rows waits, in the middle of its
    transaction, until the test lets go (or kills it there)."""

    def __init__(self) -> None:
        self.conn = psycopg.connect(**_conninfo(), autocommit=False)

    def hold(self, table: str, pk: int) -> None:
        with self.conn.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE", [pk])
            assert cursor.fetchone() is not None

    def hold_writes(self, table: str) -> None:
        """Every write to `table` waits (it may still be read)."""
        with self.conn.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {table} IN SHARE MODE")

    def release(self) -> None:
        self.conn.rollback()

    def close(self) -> None:
        self.conn.close()


def stack_waiting(on: str = "") -> int:
    """The stack's connections to this test database that wait for a lock (their
    statement naming `on`)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = %s AND wait_event_type = 'Lock' AND query ILIKE %s",
            [STACK_APPLICATION_NAME, f"%{on}%"],
        )
        return int(cursor.fetchone()[0])


def stack_activity() -> list[tuple[str, str, str]]:
    """What each of the stack's connections to this test database is doing: its state,
    what it waits for and its statement (for a failing test's message)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT state, coalesce(wait_event_type, ''), left(query, 300) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [STACK_APPLICATION_NAME],
        )
        return [tuple(row) for row in cursor.fetchall()]


def stack_connections() -> int:
    """The stack's connections to this test database (a killed process's stay until
    PostgreSQL notices that their client is gone)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = %s",
            [STACK_APPLICATION_NAME],
        )
        return int(cursor.fetchone()[0])


# --- HTTP: the real login form ---------------------------------------------------------


def sign_in(port: int, username: str) -> str:
    return http_login.sign_in(port, username, PASSWORD, timeout=HTTP_TIMEOUT)


async def sign_in_async(port: int, username: str) -> str:
    return await asyncio.wait_for(asyncio.to_thread(sign_in, port, username), 2 * HTTP_TIMEOUT)


# --- WebSocket clients -----------------------------------------------------------------


class Conn:
    """One real WebSocket to the table. A reader task keeps every frame, raw and parsed.

    As the protocol asks of a client (§7), an `update` that skips a version is answered
    with a `snapshot` request; `check_versions` then checks that one came."""

    def __init__(self, name: str, ws: ClientConnection, sink: list[str]) -> None:
        self.name, self.ws, self.sink = name, ws, sink
        self.raw: list[str] = []
        self.frames: list[Frame] = []
        self.snapshot: Frame = {}
        self.looked_at = 0  # frames expect() has gone past
        self.held: int | None = None  # the version of the last picture applied (§7)
        self.resyncs = 0
        # Frames the protocol does not describe (tests/contract/frames.py), with why:
        # the reader task cannot fail the test itself, so `expect` does.
        self.undescribed: list[str] = []
        self._news = asyncio.Event()
        self.closed = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(
        cls, name: str, port: int, table_id: int, sink: list[str], cookie: str | None = None
    ) -> Conn:
        headers = {"Origin": f"http://127.0.0.1:{port}"}
        if cookie:
            headers["Cookie"] = cookie
        ws = await asyncio.wait_for(
            connect(
                f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
                additional_headers=headers,
                open_timeout=WS_TIMEOUT,
                close_timeout=2,
                ping_interval=None,
                proxy=None,
            ),
            WS_TIMEOUT + 2,
        )
        conn = cls(name, ws, sink)
        conn.snapshot = await conn.expect(lambda f: f["type"] == "snapshot", what="a snapshot")
        return conn

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                assert isinstance(text, str)
                self.raw.append(text)
                self.sink.append(text)
                problem = table_frame_problem(text)
                if problem is not None:
                    self.undescribed.append(f"{problem}\n{text}")
                frame = json.loads(text)
                self.frames.append(frame)
                await self._follow(frame)
                self._news.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()
            self._news.set()

    async def _follow(self, frame: Frame) -> None:
        if frame["type"] == "snapshot":
            self.held = frame["version"]
        elif frame["type"] == "update" and self.held is not None:
            if frame["version"] == self.held + 1:
                self.held = frame["version"]
            elif frame["version"] > self.held + 1:
                self.held = None  # until the snapshot asked for comes
                self.resyncs += 1
                with contextlib.suppress(ConnectionClosed):
                    await self.ws.send(json.dumps({"type": "snapshot"}))

    @property
    def version(self) -> int:
        return max(f["version"] for f in self.frames if f.get("version") is not None)

    async def expect(
        self, predicate: Callable[[Frame], bool], *, timeout: float = FRAME_TIMEOUT, what: str
    ) -> Frame:
        """The next frame (after those already looked at) that matches."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            self._news.clear()
            assert not self.undescribed, (
                f"{self.name}: a table frame the protocol does not describe: {self.undescribed[0]}"
            )
            while self.looked_at < len(self.frames):
                frame = self.frames[self.looked_at]
                self.looked_at += 1
                if predicate(frame):
                    return frame
            if self.closed.is_set():
                raise AssertionError(f"{self.name}: the socket closed before {what}")
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(
                    f"{self.name}: no {what} within {timeout:.0f} s; last: {self.raw[-2:]}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), left)

    @staticmethod
    def new_id(name: str) -> str:
        # Unique per user and table across connections: the server answers a known id
        # with its first outcome ("repeat") and does nothing.
        return f"{name}-{next(COMMAND_IDS)}"

    async def send_command(self, kind: str, cid: str, **fields: Any) -> None:
        message = json.dumps({"type": kind, "id": cid, **fields})
        await asyncio.wait_for(self.ws.send(message), WS_TIMEOUT)

    async def answer(self, cid: str, *, timeout: float = FRAME_TIMEOUT, what: str = "") -> Frame:
        return await self.expect(
            lambda f: f.get("id") == cid and f["type"] in ("ack", "error"),
            timeout=timeout,
            what=what or f"the answer to {cid}",
        )

    async def request(
        self, kind: str, *, cid: str | None = None, timeout: float = FRAME_TIMEOUT, **fields: Any
    ) -> Frame:
        """Send a command (with a fresh id unless `cid` is given); its ack or error."""
        cid = cid or self.new_id(self.name)
        await self.send_command(kind, cid, **fields)
        return await self.answer(cid, timeout=timeout, what=f"the answer to {kind}")

    async def command(self, kind: str, **fields: Any) -> Frame:
        """Send a command with a fresh id; its ack (a refusal fails the test)."""
        answer = await self.request(kind, **fields)
        assert answer["type"] == "ack", f"{self.name}: {kind} {fields} refused: {answer}"
        return answer

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), WS_TIMEOUT)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.reader, WS_TIMEOUT)

    async def wait_closed(self, timeout: float = WS_TIMEOUT) -> None:
        await asyncio.wait_for(self.closed.wait(), timeout)


async def run_scenario(
    stack: Stack,
    play: Coroutine[Any, Any, None],
    *,
    timeout: float,
    cleanup: Callable[[], Awaitable[None]],
) -> None:
    """Run a scenario against the stack within `timeout`: the processes' logs are printed
    if it fails, and `cleanup` (closing its sockets) runs whatever happens."""
    try:
        await asyncio.wait_for(play, timeout)
    except BaseException:
        print(stack.logs())
        raise
    finally:
        await cleanup()


async def close_all(conns: Iterable[Conn]) -> None:
    for conn in list(conns):
        await conn.close()


def game_of(frame: Frame) -> dict[str, Any] | None:
    return frame.get("game") if frame.get("type") in ("snapshot", "update") else None


def shows_game(number: int, status: str = "playing") -> Callable[[Frame], bool]:
    def check(frame: Frame) -> bool:
        game = game_of(frame)
        return game is not None and game["number"] == number and game["status"] == status

    return check


def has_event(frame: Frame, kind: str, **match: Any) -> bool:
    return any(
        event.get("type") == kind and all(event.get(k) == v for k, v in match.items())
        for event in frame.get("events") or ()
    )


def hand_of(view: dict[str, Any], seat: str) -> dict[str, Any]:
    return next(hand for hand in view["circle"]["hands"] if hand["seat"] == seat)


def epoch_ms(moment: Any) -> int:
    return int(moment.timestamp() * 1000)


def check_versions(conn: Conn) -> int:
    """What the connection got keeps the protocol's order (§7): every `update` after the
    latest picture is its next version, no version comes twice, and a skipped version is
    followed by a snapshot that covers it. Returns how many resyncs it needed."""
    held: int | None = None
    waiting: int | None = None  # the highest version a resync must cover
    seen: set[int] = set()
    gaps = 0
    for frame in conn.frames:
        kind, version = frame["type"], frame.get("version")
        if kind == "snapshot":
            assert held is None or version >= held, f"{conn.name}: a snapshot went back"
            assert waiting is None or version >= waiting, f"{conn.name}: resync too old"
            held, waiting = version, None
        elif kind == "update":
            assert version not in seen, f"{conn.name}: version {version} came twice"
            seen.add(version)
            assert held is not None or waiting is not None, f"{conn.name}: update first"
            if waiting is not None:
                waiting = max(waiting, version)
            elif version == held + 1:
                held = version
            elif version > held + 1:
                gaps += 1
                waiting = version
            # version <= held: already in the snapshot just applied (§7); ignored.
    assert waiting is None, f"{conn.name}: a gap before version {waiting} never resynced"
    return gaps


async def open_retrying(
    name: str,
    port: int,
    table_id: int,
    sink: list[str],
    cookie: str | None = None,
    *,
    timeout: float = 30.0,
) -> Conn:
    """Connect as a client does after losing its socket: again and again (a refused or
    dropped handshake, a socket closed before its snapshot) until a snapshot comes."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        try:
            return await Conn.open(name, port, table_id, sink, cookie)
        except (OSError, AssertionError, ConnectionClosed, TimeoutError) as error:
            if loop.time() > end:
                raise AssertionError(f"{name} could not reconnect: {error!r}") from error
            await asyncio.sleep(0.2)  # a client's reconnect backoff


def picture(conn: Conn) -> Frame:
    """The last snapshot or update the connection got (the newest version)."""
    frames = [f for f in conn.frames if f["type"] in ("snapshot", "update")]
    return max(reversed(frames), key=lambda f: f["version"])


async def caught_up(conn: Conn, version: int, *, timeout: float = FRAME_TIMEOUT) -> Frame:
    """Wait until the connection holds a picture of at least `version`; that picture."""
    if picture(conn)["version"] < version:
        await conn.expect(
            lambda f: f["type"] in ("snapshot", "update") and f["version"] >= version,
            timeout=timeout,
            what=f"version {version}",
        )
    return picture(conn)


def banker36_move(view: dict[str, Any], seat: str) -> dict[str, Any]:
    """A plain player's move: the smallest bet, then another card up to 14."""
    offers = view["actions"]
    if offers[0]["action"] == "bet":
        return {"action": "bet", "amount": min(offers[0]["amounts"])}
    return {"action": "hit" if hand_of(view, seat)["total"] <= 14 else "stand"}


async def play_to_the_end(
    players: dict[str, Conn], number: int, *, moves: int = 40, timeout: float = 60.0
) -> Frame:
    """Play game `number` of a banker36 table to its end, each seat from its own socket
    (`players`, by seat id), always on the version it has seen; the frame that ended it."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    for _ in range(moves):
        newest = max((picture(c) for c in players.values()), key=lambda f: f["version"])
        game = game_of(newest)
        assert game is not None and game["number"] == number, newest
        if game["status"] != "playing":
            return newest
        seat = game["view"]["turn"]
        conn = players[seat]
        mine = await caught_up(conn, newest["version"], timeout=max(0.1, end - loop.time()))
        move = banker36_move(mine["game"]["view"], seat)
        ack = await conn.command("action", version=mine["version"], **move)
        for other in players.values():
            await caught_up(other, ack["version"], timeout=max(0.1, end - loop.time()))
    raise AssertionError(f"game {number} did not end within {moves} moves")


async def deal_first_bank(live: dict[Any, Conn], players: list[str]) -> dict[Any, Frame]:
    """The players sit and say ready; the bank is announced and every player's client
    sends its client seed, as the page does; the frame of the deal, per viewer."""
    for name in players:
        assert (await live[name].command("sit"))["seat"] == name
    for name in players:
        await live[name].command("ready")
    for conn in live.values():
        await conn.expect(
            lambda f: (f.get("table") or {}).get("pending") is not None, what="the announcement"
        )
    for name in players:
        await live[name].command("client_seed", seed=f"{name}-client-seed")
    return {name: await conn.expect(shows_game(1), what="the deal") for name, conn in live.items()}


async def until(
    check: Callable[[], Any], what: str, *, timeout: float = FRAME_TIMEOUT, every: float = 0.05
) -> Any:
    """Poll an (async) condition until it holds; its value."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > end:
            raise AssertionError(f"no {what} within {timeout:.0f} s")
        await asyncio.sleep(every)


# --- the database, read from the test --------------------------------------------------


def load_game(table_id: int, number: int) -> Game:
    return Game.objects.select_related("table").get(table_id=table_id, number=number)


def table_version(table_id: int) -> int:
    return Table.objects.values_list("version", flat=True).get(pk=table_id)


def chips(game_pk: int) -> dict[str, int]:
    """Each player's wallet and the game's escrow, by seat id; raises if not conserved."""
    game = Game.objects.get(pk=game_pk)
    held: dict[str, int] = {}
    for player in game.players:
        held[player["id"]] = Account.objects.get(
            owner_id=player["user"], kind=Account.Kind.PLAYER
        ).balance
    held["escrow"] = Account.objects.get(code=f"escrow:game:{game.pk}").balance
    assert_conserved()
    return held


def assert_conserved() -> None:
    held = Account.objects.exclude(kind=Account.Kind.SYSTEM).aggregate(s=Sum("balance"))["s"]
    granted = -Account.objects.get(code=GRANTS_ACCOUNT_CODE).balance
    assert held == granted, f"wallets + escrow = {held}, but {granted} were granted"


def quiet(table_id: int) -> bool:
    table = Table.objects.get(pk=table_id)
    return not table.seats.exists() and not table.games.filter(status="playing").exists()


def check_ledger(table_id: int) -> list[Game]:
    """Every game over, its record replaying to its result, its escrow empty, its ledger
    entries adding up to its deltas; every wallet the welcome grant plus its deltas; and
    wallets plus escrow equal to what was granted."""
    games = list(Game.objects.filter(table_id=table_id).select_related("table").order_by("number"))
    assert games and all(g.status == Game.Status.FINISHED for g in games), games
    expected: dict[int, int] = {}
    for game in games:
        assert replay(records.game_record(game))["result"] == game.result
        deltas = game.result["deltas"]
        assert sum(deltas.values()) == 0
        escrow = Account.objects.get(code=f"escrow:game:{game.pk}")
        assert escrow.balance == 0, f"game {game.number}: {escrow.balance} left in escrow"
        users = {p["id"]: p["user"] for p in game.players}
        net = dict.fromkeys(users.values(), 0)
        entries = LedgerEntry.objects.filter(game=game).select_related("source", "destination")
        assert entries.exists()
        for entry in entries:
            if entry.source.kind == Account.Kind.PLAYER:
                assert entry.destination_id == escrow.pk
                assert entry.reason == LedgerEntry.Reason.STAKE
                net[entry.source.owner_id] -= entry.amount
            else:
                assert entry.source_id == escrow.pk
                assert entry.reason == LedgerEntry.Reason.PAYOUT
                net[entry.destination.owner_id] += entry.amount
        assert net == {users[seat]: delta for seat, delta in deltas.items()}, game.number
        for seat, delta in deltas.items():
            expected[users[seat]] = expected.get(users[seat], WELCOME_GRANT_CHIPS) + delta
    wallets = dict(
        Account.objects.filter(kind=Account.Kind.PLAYER, owner_id__in=expected).values_list(
            "owner_id", "balance"
        )
    )
    assert wallets == expected
    assert not Account.objects.filter(kind=Account.Kind.ESCROW).exclude(balance=0).exists()
    assert_conserved()
    return games


def create_players(names: list[str]) -> list[User]:
    """Users whose passwords daphne checks with the real hasher (call it with the
    `settings` fixture's PASSWORD_HASHERS set to Django's defaults)."""
    return [
        User.objects.create_user(name, email=f"{name}@example.com", password=PASSWORD)
        for name in names
    ]


def check_records() -> int:
    """Every stored game whose record is over replays to its stored result; the number
    checked."""
    games = Game.objects.exclude(status=Game.Status.PLAYING).select_related("table")
    for game in games:
        assert replay(records.game_record(game))["result"] == game.result, game.pk
    return len(games)


CARD = re.compile(r"^[2-9TJQKA][SHDC]$")


def card_strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(card_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_strings(v) for v in value)) if value else set()
    return set()


def check_frames(viewer: str | None, raw_frames: list[str], table_id: int) -> int:
    """Every game frame a viewer got shows exactly engine.view of the stored game at that
    version, holds no card beyond it and its events, no other player's card before his
    duel is settled, and no seed before its game is over. Returns how many frames held
    a card hidden from the viewer (so the check is not vacuous)."""
    games = {g.number: g for g in Game.objects.filter(table_id=table_id).select_related("table")}
    events = {(g.number, e.version): e.events for g in games.values() for e in g.events.all()}
    states: dict[tuple[int, int], dict[str, Any]] = {}

    def state_at(game: Game, version: int) -> dict[str, Any]:
        if (game.number, version) not in states:
            record = records.game_record(game)
            state, _ = engine.new_game(
                record["variant"],
                seats=record["seats"],
                options=record["options"],
                first_banker=record.get("first_banker"),
                seed=record["seed"],
            )
            for action in record["actions"][:version]:
                state, _ = engine.apply(state, action)
            assert state["version"] == version
            states[game.number, version] = state
        return states[game.number, version]

    hiding = 0
    for text in raw_frames:
        frame = json.loads(text)
        shown = game_of(frame)
        for game in games.values():
            if game.seed in text:
                assert shown is not None and shown["number"] == game.number, text
                assert shown["status"] != "playing", f"{viewer}: seed of a game in play: {text}"
        if shown is None:
            continue
        if viewer is None:
            assert frame["you"]["seat"] is None
        game = games[shown["number"]]
        if shown["status"] == "playing":
            assert shown["seed"] is None
        seat = frame["you"]["seat"] if frame["you"]["seat"] in game.seat_ids else None
        version = shown["view"]["version"]
        state = state_at(game, version)
        expected = engine.view(state, seat)
        if shown["status"] != "playing":  # a game that is over has no one to act
            expected.update(turn=None, actions=[])
        assert shown["view"] == expected, f"{viewer}: view differs from the stored game"
        allowed = card_strings(shown["view"])
        if frame["type"] == "update":
            allowed |= card_strings(engine.events_for(events[game.number, version], seat))
        found = card_strings(frame)
        assert found <= allowed, f"{viewer} was sent {found - allowed} in {text}"
        circle = state["circle"]
        private = set()
        if circle is not None:
            for other, cards in circle["hands"].items():
                if other != seat and circle["status"][other] != "settled":
                    private |= set(cards)
        for card in private:
            assert f'"{card}"' not in text, f"{viewer} saw {card} before its duel settled"
        hiding += bool(private)
    return hiding
