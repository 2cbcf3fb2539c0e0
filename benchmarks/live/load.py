"""The simulated players: users created in bulk, signed in through the real login form,
seated four to a table and playing over real WebSockets as docs/protocol.md says a client
must, at a person's pace; then the tables closed and every client's convergence, every
update's latency and every timeout's lateness read back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import http_login
from benchmarks.live.figures import Latency, RunFigures, Window, median, num, passes
from benchmarks.live.options import PASSWORD, SEATS, STAKE, VARIANTS, Options, log
from benchmarks.live.profile import PROFILE_RATE, Profile, summarize_profile
from benchmarks.live.sockets import (
    CONNECT_CONCURRENCY,
    WS_TIMEOUT,
    gather_limited,
    open_socket,
    quiesce,
)
from benchmarks.live.stack import BIN, Stack, measure

CLOSE_PAUSE = 0.04  # seconds between two tables closed at the end of a phase
SIGNIN_THREADS = 6
HTTP_TIMEOUT = 30.0  # a sign-in page, with a thousand others queued
COMMAND_IDS = itertools.count(1)


def create_players(count: int) -> list[str]:
    """Users with the welcome chips, in bulk (setup only: nothing here is measured)."""
    from django.contrib.auth.hashers import make_password
    from django.db import transaction

    from accounts.models import User
    from accounts.services import welcome_grant

    names = [f"bench{n:04d}" for n in range(1, count + 1)]
    password = make_password(PASSWORD)
    with transaction.atomic():
        users = User.objects.bulk_create(
            [
                User(username=name, email=f"{name}@bench.invalid", password=password)
                for name in names
            ]
        )
        for user in users:  # bulk_create sends no post_save: the grant's signal is skipped
            welcome_grant(user=user)
    return names


def sign_in(port: int, username: str) -> str:
    return http_login.sign_in(port, username, PASSWORD, timeout=HTTP_TIMEOUT)


def sign_in_all(port: int, names: list[str]) -> dict[str, str]:
    with ThreadPoolExecutor(SIGNIN_THREADS) as pool:
        return dict(zip(names, pool.map(lambda name: sign_in(port, name), names), strict=True))


@dataclass
class Sent:
    """An `action` a player sent."""

    player: Player
    sent: float
    version: int | None = None  # the table version its ack carried
    refused: str | None = None  # the error code, when it was refused


@dataclass
class Live:
    """The load generator's shared state for one phase of live tables."""

    port: int
    rng: random.Random
    miss: float
    pace: float = 1.0
    acting: bool = True
    actions: list[Sent] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)
    missed: int = 0
    resyncs: int = 0
    late_resyncs: int = 0  # stale clients found by a ping at the end
    frame_bytes: int = 0
    frames: int = 0
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


@dataclass
class BenchTable:
    pk: int
    variant: str
    players: list[Player] = field(default_factory=list)
    # (game number, engine version) -> the decision's deadline (epoch ms) the clients saw
    deadlines: dict[tuple[int, int], int] = field(default_factory=dict)
    final_version: int | None = None
    dealt: bool = False  # a game of this phase was seen in play


