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
import contextlib
import http.client
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from channels.db import database_sync_to_async
from django.conf import global_settings
from django.db import connection
from django.db.models import Sum
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from accounts.models import Account, LedgerEntry, User
from accounts.services import GRANTS_ACCOUNT_CODE, WELCOME_GRANT_CHIPS
from games import engine, fairness
from games.record import replay
from tables import services
from tables.models import Game, Table

pytestmark = [pytest.mark.services, pytest.mark.asyncio]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
if not (BIN / "daphne").exists():  # pragma: no cover - pytest run from outside the venv
    BIN = ROOT / ".venv" / "bin"

PASSWORD = "Live-Table-Pass-42"
STAKE = 10
DECISION_SECONDS = 5  # the table's minimum
GRACE_SECONDS = 15  # room for a reconnect and a daphne restart on a loaded machine
INTERLUDE_SECONDS = 1
STARTUP_TIMEOUT = 40.0  # a process's readiness
FRAME_TIMEOUT = 10.0  # one expected frame
WS_TIMEOUT = 10.0  # opening or closing a socket, sending a message
HTTP_TIMEOUT = 10.0
SCENARIO_TIMEOUT = 120.0  # the whole game, whatever happens
ASGI_APP = "config.asgi:application"

Frame = dict[str, Any]
COMMAND_IDS = itertools.count(1)


# --- processes -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Service:
    """One subprocess, restartable, each run logging to its own file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.argv, self.env, self.logs = name, argv, env, logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_files: list[Path] = []

    def start(self) -> None:
        log = self.logs / f"{self.name}-{len(self.log_files) + 1}.log"
        self.log_files.append(log)
        with log.open("wb") as out:
            # Its own session, so that a signal reaches it (and only it) by its group id.
            self.proc = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _signal(self, sig: signal.Signals) -> None:
        if self.running():
            assert self.proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        self._signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None:
            return
        self._signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def log_text(self) -> str:
        return "".join(path.read_text(errors="replace") for path in self.log_files if path.exists())

    def wait_for_log(self, pattern: str, timeout: float = STARTUP_TIMEOUT) -> re.Match[str]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.search(pattern, self.log_text())
            if found:
                return found
            if not self.running():
                raise AssertionError(f"{self.name} exited (code {self.proc and self.proc.poll()})")
            time.sleep(0.1)
        raise AssertionError(f"{self.name}: no {pattern!r} in its log within {timeout:.0f} s")


class Stack:
    """daphne, a Celery worker and Celery beat on the test database and Redis."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.port = _free_port()
        self.daphne = Service(
            "daphne",
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(self.port), ASGI_APP],
            env,
            logs,
        )
        self.worker = Service(
            "worker",
            [
                *(str(BIN / "celery"), "-A", "config", "worker", "--pool=solo"),
                *("--loglevel=info", "--without-gossip", "--without-mingle"),
                *("--without-heartbeat", "--hostname", f"integration-{uuid.uuid4().hex[:8]}@%h"),
            ],
            env,
            logs,
        )
        self.beat = Service(
            "beat",
            [
                *(str(BIN / "celery"), "-A", "config", "beat", "--loglevel=info"),
                *("--schedule", str(logs / "beat-schedule")),
            ],
            env,
            logs,
        )
        self.services = [self.daphne, self.worker, self.beat]

    def start(self) -> None:
        for service in self.services:
            service.start()
        self.wait_for_daphne()
        self.worker.wait_for_log(r"@\S+ ready\.")
        self.beat.wait_for_log(r"beat: Starting")

    def wait_for_daphne(self, timeout: float = STARTUP_TIMEOUT) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.daphne.running():
                raise AssertionError("daphne exited before answering /healthz")
            with contextlib.suppress(OSError, http.client.HTTPException):
                if _http(self.port, "GET", "/healthz")[0] == 200:
                    return
            time.sleep(0.05)
        raise AssertionError(f"daphne did not answer /healthz within {timeout:.0f} s")

    def restart_daphne(self) -> float:
        """Start daphne again on the same port; returns the seconds until it answered."""
        began = time.monotonic()
        self.daphne.start()
        self.wait_for_daphne()
        return time.monotonic() - began

    def stop(self) -> None:
        for service in reversed(self.services):
            service.stop()

    def logs(self) -> str:
        parts = []
        for service in self.services:
            tail = "\n".join(service.log_text().splitlines()[-150:])
            parts.append(f"----- {service.name} (last 150 lines) -----\n{tail}")
        return "\n".join(parts)