class Player:
    """One signed-in player's WebSocket to their table (docs/protocol.md §17)."""

    def __init__(
        self, live: Live, table: BenchTable, name: str, cookie: str, port: int | None = None
    ) -> None:
        self.live, self.table, self.name, self.cookie = live, table, name, cookie
        self.port = port if port is not None else live.port
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.version: int | None = None  # the version of the last picture applied
        self.first_version: int | None = None
        self.picture: dict[str, Any] = {}
        self.resyncing = False
        self.arrivals: dict[int, float] = {}  # update version -> when it arrived
        self.seeds_sent: set[int] = set()
        self.decided_on: int | None = None
        self.commands: dict[str, tuple[str, Sent | None]] = {}
        self.closed = False
        self.snapshot_seen = asyncio.Event()

    async def open(self) -> None:
        self.ws = await open_socket(self.port, f"/ws/tables/{self.table.pk}/", self.cookie)
        self.reader = asyncio.ensure_future(self._read())
        await asyncio.wait_for(self.snapshot_seen.wait(), WS_TIMEOUT)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for text in self.ws:
                now = time.monotonic()
                frame = json.loads(text)
                kind = frame.get("type")
                if kind == "update":
                    self._update(frame, now, len(text))
                elif kind == "snapshot":
                    if self.first_version is None:
                        self.first_version = frame["version"]
                    self.resyncing = False
                    if self.version is None or frame["version"] >= self.version:
                        self._apply(frame)
                    self.snapshot_seen.set()
                elif kind == "ack":
                    self._answered(frame, now)
                elif kind == "pong":
                    self._pong(frame)
                elif kind == "error":
                    self.live.errors.append((now, str(frame.get("code"))))
                    self._answered(frame, now)
        except ConnectionClosed:
            pass
        finally:
            self.closed = True

    def _update(self, frame: dict[str, Any], now: float, size: int) -> None:
        version = frame["version"]
        self.arrivals.setdefault(version, now)
        self.live.frame_bytes += size
        self.live.frames += 1
        if self.version is None or version <= self.version:
            return
        if version == self.version + 1 and not self.resyncing:
            self._apply(frame)
        elif not self.resyncing:  # a version is missing: ask for a snapshot (§7)
            self.resyncing = True
            self.live.resyncs += 1
            self.live.spawn(self._send({"type": "snapshot"}))

    def _pong(self, frame: dict[str, Any]) -> None:
        """A pong carries the table's version (§5.1): behind it, ask for a snapshot — the
        only way to notice that the last update of all never came."""
        if self.version is not None and frame["version"] > self.version and not self.resyncing:
            self.resyncing = True
            self.live.late_resyncs += 1
            self.live.spawn(self._send({"type": "snapshot"}))

    def ping(self) -> None:
        self.live.spawn(self._send({"type": "ping"}))

    def _apply(self, frame: dict[str, Any]) -> None:
        self.version = frame["version"]
        self.picture = frame
        game = frame.get("game")
        if game and game.get("status") == "playing":
            self.table.dealt = True
        if game and game.get("status") == "playing" and game.get("deadline"):
            key = (game["number"], game["view"]["version"])
            self.table.deadlines.setdefault(key, game["deadline"])
        self._maybe_act()

    def _answered(self, frame: dict[str, Any], now: float) -> None:
        entry = self.commands.pop(str(frame.get("id")), None)
        if entry is None:
            return
        _kind, sent = entry
        if sent is not None and frame["type"] == "ack":
            sent.version = frame.get("version")
        elif sent is not None:
            sent.refused = str(frame.get("code"))

    async def _send(self, message: dict[str, Any], sent: Sent | None = None) -> None:
        from websockets.exceptions import ConnectionClosed

        text = json.dumps(message)
        if self.ws is None:
            return
        try:
            if sent is not None:
                sent.sent = time.monotonic()
            await self.ws.send(text)
        except ConnectionClosed:
            self.live.errors.append((time.monotonic(), "send_on_closed_socket"))

    def command(self, kind: str, **fields: Any) -> None:
        if self.ws is None:  # its socket never opened
            return
        cid = f"c{next(COMMAND_IDS)}"
        sent = Sent(self, time.monotonic()) if kind == "action" else None
        self.commands[cid] = (kind, sent)
        if sent is not None:
            self.live.actions.append(sent)
        self.live.spawn(self._send({"type": kind, "id": cid, **fields}, sent))

    def _maybe_act(self) -> None:
        live = self.live
        if not live.acting or not self.picture:
            return
        me = self.picture["you"]["seat"]
        pending = (self.picture.get("table") or {}).get("pending")
        if (
            pending
            and me in pending["seats"]
            and me not in pending["given"]
            and pending["game"] not in self.seeds_sent
        ):
            self.seeds_sent.add(pending["game"])
            self.command("client_seed", seed=secrets.token_urlsafe(12))
        game = self.picture.get("game")
        if not game or game.get("status") != "playing":
            return
        view = game["view"]
        if view.get("turn") != me or not view.get("actions") or self.decided_on == self.version:
            return
        self.decided_on = self.version
        if live.rng.random() < live.miss:
            live.missed += 1  # left to the clock: beat plays the timeout
            return
        delay = live.rng.uniform(0.5, 2.0) * live.pace
        asyncio.get_running_loop().call_later(delay, self._act, self.version)

    def _act(self, version: int | None) -> None:
        if not self.live.acting or self.version != version or self.closed:
            return
        view = self.picture["game"]["view"]
        move = choose(view, self.picture["you"]["seat"], self.live.rng)
        self.command("action", version=version, **move)