def _database_url() -> str:
    """The test database as a URL, so that the subprocesses use it too."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = quote(db["PASSWORD"] or "", safe="")
    auth = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = db["HOST"] or "127.0.0.1"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


@pytest.fixture
def stack(
    postgres: None, redis_url: str, transactional_db: None, tmp_path: Path
) -> Iterator[Stack]:
    # transactional_db: what the test writes is committed, so the subprocesses read it;
    # requested before this fixture starts them, it is flushed only after they stop.
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        "DEBUG": "1",
        "DEADLINE_TICKER": "0",
        "GAME_INTERLUDE_SECONDS": str(INTERLUDE_SECONDS),
        # Long enough that bank 1 is dealt by the clients' seeds, not by the clock;
        # bank 2's announcement (nobody sends seeds) is dealt by beat at its end.
        "CLIENT_SEED_SECONDS": "2",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
    }
    processes = Stack(env, tmp_path)
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


# --- HTTP: the real login form ---------------------------------------------------------


def _http(
    port: int,
    method: str,
    path: str,
    body: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        text = response.read().decode("utf-8", errors="replace")
        cookies: dict[str, str] = {}
        for header in response.headers.get_all("Set-Cookie") or []:
            jar: SimpleCookie = SimpleCookie()
            jar.load(header)
            cookies.update({name: morsel.value for name, morsel in jar.items()})
        return response.status, text, cookies
    finally:
        conn.close()


def sign_in(port: int, username: str) -> str:
    """GET /login/ for the CSRF cookie and token, POST the form; the session cookie."""
    status, page, cookies = _http(port, "GET", "/login/")
    assert status == 200, f"GET /login/ answered {status}"
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token and "csrftoken" in cookies, "the login form has no CSRF token"
    form = {"csrfmiddlewaretoken": token.group(1), "username": username, "password": PASSWORD}
    status, page, answer = _http(
        port,
        "POST",
        "/login/",
        body=urlencode(form),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookies['csrftoken']}",
        },
    )
    assert status == 302 and answer.get("sessionid"), f"{username} not signed in: {status}"
    return f"sessionid={answer['sessionid']}"


# --- WebSocket clients -----------------------------------------------------------------


class Conn:
    """One real WebSocket to the table. A reader task keeps every frame, raw and parsed."""

    def __init__(self, name: str, ws: ClientConnection, sink: list[str]) -> None:
        self.name, self.ws, self.sink = name, ws, sink
        self.raw: list[str] = []
        self.frames: list[Frame] = []
        self.snapshot: Frame = {}
        self.looked_at = 0  # frames expect() has gone past
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
                self.frames.append(json.loads(text))
                self._news.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()
            self._news.set()

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

    async def command(self, kind: str, **fields: Any) -> Frame:
        """Send a command with a fresh id; its ack (a refusal fails the test)."""
        # Unique per user and table across connections: the server answers a known id
        # with its first outcome ("repeat") and does nothing.
        cid = f"{self.name}-{next(COMMAND_IDS)}"
        message = json.dumps({"type": kind, "id": cid, **fields})
        await asyncio.wait_for(self.ws.send(message), WS_TIMEOUT)
        answer = await self.expect(
            lambda f: f.get("id") == cid and f["type"] in ("ack", "error"),
            what=f"the answer to {kind}",
        )
        assert answer["type"] == "ack", f"{self.name}: {kind} {fields} refused: {answer}"
        return answer

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), WS_TIMEOUT)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.reader, WS_TIMEOUT)

    async def wait_closed(self) -> None:
        await asyncio.wait_for(self.closed.wait(), WS_TIMEOUT)


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
    _assert_conserved()
    return held


def _assert_conserved() -> None:
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
        assert replay(services.game_record(game))["result"] == game.result
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
    _assert_conserved()
    return games


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
            record = services.game_record(game)
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


# --- the test --------------------------------------------------------------------------


async def test_banker36_bank_with_real_daphne_celery_and_beat(stack: Stack, table: Table) -> None:
    conns: list[Conn] = []
    try:
        await asyncio.wait_for(_play(stack, table.pk, conns), SCENARIO_TIMEOUT)
    except BaseException:
        print(stack.logs())
        raise
    finally:
        for conn in conns:
            await conn.close()


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
    assert replay(await db(services.game_record)(game1))["result"] == game1.result
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