def choose(view: dict[str, Any], me: str, rng: random.Random) -> dict[str, Any]:
    """A legal move from the view's `actions`: a person's plausible play."""
    offered = {entry["action"]: entry for entry in view["actions"]}
    if "bet" in offered:
        entry = offered["bet"]
        amount = entry["amounts"][0] if "amounts" in entry else entry["min"]
        return {"action": "bet", "amount": amount}
    total = None
    if view.get("variant") == "blackjack" and view.get("hand") is not None:
        total = view["hands"][view["hand"]]["total"]
    elif view.get("variant") == "banker36" and view.get("circle"):
        mine = next((h for h in view["circle"]["hands"] if h["seat"] == me), None)
        total = mine.get("total") if mine else None
    for rare in ("double", "split"):
        if rare in offered and rng.random() < 0.05:
            return {"action": rare}
    if "hit" in offered and "stand" in offered and total is not None:
        return {"action": "hit" if total < 16 else "stand"}
    entry = rng.choice(view["actions"])
    move = {"action": entry["action"]}
    if "amounts" in entry:
        move["amount"] = entry["amounts"][0]
    elif "min" in entry:
        move["amount" if entry["action"] == "bet" else "position"] = entry["min"]
    return move


async def profiled_run(
    stack: Stack, live: Live, seconds: float, logs: Path, players: int
) -> Profile:
    """One more run with py-spy recording daphne. --nonblocking: py-spy reads daphne's
    memory without stopping it (the default pauses it at every sample, 100 times a second,
    which would slow what it measures); a rare torn stack is the price. No --threads: the
    categories go by frames, and thread ids would only split identical stacks. --gil:
    only the thread holding the GIL is sampled, so a sample is Python at work — not a
    database thread waiting for PostgreSQL's reply in psycopg's Python code, nor a thread
    waiting for a core, which py-spy otherwise counts as busy (on a loaded machine the
    samples come to twice the process's CPU, a third of them waits for PostgreSQL)."""
    path = logs / f"daphne-{players}.txt"
    argv = [
        str(BIN / "py-spy"),
        *("record", "--pid", str(stack.daphne.pgid), "--rate", str(PROFILE_RATE)),
        *("--format", "raw", "--gil", "--nonblocking", "--duration", str(max(1, round(seconds)))),
        *("--output", str(path)),
    ]
    try:
        spy = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
    except OSError as error:
        return Profile(path, None, Counter(), PROFILE_RATE, f"py-spy did not start: {error}")
    window = await measure(stack, seconds)
    try:
        _out, err = await asyncio.wait_for(spy.communicate(), 30)
    except TimeoutError:
        spy.kill()
        err = b"py-spy did not finish"
    await asyncio.sleep(1.5)  # the run's last answers
    run = live_run_figures(live, window)
    if not path.exists():
        return Profile(path, run, Counter(), PROFILE_RATE, err.decode(errors="replace")[-500:])
    return Profile(path, run, summarize_profile(path.read_text()), PROFILE_RATE)


def create_tables(names: list[str], decision_seconds: int) -> list[tuple[int, str, list[str]]]:
    """Tables of 4 seated players each (setup, through the ORM: not measured). The first
    player of each is its host, who starts it over the socket."""
    from unittest import mock

    from django.db import transaction

    from accounts.models import User
    from lobby import broadcast
    from tables import services
    from tables.models import Seat

    users = {u.username: u for u in User.objects.filter(username__in=names)}
    made = []
    # Setup only: no lobby broadcast per table created (nobody watches the lobby here).
    with (
        mock.patch.object(broadcast, "lobby_changed", lambda *_a, **_k: None),
        transaction.atomic(),
    ):
        for index in range(len(names) // SEATS):
            group = names[index * SEATS : (index + 1) * SEATS]
            variant = VARIANTS[index % len(VARIANTS)]
            extra = {"stake": STAKE, "entry_limit": 10 * STAKE} if variant == "banker36" else {}
            table = services.table_create(
                variant=variant,
                name=f"Bench {index + 1}",
                created_by=users[group[0]],
                seat_count=SEATS,
                decision_seconds=decision_seconds,
                **extra,
            )
            Seat.objects.bulk_create(
                Seat(table=table, number=n + 1, player=users[name]) for n, name in enumerate(group)
            )
            made.append((table.pk, variant, group))
    return made


def close_tables(ids: list[int]) -> dict[int, int]:
    """Close every table (a game in play is voided): the final versions."""
    from django.db import connection

    from play.services import closing
    from tables.models import Table

    try:
        for table in Table.objects.filter(pk__in=ids).order_by("pk"):
            closing.table_close(table=table)
            # Paced like an admin at work: a burst of hundreds of closes at once would
            # overflow the channel layer (its capacity per web process) by itself.
            time.sleep(CLOSE_PAUSE)
        return dict(Table.objects.filter(pk__in=ids).values_list("pk", "version"))
    finally:
        connection.close()


def forget_presences(ids: list[int]) -> None:
    """Teardown of closed tables: the presence rows their sockets left behind. daphne
    drops the cleanup of a socket whose disconnect waited more than 10 s (its
    application_close_timeout) on a backlog; the sweep would expire those rows a minute
    later and broadcast each to the dead sockets, flooding the next phase's channel layer."""
    from django.db import connection

    from play.models import Presence

    try:
        Presence.objects.filter(table_id__in=ids).delete()
    finally:
        connection.close()


def timeouts_applied(ids: list[int]) -> list[tuple[int, int, int, float]]:
    """(table, game number, engine version, applied at epoch s) of every timeout."""
    from django.db import connection

    from play.models import GameEvent

    try:
        rows = GameEvent.objects.filter(game__table_id__in=ids, action__action="timeout")
        return [
            (table, number, version, created.timestamp())
            for table, number, version, created in rows.values_list(
                "game__table_id", "game__number", "version", "created_at"
            )
        ]
    finally:
        connection.close()


def live_run_figures(live: Live, window: Window) -> RunFigures:
    a: list[float] = []
    b: list[float] = []
    lost = refused = unanswered = answered = count = 0
    for sent in live.actions:
        if not window.start <= sent.sent < window.end:
            continue
        count += 1
        if sent.refused is not None:
            refused += 1
            continue
        if sent.version is None:
            unanswered += 1
            continue
        answered += 1
        for player in sent.player.table.players:
            if player.ws is not None and sent.version not in player.arrivals:
                lost += 1
        mine = sent.player.arrivals.get(sent.version)
        if mine is not None:
            a.append(mine - sent.sent)
        others = [
            p.arrivals.get(sent.version)
            for p in sent.player.table.players
            if p is not sent.player and p.ws is not None
        ]
        if others and all(t is not None for t in others):
            b.append(max(t for t in others if t is not None) - sent.sent)
    span = window.end - window.start
    return RunFigures(
        answered / span,
        count / span,
        Latency.of(a, b),
        refused,
        unanswered,
        lost,
        window.usage,
        span,
    )


@dataclass
class LivePhase:
    players: int
    tables: int
    not_opened: int
    runs: list[RunFigures]
    probes: list[tuple[float, list[RunFigures]]]
    converged: int
    lost: int  # over the whole phase: versions a client never got as an update
    resyncs: int
    late_resyncs: int
    errors: Counter[str]
    missed: int
    lateness_ms: list[float]
    frame_bytes: float
    seconds: float
    connect_seconds: float
    warmup_seconds: float
    dealt: int  # tables dealt when the runs began
    profile: Profile | None = None
    dealt_by_end: int | None = None  # tables dealt at least once by the end of the phase


async def live_phase(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    *,
    search: bool,
    profile_logs: Path | None = None,
) -> LivePhase:
    """Seat `names` four to a table, connect them, start the tables, measure the runs
    (and, with `search`, the saturation probes), then close the tables and check that
    every client converged to its table's final version."""
    began = time.monotonic()
    live = Live(port=stack.port, rng=random.Random(options.seed), miss=options.miss)
    made = await asyncio.to_thread(_in_thread, create_tables, names, options.decision_seconds)
    tables: list[BenchTable] = []
    for pk, variant, group in made:
        table = BenchTable(pk, variant)
        # With several web processes, a table's players are spread over them (two on
        # each of two): every change then crosses from one process to the other.
        table.players = [
            Player(live, table, name, cookies[name], stack.ports[seat % len(stack.ports)])
            for seat, name in enumerate(group)
        ]
        tables.append(table)
    players = [p for t in tables for p in t.players]
    await quiesce(stack, players[0].cookie)
    opened = await gather_limited(
        (p.open() for p in players), CONNECT_CONCURRENCY, within=options.connect_limit
    )
    failures = [r for r in opened if isinstance(r, BaseException)]
    unopened = [p for p in players if not p.snapshot_seen.is_set()]
    await gather_limited((p.close() for p in unopened), 50)
    for player in unopened:
        player.ws = None  # counted as not opened; its seat plays by the clock
    if len(unopened) > len(players) // 2:
        raise RuntimeError(
            f"{len(unopened)} of {len(players)} sockets did not open: {failures[:1]}"
        )
    connect_seconds = time.monotonic() - began
    log(f"  {len(players) - len(unopened)} sockets open after {connect_seconds:.0f} s")
    # Each host starts their table (spread over a few seconds, as tables are not all
    # opened in the same instant); every client sends its seed on the announcement. The
    # runs begin once nearly every table has been dealt (or a minute past the warm-up).
    loop = asyncio.get_running_loop()
    spread = min(options.warmup / 2, 4.0)
    for index, table in enumerate(tables):
        host = next((p for p in table.players if p.ws is not None), None)
        if host is not None:
            loop.call_later(spread * index / len(tables), host.command, "start")
    started = time.monotonic()
    while time.monotonic() - started < options.warmup + 30:
        dealt = sum(1 for t in tables if t.dealt)
        if dealt >= 0.9 * len(tables) and time.monotonic() - started >= options.warmup:
            break
        await asyncio.sleep(0.5)
    warmup_seconds = time.monotonic() - started
    dealt = sum(1 for t in tables if t.dealt)
    log(f"  {dealt}/{len(tables)} tables dealt after {warmup_seconds:.0f} s")
    step_windows = [await measure(stack, options.duration) for _ in range(options.runs)]
    waiting = sum(1 for p in players if p.resyncing)
    log(
        f"  runs done: {len(live.actions)} actions sent so far, "
        f"{sum(1 for a in live.actions if a.version is not None)} acked, "
        f"{len(live.errors)} errors, {live.resyncs} resyncs ({waiting} waiting for a snapshot)"
    )
    profile = None
    if profile_logs is not None:
        log("  profiling daphne with py-spy during one more run")
        profile = await profiled_run(
            stack, live, options.runs * options.duration, profile_logs, len(players)
        )
    probe_windows: list[tuple[float, list[Window]]] = []
    if search:
        await saturation_search(stack, live, step_windows, probe_windows, options)

    # The end: nobody acts any more, the tables close, every client must reach the final
    # version — by its updates, or by the snapshot a gap made it ask for (§7).
    live.acting = False
    await asyncio.sleep(2)
    finals = await asyncio.to_thread(close_tables, [t.pk for t in tables])
    for table in tables:
        table.final_version = finals[table.pk]
    connected = [p for p in players if p.ws is not None]
    deadline = time.monotonic() + 30
    next_ping = time.monotonic() + 2
    while time.monotonic() < deadline:
        behind = [p for p in connected if p.version != p.table.final_version]
        if not behind:
            break
        if time.monotonic() >= next_ping:  # a client sees no gap after the last update
            for player in behind:
                if not player.resyncing:
                    player.ping()
            next_ping = time.monotonic() + 4
        await asyncio.sleep(0.2)
    await asyncio.sleep(0.5)  # answers still on their way
    runs = [live_run_figures(live, w) for w in step_windows]
    probes = [(pace, [live_run_figures(live, w) for w in ws]) for pace, ws in probe_windows]
    converged = sum(1 for p in connected if p.version == p.table.final_version)
    lost = 0
    for p in connected:
        assert p.first_version is not None and p.table.final_version is not None
        lost += sum(
            1 for v in range(p.first_version + 1, p.table.final_version + 1) if v not in p.arrivals
        )
    await gather_limited((p.close() for p in connected), 200)
    await asyncio.to_thread(forget_presences, [t.pk for t in tables])
    rows = await asyncio.to_thread(timeouts_applied, [t.pk for t in tables])
    by_pk = {t.pk: t for t in tables}
    lateness = []
    for table_pk, number, version, applied in rows:
        # The decision that timed out was shown at the engine version before the timeout.
        shown = by_pk[table_pk].deadlines.get((number, version - 1))
        if shown is not None:
            lateness.append(applied * 1000 - shown)
    return LivePhase(
        players=len(players),
        tables=len(tables),
        not_opened=len(players) - len(connected),
        runs=runs,
        probes=probes,
        converged=converged,
        lost=lost,
        resyncs=live.resyncs,
        late_resyncs=live.late_resyncs,
        errors=Counter(code for _t, code in live.errors),
        missed=live.missed,
        lateness_ms=lateness,
        frame_bytes=live.frame_bytes / max(live.frames, 1),
        seconds=time.monotonic() - began,
        connect_seconds=connect_seconds,
        warmup_seconds=warmup_seconds,
        dealt=dealt,
        profile=profile,
        dealt_by_end=sum(1 for t in tables if t.dealt),
    )


FASTER = (0.5, 0.25, 0.12, 0.06, 0.03)
SLOWER = (1.5, 2.0, 3.0, 4.0)


async def saturation_search(
    stack: Stack,
    live: Live,
    step_windows: list[Window],
    probes: list[tuple[float, list[Window]]],
    options: Options,
) -> None:
    """Shorten (or lengthen) the players' think time on the same tables until the p99
    crosses 250 ms, then try once between the last pace under it and the first over."""
    await asyncio.sleep(1.5)  # the step's last late answers
    base = passes([live_run_figures(live, w) for w in step_windows])
    # Slower than 2× would let think times (up to 2 s × pace) reach the decision clock.
    slowest = 0.8 * options.decision_seconds / 2.0
    ladder = FASTER if base else tuple(p for p in SLOWER if p <= slowest)
    verdicts: dict[float, bool] = {1.0: base}

    async def probe(pace: float) -> bool:
        live.pace = pace
        await asyncio.sleep(options.settle)
        windows = [
            await measure(stack, options.saturation_duration)
            for _ in range(options.saturation_runs)
        ]
        await asyncio.sleep(1.5)
        runs = [live_run_figures(live, w) for w in windows]
        probes.append((pace, windows))
        verdicts[pace] = passes(runs)
        worst = Latency.median_of([r.latency for r in runs]).worst_p99
        rate = median(r.rate for r in runs) or 0.0
        log(f"  probe: pace {pace:g}, {rate:.1f} actions/s, p99 {num(worst)} ms")
        return verdicts[pace]

    for pace in ladder[: options.max_probes]:
        if await probe(pace) != base:
            break
    good = [p for p, ok in verdicts.items() if ok]
    bad = [p for p, ok in verdicts.items() if not ok]
    if good and bad and len(probes) < options.max_probes + 1:
        fastest_good, slowest_bad = min(good), max(bad)
        if fastest_good > slowest_bad and fastest_good / slowest_bad > 1.3:
            await probe(round(math.sqrt(fastest_good * slowest_bad), 3))
    live.pace = 1.0


def _in_thread(function: Callable[..., Any], *args: Any) -> Any:
    from django.db import connection

    try:
        return function(*args)
    finally:
        connection.close()
