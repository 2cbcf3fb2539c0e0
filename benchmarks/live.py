"""`make bench-live`: live tables under load, next to a bare echo consumer.

Starts the production stack as real processes on this machine — daphne, a Celery worker
and Celery beat, on PostgreSQL and Redis, DEBUG off — in a database of its own (created
and dropped here) and a Redis database number of its own (flushed here, and only that
one). Creates players in bulk, signs each in once through the real login form, seats
them four to a table (`banker36` and `blackjack` alternating, every seat a person) and
plays the tables from one asyncio load generator over real WebSockets, as
docs/protocol.md says a client must: the session cookie and the site's Origin on the
handshake, a client seed for every announced game, a legal action from
`game.view.actions` sent with the table version it was decided on 0.5–2 s after the
player's turn came (× the pace), a snapshot asked for whenever a version is missing. A
few turns (`--miss`) are left to the clock, so that beat plays timeouts, whose lateness is
read back from the database: each `timeout` GameEvent's `created_at` against the deadline
the clients were shown for that decision.

Then, on the same daphne and Redis layer, with the same players' sessions, the same
number of sockets and the same message rate, a bare echo consumer (benchmarks/echo.py)
broadcasts each message to a group of 4 sockets, as a table's change goes to its 4 seats.
Its latencies are the baseline.

Steps: 100 / 400 / 1,000 connected players; then the saturation point — the highest
action rate whose p99 stays under 250 ms — searched on the 400-player tables by
shortening the think time (or lengthening it, when pace 1 is already over the limit), and
the echo's own saturation point on the same sockets (its rate doubled until p99 crosses
250 ms or over 1 % of its frames are lost, then once between).
Every figure is a median of runs (back-to-back windows on the same connected tables).
The machine is shared: the load average, the machine's CPU and the load generator's own
CPU (it runs on the same cores as what it measures) are printed with the figures.

Issue 19's targets, each printed with its verdict: daphne's CPU per accepted action (its
CPU-seconds in the runs ÷ acked actions) ≤ 2× the echo's per broadcast, at the 400-player
step; the live saturation point ≥ 50 % of the echo's; at the 1,000-player step p99 ≤ 3×
the echo's, every table dealt, timeouts applied within 0.5 s of their deadlines at p99, no
error codes but the players' own mistakes (PLAYERS_OWN_MISTAKES), every client converged.
The live stack runs on the channel layer its settings give (CHANNEL_LAYER, read back from
them, nothing set for it); then a stack started with CHANNEL_LAYER set to the other layer
runs the echo alone, at the same rates on the same sessions (--layers live skips it), for
an "echo by layer" table. Right after each stack starts, before any table exists, every
process's CPU is measured for --idle seconds ("Idle: …"). --profile samples daphne with
py-spy (raw collapsed stacks in the logs folder) during one more run of the 400-player step
(--profile-players) and prints its CPU per accepted action by category.

    python -m benchmarks.live [--quick] [--steps 100,400,1000] [--runs 3] [--duration 10]
        [--profile] [--layers both|live] [--idle 10] [--json FILE]

What is not production here (benchmarks/live_settings.py): the echo route is mounted,
passwords use a cheap hasher (sign-in speed only) and static files are not hashed. The
tables, seats and users are created through the ORM (setup, not measured); every game
is started, seeded and played over the sockets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import itertools
import json
import math
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from benchmarks import http_login
from benchmarks.processes import Service, free_port

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
if not (BIN / "daphne").exists():  # pragma: no cover - run from outside the venv
    BIN = ROOT / ".venv" / "bin"

SETTINGS_MODULE = "benchmarks.live_settings"
ASGI_APP = "config.asgi:application"
CLOSE_PAUSE = 0.04  # seconds between two tables closed at the end of a phase
PASSWORD = "Bench-Live-Pass-42"
SEATS = 4
VARIANTS = ("banker36", "blackjack")
STAKE = 10
SATURATION_P99_MS = 250.0
TARGET_PLAYERS = 400
TARGET_P99_MS = 150.0
TARGET_ECHO_RATIO = 3.0
TARGET_LATENESS_MS = 500.0
# Issue 19's targets for one web process, as ratios measured in one run.
TARGET_CPU_RATIO = 2.0  # daphne CPU per accepted action ÷ the echo's per broadcast
TARGET_SATURATION_SHARE = 0.5  # the live saturation point ÷ the echo's
TARGET_CROWD = 1_000  # the crowd step: p99 ≤ 3× the echo's, every table dealt, …
# Refusals a person's own play can earn at a healthy server (§13): the rules refusing a
# move. The bench's players only send what `game.view.actions` offers, so none should
# occur; any other code (a late seed's no_shuffle, a stale_version after an update came
# late, unavailable, …) is the server's doing and misses the crowd target.
PLAYERS_OWN_MISTAKES = frozenset({"not_your_turn", "illegal_action", "bad_amount"})
# The echo's search: a rate passes when its p99 is under the limit and at most this share
# of its frames was dropped (a lossy layer must not pass by losing the slow ones).
ECHO_LOST_SHARE = 0.01
ECHO_FASTER = 2.0  # each echo probe's rate × this (÷ when the step's rate already fails)
STARTUP_TIMEOUT = 60.0
HTTP_TIMEOUT = 30.0
WS_TIMEOUT = 30.0
CONNECT_CONCURRENCY = 16
SIGNIN_THREADS = 6
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
COMMAND_IDS = itertools.count(1)


# --- configuration ---------------------------------------------------------------------


@dataclass
class Options:
    steps: list[int]
    runs: int
    duration: float
    warmup: float
    search: bool
    saturation_players: int
    saturation_runs: int
    saturation_duration: float
    max_probes: int
    settle: float
    connect_limit: float
    miss: float
    decision_seconds: int
    pg_url: str
    database: str
    redis_url: str
    keep: bool
    json_path: str | None
    seed: int
    extra_env: dict[str, str]
    two_webs: int = 0  # players of the step run again on two daphne processes (0: none)
    idle: float = 10.0  # seconds of the idle window, right after the stack starts
    echo_max_probes: int = 6  # rates tried at most by the echo's saturation search
    layers: str = "both"  # "both": the echo also on the other channel layer; "live": not
    profile: bool = False  # py-spy samples daphne during one more run of a step
    profile_players: int = 0  # that step
    quick: bool = False

    @property
    def max_players(self) -> int:
        return max([*self.steps, self.saturation_players if self.search else 0, self.two_webs])


def parse_options(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.live",
        description="Live tables under load over real WebSockets, next to an echo baseline.",
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of about a minute")
    parser.add_argument("--steps", help="connected players per step (default 100,400,1000)")
    parser.add_argument("--runs", type=int, help="runs per step (3)")
    parser.add_argument("--duration", type=float, help="seconds per run (10)")
    parser.add_argument("--warmup", type=float, help="seconds from the start to the first run (8)")
    parser.add_argument("--no-saturation", action="store_true", help="skip the saturation search")
    parser.add_argument(
        "--two-webs",
        type=int,
        help="players of a last step run on two daphne processes, each table's players "
        "split over both (400 when 400 is a step, else none; 0 skips it)",
    )
    parser.add_argument(
        "--saturation-players", type=int, help="the step the search runs on (400 if a step)"
    )
    parser.add_argument("--saturation-runs", type=int, help="runs per pace tried (2)")
    parser.add_argument("--saturation-duration", type=float, help="seconds per such run (8)")
    parser.add_argument("--max-probes", type=int, help="paces tried at most (5)")
    parser.add_argument(
        "--echo-max-probes",
        type=int,
        help="rates the echo's saturation search tries at most (6; --quick: 2)",
    )
    parser.add_argument(
        "--idle",
        type=float,
        help="seconds of the idle window measured right after the stack starts, before any "
        "table exists (10; --quick: 5; 0 skips it)",
    )
    parser.add_argument(
        "--layers",
        choices=("both", "live"),
        default="both",
        help="both: the echo runs again on the other channel layer (a stack started with "
        "CHANNEL_LAYER set to it); live: only on the live stack's layer (both)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="sample daphne with py-spy during one more run of a step (--profile-players) "
        "and print where its CPU goes per accepted action",
    )
    parser.add_argument(
        "--profile-players",
        type=int,
        help="the step profiled (400 if a step, else the saturation search's step)",
    )
    parser.add_argument("--settle", type=float, help="seconds after a change of pace (3)")
    parser.add_argument(
        "--connect-limit",
        type=float,
        default=150.0,
        help="seconds to open a step's sockets; those not open by then are left out (150)",
    )
    parser.add_argument(
        "--miss", type=float, default=0.03, help="share of turns left to the clock (0.03)"
    )
    parser.add_argument(
        "--decision-seconds", type=int, default=15, help="the tables' decision clock (15)"
    )
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL server URL whose user may create databases",
    )
    parser.add_argument("--database", default="twentyone_bench", help="created and dropped here")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        help="a Redis database of its own: it is flushed",
    )
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--json", dest="json_path", help="also write the figures to this file")
    parser.add_argument("--seed", type=int, default=21, help="the load generator's randomness")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra environment variable for the server processes (an experiment, e.g. "
        "CONN_MAX_AGE=60); repeatable; printed with the figures",
    )
    args = parser.parse_args(argv)

    def pick(value: Any, default: Any, quick: Any) -> Any:
        return value if value is not None else (quick if args.quick else default)

    steps = [int(s) for s in pick(args.steps, "100,400,1000", "20").split(",") if s.strip()]
    saturation_players = pick(
        args.saturation_players,
        TARGET_PLAYERS if TARGET_PLAYERS in steps else steps[0],
        steps[0],
    )
    return Options(
        steps=steps,
        runs=pick(args.runs, 3, 2),
        duration=pick(args.duration, 10.0, 5.0),
        warmup=pick(args.warmup, 8.0, 6.0),
        search=not args.no_saturation,
        # On the 400-player tables when they are a step: the 25 tables of 100 players
        # cannot offer more than about 40 actions/s however short the think time, which
        # one process now takes under the limit (the search then only finds a floor).
        saturation_players=saturation_players,
        saturation_runs=pick(args.saturation_runs, 2, 1),
        saturation_duration=pick(args.saturation_duration, 8.0, 4.0),
        max_probes=pick(args.max_probes, 5, 2),
        settle=pick(args.settle, 3.0, 2.0),
        connect_limit=args.connect_limit,
        miss=args.miss,
        decision_seconds=args.decision_seconds,
        pg_url=args.pg_url,
        database=args.database,
        redis_url=args.redis_url,
        keep=args.keep,
        json_path=args.json_path,
        seed=args.seed,
        extra_env=dict(item.split("=", 1) for item in args.env),
        two_webs=(
            args.two_webs
            if args.two_webs is not None
            else TARGET_PLAYERS
            if TARGET_PLAYERS in steps
            else 0
        ),
        idle=pick(args.idle, 10.0, 5.0),
        echo_max_probes=pick(args.echo_max_probes, 6, 2),
        layers=args.layers,
        profile=args.profile,
        profile_players=(
            args.profile_players
            if args.profile_players is not None
            else TARGET_PLAYERS
            if TARGET_PLAYERS in steps
            else saturation_players
        ),
        quick=args.quick,
    )


# --- measuring processes (/proc) -------------------------------------------------------


@dataclass
class Proc:
    pid: int
    ppid: int
    pgrp: int
    comm: str
    cpu: float  # seconds, its own
    children_cpu: float  # seconds, of its children it has reaped
    rss: float  # MB


def scan() -> dict[int, Proc]:
    """Every process on the machine, from /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        f = text[text.rindex(")") + 2 :].split()
        found[int(entry.name)] = Proc(
            pid=int(entry.name),
            ppid=int(f[1]),
            pgrp=int(f[2]),
            comm=comm,
            cpu=(int(f[11]) + int(f[12])) / CLK_TCK,
            children_cpu=(int(f[13]) + int(f[14])) / CLK_TCK,
            rss=int(f[21]) * PAGE_SIZE / 1e6,
        )
    return found


def group_usage(procs: dict[int, Proc], pgid: int) -> tuple[float, float]:
    """CPU seconds (the reaped children's included) and RSS (MB) of a process group."""
    members = [p for p in procs.values() if p.pgrp == pgid]
    cpu = sum(p.cpu for p in members) + sum(p.children_cpu for p in members if p.pid == pgid)
    return cpu, sum(p.rss for p in members)


def tree_usage(procs: dict[int, Proc], root: int | None) -> tuple[float, float]:
    """CPU seconds of a server and its children, live and reaped (PostgreSQL forks a
    backend per connection); RSS of the server process alone (the rest is shared)."""
    if root is None or root not in procs:
        return 0.0, 0.0
    top = procs[root]
    cpu = top.cpu + top.children_cpu + sum(p.cpu for p in procs.values() if p.ppid == root)
    return cpu, top.rss


def find_postmaster(procs: dict[int, Proc]) -> int | None:
    for proc in procs.values():
        parent = procs.get(proc.ppid)
        if proc.comm in ("postgres", "postmaster") and (parent is None or parent.comm != proc.comm):
            return proc.pid
    return None


def find_redis(procs: dict[int, Proc], port: int) -> int | None:
    candidates = [p.pid for p in procs.values() if p.comm == "redis-server"]
    for pid in candidates:
        with contextlib.suppress(OSError):
            if f":{port}" in Path(f"/proc/{pid}/cmdline").read_text():
                return pid
    return candidates[0] if candidates else None


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Sample:
    wall: float
    groups: dict[str, tuple[float, float]]
    machine: tuple[int, int]


@dataclass
class Usage:
    cpu: dict[str, float]  # percent of one core
    rss: dict[str, float]  # MB at the end
    machine_busy: float  # percent of all cores


def usage_between(a: Sample, b: Sample) -> Usage:
    wall = max(b.wall - a.wall, 1e-6)
    cpu = {name: 100 * (b.groups[name][0] - a.groups[name][0]) / wall for name in b.groups}
    rss = {name: b.groups[name][1] for name in b.groups}
    busy = b.machine[0] - a.machine[0]
    total = max(b.machine[1] - a.machine[1], 1)
    return Usage(cpu=cpu, rss=rss, machine_busy=100 * busy / total)


# --- the processes ---------------------------------------------------------------------


class Stack:
    """daphne (`webs` processes, each on its own port), a Celery worker and Celery beat, as
    `docker compose` runs them."""

    def __init__(self, env: dict[str, str], logs: Path, *, webs: int = 1) -> None:
        self.ports = [free_port() for _ in range(webs)]
        self.port = self.ports[0]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.webs = [
            Service(
                "daphne" if webs == 1 else f"daphne{index + 1}",
                [
                    str(BIN / "daphne"),
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "config.asgi:application",
                ],
                env,
                logs,
            )
            for index, port in enumerate(self.ports)
        ]
        self.daphne = self.webs[0]
        self.worker = Service(
            "worker",
            [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "INFO"],
            env,
            logs,
        )
        self.beat = Service(
            "beat",
            [
                *(str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "INFO"),
                *("--schedule", str(logs / f"celerybeat-schedule-{webs}")),
            ],
            env,
            logs,
        )
        self.services = [*self.webs, self.worker, self.beat]
        self.env = env
        self.postmaster: int | None = None
        self.redis: int | None = None

    def start(self) -> None:
        for service in self.services:
            service.start()
        end = time.monotonic() + STARTUP_TIMEOUT
        for web, port in zip(self.webs, self.ports, strict=True):
            while True:
                if not web.running():
                    raise RuntimeError(f"{web.name} exited:\n{web.log_text()[-3000:]}")
                with contextlib.suppress(OSError, http.client.HTTPException):
                    if http_request(port, "GET", "/healthz")[0] == 200:
                        break
                if time.monotonic() > end:
                    raise RuntimeError(f"{web.name} did not answer /healthz")
                time.sleep(0.1)
        self.worker.wait_for_log(r"@\S+ ready\.")
        self.beat.wait_for_log(r"beat: Starting")

    def stop(self) -> None:
        for service in reversed(self.services):
            service.stop()

    def sample(self) -> Sample:
        procs = scan()
        groups = {service.name: group_usage(procs, service.pgid) for service in self.services}
        if len(self.webs) > 1:  # "daphne": every web process together
            usage = [groups[web.name] for web in self.webs]
            groups["daphne"] = (sum(cpu for cpu, _ in usage), sum(rss for _, rss in usage))
        me = procs.get(os.getpid())
        groups["load-gen"] = (me.cpu, me.rss) if me else (0.0, 0.0)
        if self.postmaster is None:
            self.postmaster = find_postmaster(procs)
        if self.redis is None:
            self.redis = find_redis(procs, urlsplit(self.env["REDIS_URL"]).port or 6379)
        groups["postgres"] = tree_usage(procs, self.postmaster)
        groups["redis"] = tree_usage(procs, self.redis)
        return Sample(wall=time.monotonic(), groups=groups, machine=machine_ticks())


IDLE_PROCESSES = ("daphne", "worker", "beat", "postgres", "redis")
IDLE_SETTLE = 2.0  # seconds after the stack is ready before the idle window opens


def measure_idle(stack: Stack, seconds: float) -> dict[str, Any]:
    """Every process's CPU over `seconds` with no table at all: right after the stack is
    ready (and a moment to settle), before anyone signs in."""
    time.sleep(IDLE_SETTLE)
    before = stack.sample()
    time.sleep(seconds)
    usage = usage_between(before, stack.sample())
    return {
        "seconds": seconds,
        "cpu": {name: usage.cpu.get(name) for name in IDLE_PROCESSES},
        "rss": {name: usage.rss.get(name) for name in IDLE_PROCESSES},
        "machine": usage.machine_busy,
    }


OTHER_LAYER = {"core": "pubsub", "pubsub": "core"}


def server_layer(env: dict[str, str]) -> dict[str, str | None]:
    """The channel layer the servers' settings give with `env`, read back from those
    settings in a subprocess: `layer` (settings.CHANNEL_LAYER; None when the settings do
    not know it) and the layer's `backend` class."""
    code = (
        "import json; from django.conf import settings; print(json.dumps({'layer': "
        "getattr(settings, 'CHANNEL_LAYER', None), 'backend': "
        "settings.CHANNEL_LAYERS['default']['BACKEND']}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    found: dict[str, str | None] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


# --- database, Redis and Django of this process ----------------------------------------


def database_url(pg_url: str, name: str) -> str:
    parts = urlsplit(pg_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def recreate_database(pg_url: str, name: str, *, drop_only: bool = False) -> None:
    import psycopg
    from psycopg import sql

    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise ValueError(f"database name {name!r}: lower-case letters, digits and _ only")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        if not drop_only:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    try:
        client.flushdb()
    finally:
        client.close()


def process_env(options: Options) -> dict[str, str]:
    """Production settings (DEBUG off) over plain HTTP on 127.0.0.1."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE,
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
        ),
        "PYTHONUNBUFFERED": "1",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "DATABASE_URL": database_url(options.pg_url, options.database),
        "REDIS_URL": options.redis_url,
        **options.extra_env,
    }


def setup_django(env: dict[str, str]) -> None:
    """This process's Django, on the servers' settings: for the setup and for reading the
    results back from the database."""
    os.environ.update(env)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


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


# --- HTTP: the real login form ---------------------------------------------------------


def http_request(port: int, method: str, path: str) -> tuple[int, str, dict[str, str]]:
    return http_login.http_request(port, method, path, timeout=HTTP_TIMEOUT)


def sign_in(port: int, username: str) -> str:
    return http_login.sign_in(port, username, PASSWORD, timeout=HTTP_TIMEOUT)


def sign_in_all(port: int, names: list[str]) -> dict[str, str]:
    with ThreadPoolExecutor(SIGNIN_THREADS) as pool:
        return dict(zip(names, pool.map(lambda name: sign_in(port, name), names), strict=True))


# --- statistics ------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


@dataclass
class Latency:
    """Percentiles in milliseconds of (a) the actor's (sender's) frame and (b) the last
    other member's frame."""

    a: dict[int, float | None]
    b: dict[int, float | None]
    samples: int

    @classmethod
    def of(cls, a: list[float], b: list[float]) -> Latency:
        return cls(
            a={q: _ms(percentile(a, q)) for q in (50, 95, 99)},
            b={q: _ms(percentile(b, q)) for q in (50, 95, 99)},
            samples=len(a),
        )

    @classmethod
    def median_of(cls, runs: list[Latency]) -> Latency:
        return cls(
            a={q: median(r.a[q] for r in runs) for q in (50, 95, 99)},
            b={q: median(r.b[q] for r in runs) for q in (50, 95, 99)},
            samples=sum(r.samples for r in runs),
        )

    @property
    def worst_p99(self) -> float | None:
        values = [v for v in (self.a[99], self.b[99]) if v is not None]
        return max(values) if values else None


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000


# --- the players -----------------------------------------------------------------------


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


# Handshakes retried after a failure (daphne drops one it has not accepted within its
# websocket_connect_timeout, 5 s, when connections arrive faster than it takes them).
CONNECT_RETRIES = Counter[str]()


async def open_socket(port: int, path: str, cookie: str, attempts: int = 4) -> Any:
    """A WebSocket with the player's session cookie and the site's Origin (§2.2, §2.3)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    for attempt in range(attempts):
        try:
            return await connect(
                f"ws://127.0.0.1:{port}{path}",
                additional_headers={"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie},
                open_timeout=WS_TIMEOUT,
                close_timeout=5,
                ping_interval=None,
                max_size=None,
                proxy=None,
            )
        except (OSError, TimeoutError, WebSocketException):
            if attempt == attempts - 1:
                raise
            CONNECT_RETRIES[path.split("/")[2]] += 1
            await asyncio.sleep(0.5 * (attempt + 1) + random.random())
    raise AssertionError("unreachable")


async def quiesce(stack: Stack, cookie: str, limit: float = 60.0) -> float:
    """Wait (up to `limit` s) until a new socket opens promptly again: the previous
    phase's sockets have closed and their cleanup (database work queued in daphne) has
    run. Returns the seconds waited."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        start = time.monotonic()
        with contextlib.suppress(Exception):
            ws = await open_socket(stack.port, "/ws/bench/echo/0/", cookie, attempts=1)
            await ws.close()
            if time.monotonic() - start < 0.3:
                break
        await asyncio.sleep(1.0)
    return time.monotonic() - began


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


async def gather_limited(
    coroutines: Iterable[Any], limit: int, within: float | None = None
) -> list[Any]:
    """Run at most `limit` at once; results, or the exception each raised (a TimeoutError
    for those not done `within` seconds from now)."""
    semaphore = asyncio.Semaphore(limit)
    end = None if within is None else time.monotonic() + within

    async def one(coroutine: Any) -> Any:
        async with semaphore:
            if end is None:
                return await coroutine
            left = end - time.monotonic()
            if left <= 0:
                coroutine.close()
                raise TimeoutError
            return await asyncio.wait_for(coroutine, left)

    return await asyncio.gather(*(one(c) for c in coroutines), return_exceptions=True)


# --- the profile (py-spy, from outside daphne) ------------------------------------------

# Each sample goes to the first category whose patterns appear in one of its frames'
# files — kinds of work first (the database, the ORM, JSON), then the concerns, then the
# server's own socket work, then the rest. The event loop's and the thread pool's own
# frames at the root of every stack are cut off before matching (see `_own_frames`), so
# that `twisted`/`daphne`/`asyncio` match only work they do themselves. orjson is C:
# without --native py-spy shows no frame of it, so its time falls to its caller.
PROFILE_CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("PostgreSQL queries/commits", ("psycopg", "django/db/backends/")),
    ("ORM model building", ("django/db/",)),
    ("JSON", ("json/", "orjson")),
    ("per-seat views and frames", ("games/", "play/frames.py", "play/viewing.py")),
    # Counted through the cache, or its Redis client directly (accounts.throttling).
    ("Redis cache (message budgets)", ("django/core/cache/", "accounts/throttling.py")),
    (
        "channel layer",
        ("channels_redis/", "msgpack/", "redis/", "channels/layers.py", "config/channel_layer.py"),
    ),
    ("presence", ("play/presence.py", "play/connections.py")),
    ("lobby", ("lobby/",)),
    (
        "sessions/auth",
        (
            "django/contrib/sessions/",
            "django/contrib/auth/",
            "channels/sessions.py",
            "channels/auth.py",
            "django/core/signing.py",
        ),
    ),
    ("WebSocket server", ("autobahn/", "twisted/", "daphne/", "txaio/")),
    ("live play, other app code", ("play/", "tables/", "accounts/", "config/", "history/")),
    ("Channels/asgiref plumbing", ("channels/", "asgiref/", "concurrent/futures/")),
    ("asyncio event loop", ("asyncio/", "selectors.py")),
)
OTHER_CATEGORY = "other"
# The frames a stack starts with that are only the loop or the pool calling a callback.
_ROOT_FRAMES = ("asyncio/events.py", "concurrent/futures/thread.py")


def _frame_file(frame: str) -> str:
    """`function (path/file.py:123)` -> `path/file.py`."""
    inner = frame[frame.rfind("(") + 1 :].rstrip(")")
    return inner.rsplit(":", 1)[0]


def _own_frames(files: list[str]) -> list[str]:
    """The frames below the last loop/pool dispatch frame (all of them when none)."""
    cut = 0
    for index, path in enumerate(files):
        if path.endswith(_ROOT_FRAMES):
            cut = index + 1
    return files[cut:]


def categorize(stack: str) -> str:
    frames = [f for f in stack.split(";") if not f.startswith(("thread (", "process "))]
    files = _own_frames([_frame_file(f) for f in frames])
    if not files:
        return "asyncio event loop"
    for name, patterns in PROFILE_CATEGORIES:
        if any(pattern in path for path in files for pattern in patterns):
            return name
    return OTHER_CATEGORY


def summarize_profile(text: str) -> Counter[str]:
    """Samples per category of a py-spy `--format raw` file (collapsed stacks, one
    `frame;frame;… count` a line)."""
    counts = Counter[str]()
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count.isdigit():
            counts[categorize(stack)] += int(count)
    return counts


@dataclass
class Profile:
    """py-spy's samples of daphne during one more run of a step (not one of its runs)."""

    path: Path
    run: RunFigures | None  # that run's figures
    samples: Counter[str]
    rate: int
    error: str | None = None

    @property
    def total(self) -> int:
        return sum(self.samples.values())


PROFILE_RATE = 100  # samples a second


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
    samples came to twice the process's CPU, a third of them waits for PostgreSQL)."""
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


def profile_lines(profile: Profile, players: int) -> list[str]:
    lines = [
        f"Where daphne's CPU goes ({players}-player step, --profile): py-spy at "
        f"{profile.rate} Hz during one more run of the step (not one of its runs), the "
        "thread holding the GIL; raw collapsed stacks (a flame graph: flamegraph.pl or "
        f"speedscope) in {profile.path}",
    ]
    if profile.error or not profile.total or profile.run is None:
        lines.append(f"  no samples: {profile.error or 'py-spy wrote none'}")
        return lines
    per_action = cpu_per_message([profile.run])
    cpu_seconds = (profile.run.usage.cpu.get("daphne") or 0.0) / 100 * profile.run.span
    lines.append(
        f"  {profile.total:,} samples (= {profile.total / profile.rate:.1f} s with the GIL"
        f" held; daphne used "
        f"{cpu_seconds:.1f} CPU-s in the run); {_num(profile.run.rate, 1)} actions/s accepted,"
        f" {_num(per_action, 1)} ms of daphne CPU per accepted action"
    )
    lines.append(
        "  (py-spy samples the thread holding the GIL: Python at work, one thread at a time;"
        " work done with the GIL released — the kernel's socket calls, libpq's — is in the "
        "CPU from /proc but in no sample. The shares are of the samples, times the CPU per "
        "action measured from /proc)"
    )
    lines.append(f"  {'category':<28} {'samples':>8} {'share':>6} {'ms/action':>10}")
    for name, count in profile.samples.most_common():
        share = count / profile.total
        ms = None if per_action is None else share * per_action
        lines.append(f"  {name:<28} {count:>8,} {share:>6.1%} {_num(ms, 2):>10}")
    return lines


# --- live tables: setup, the runs, the end ---------------------------------------------


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

    from play import closing
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


@dataclass
class Window:
    """One run: a stretch of time whose actions (or echo messages) are measured."""

    start: float  # monotonic
    end: float
    usage: Usage


async def measure(stack: Stack, seconds: float) -> Window:
    before = stack.sample()
    await asyncio.sleep(seconds)
    after = stack.sample()
    return Window(before.wall, after.wall, usage_between(before, after))


@dataclass
class RunFigures:
    rate: float  # answered messages (acked actions) per second
    sent_rate: float  # messages (actions) sent per second, answered or not
    latency: Latency
    errors: int  # refused actions (live) / failed sends
    unanswered: int  # sent and never answered (live: no ack nor error)
    lost: int  # (a) or (b) frames that never came, of the messages sent in the run
    usage: Usage
    span: float = 0.0  # the run's seconds


def cpu_per_message(runs: list[RunFigures], name: str = "daphne") -> float | None:
    """Milliseconds of `name`'s CPU per answered message (accepted action / echo
    broadcast), the runs pooled: its CPU-seconds in them ÷ the messages answered in them."""
    cpu = sum((r.usage.cpu.get(name) or 0.0) / 100 * r.span for r in runs)
    messages = sum(r.rate * r.span for r in runs)
    return 1000 * cpu / messages if messages > 0 else None


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


def summarize(runs: list[RunFigures]) -> dict[str, Any]:
    """Medians over the runs; counts are totals."""
    names = list(runs[0].usage.cpu) if runs else []
    return {
        "rate": median(r.rate for r in runs),
        "sent_rate": median(r.sent_rate for r in runs),
        "latency": Latency.median_of([r.latency for r in runs]),
        "cpu": {k: median(r.usage.cpu.get(k) for r in runs) for k in names},
        "rss": {k: median(r.usage.rss.get(k) for r in runs) for k in names},
        "machine": median(r.usage.machine_busy for r in runs),
        "errors": sum(r.errors for r in runs),
        "unanswered": sum(r.unanswered for r in runs),
        "lost": sum(r.lost for r in runs),
    }


def passes(runs: list[RunFigures]) -> bool:
    worst = Latency.median_of([r.latency for r in runs]).worst_p99
    return worst is not None and worst < SATURATION_P99_MS


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
        log(f"  probe: pace {pace:g}, {rate:.1f} actions/s, p99 {_num(worst)} ms")
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


# --- the echo baseline -----------------------------------------------------------------


@dataclass
class Echo:
    port: int
    rng: random.Random
    rate: float = 0.0  # messages per second per connection
    pad: int = 0
    sending: bool = False
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    got: dict[tuple[int, int], dict[int, float]] = field(default_factory=dict)
    errors: list[float] = field(default_factory=list)


class EchoClient:
    """One socket to the echo consumer, sending at the phase's rate (a Poisson process)."""

    def __init__(self, echo: Echo, index: int, cookie: str, port: int | None = None) -> None:
        self.echo, self.index, self.cookie = echo, index, cookie
        self.port = port if port is not None else echo.port
        self.group = index // SEATS
        self.members = list(range(self.group * SEATS, self.group * SEATS + SEATS))
        self.ws: Any = None
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self) -> None:
        self.ws = await open_socket(self.port, f"/ws/bench/echo/{self.group}/", self.cookie)
        self.tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._talk())]

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        with contextlib.suppress(ConnectionClosed):
            async for text in self.ws:
                now = time.monotonic()
                frame = json.loads(text)
                self.echo.got.setdefault((frame["from"], frame["seq"]), {}).setdefault(
                    self.index, now
                )

    async def _talk(self) -> None:
        from websockets.exceptions import ConnectionClosed

        echo = self.echo
        seq = 0
        while True:
            if not echo.sending or echo.rate <= 0:
                await asyncio.sleep(0.2)
                continue
            # Poisson arrivals: the first message too comes after a random wait, so that
            # the sockets do not all send at the instant sending is switched on.
            await asyncio.sleep(echo.rng.expovariate(echo.rate))
            if not echo.sending:
                continue
            seq += 1
            message = json.dumps({"from": self.index, "seq": seq, "pad": echo.pad})
            echo.sent[self.index, seq] = time.monotonic()
            try:
                await self.ws.send(message)
            except ConnectionClosed:
                echo.errors.append(time.monotonic())
                return

    def close_now(self) -> None:
        for task in self.tasks:
            task.cancel()

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)


def echo_run_figures(echo: Echo, clients: list[EchoClient], window: Window) -> RunFigures:
    a: list[float] = []
    b: list[float] = []
    lost = count = 0
    for (sender, seq), sent in echo.sent.items():
        if not window.start <= sent < window.end:
            continue
        count += 1
        got = echo.got.get((sender, seq), {})
        lost += sum(1 for m in clients[sender].members if m not in got)
        if sender in got:
            a.append(got[sender] - sent)
        others = [got.get(m) for m in clients[sender].members if m != sender]
        if all(t is not None for t in others):
            b.append(max(t for t in others if t is not None) - sent)
    errors = sum(1 for t in echo.errors if window.start <= t < window.end)
    span = window.end - window.start
    return RunFigures(
        count / span, count / span, Latency.of(a, b), errors, 0, lost, window.usage, span
    )


@dataclass
class EchoPhase:
    runs: list[RunFigures]  # at the live step's rate
    at_saturation: list[RunFigures]  # at the saturation point's rate, when searched
    lost: int
    sent: int
    seconds: float
    rates: list[float] = field(default_factory=list)  # the rates asked for (msg/s in all)
    pad: int = 0
    probes: list[tuple[float, list[RunFigures]]] = field(default_factory=list)  # search
    layer: str = ""  # the channel layer of the stack it ran on

    @property
    def searched(self) -> bool:
        return bool(self.probes)

    def candidates(self) -> list[list[RunFigures]]:
        return [
            runs for runs in (self.runs, self.at_saturation, *(r for _, r in self.probes)) if runs
        ]

    @property
    def saturation(self) -> float | None:
        """The highest rate (msg/s, median of runs) that passed, among all it ran."""
        rates = [summarize(runs)["rate"] or 0.0 for runs in self.candidates() if echo_passes(runs)]
        return max(rates) if rates else None

    @property
    def saturated(self) -> bool:
        """Some rate it ran failed: the point is found, not only a floor."""
        return any(not echo_passes(runs) for runs in self.candidates())

    def lowest_rate(self) -> float:
        return min((summarize(runs)["rate"] or 0.0) for runs in self.candidates())


def echo_passes(runs: list[RunFigures]) -> bool:
    """p99 under the limit, as the tables', and (a lossy layer must not pass by dropping
    its slow frames) at most ECHO_LOST_SHARE of the frames lost."""
    frames = SEATS * sum(r.rate * r.span for r in runs)
    return passes(runs) and sum(r.lost for r in runs) <= ECHO_LOST_SHARE * frames


async def echo_phase(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    rates: list[float],
    pad: int,
    *,
    search: bool = False,
    layer: str = "",
) -> EchoPhase:
    """The same sockets (the same sessions), in groups of 4, sending `rates[i]` messages
    a second in all: the step's runs at the first rate, then the probe runs at the next;
    with `search`, then the echo's own saturation search: the rate doubled (halved when the
    step's rate already fails) until its verdict changes, then once between the two."""
    began = time.monotonic()
    echo = Echo(port=stack.port, rng=random.Random(options.seed + 1), pad=pad)
    clients = [
        EchoClient(echo, index, cookies[name], stack.ports[index % len(stack.ports)])
        for index, name in enumerate(names)
    ]
    await quiesce(stack, clients[0].cookie)
    opened = await gather_limited(
        (c.open() for c in clients), CONNECT_CONCURRENCY, within=options.connect_limit
    )
    failed = [r for r in opened if isinstance(r, BaseException)]
    if len(failed) > len(clients) // 2:
        raise RuntimeError(f"{len(failed)} echo sockets did not open: {failed[0]!r}")
    for client in clients:
        if client.ws is None:
            client.close_now()
        client.members = [m for m in client.members if clients[m].ws is not None]

    async def at(rate: float, count: int, seconds: float) -> list[Window]:
        echo.rate, echo.sending = rate / len(clients), True
        await asyncio.sleep(options.settle)
        windows = [await measure(stack, seconds) for _ in range(count)]
        echo.sending = False
        await asyncio.sleep(1.5)
        return windows

    phases: list[list[Window]] = []
    for index, rate in enumerate(rates):
        count = options.runs if index == 0 else options.saturation_runs
        seconds = options.duration if index == 0 else options.saturation_duration
        phases.append(await at(rate, count, seconds))
    probe_windows: list[tuple[float, list[Window]]] = []
    search_began = time.monotonic()  # the phase's lost/sent count the messages before it
    if search and rates:
        verdicts = {
            rate: echo_passes([echo_run_figures(echo, clients, w) for w in windows])
            for rate, windows in zip(rates, phases, strict=True)
        }
        base = verdicts[rates[0]]

        async def probe(rate: float) -> bool:
            windows = await at(rate, options.saturation_runs, options.saturation_duration)
            runs = [echo_run_figures(echo, clients, w) for w in windows]
            probe_windows.append((rate, windows))
            verdicts[rate] = echo_passes(runs)
            s = summarize(runs)
            log(
                f"  echo probe{f' ({layer})' if layer else ''}: {rate:.1f} msg/s asked, "
                f"{s['rate'] or 0:.1f} sent, p99 {_num(s['latency'].worst_p99)} ms, "
                f"lost {s['lost']}"
            )
            return verdicts[rate]

        good = [r for r, ok in verdicts.items() if ok]
        rate = max(max(good) if base else rates[0], 1.0)
        for _ in range(options.echo_max_probes):
            rate = rate * ECHO_FASTER if base else rate / ECHO_FASTER
            if await probe(rate) != base:
                break
        good = [r for r, ok in verdicts.items() if ok]
        bad = [r for r, ok in verdicts.items() if not ok]
        if good and bad and max(good) < min(bad) and min(bad) / max(good) > 1.3:
            await probe(math.sqrt(max(good) * min(bad)))
    await asyncio.sleep(1.0)
    figures = [[echo_run_figures(echo, clients, w) for w in windows] for windows in phases]
    before = [key for key, sent in echo.sent.items() if sent < search_began]
    lost = sum(
        1
        for (sender, seq) in before
        for member in clients[sender].members
        if member not in echo.got.get((sender, seq), {})
    )
    await gather_limited((c.close() for c in clients), 200)
    return EchoPhase(
        runs=figures[0],
        at_saturation=figures[1] if len(figures) > 1 else [],
        lost=lost,
        sent=len(before),
        seconds=time.monotonic() - began,
        rates=list(rates),
        pad=pad,
        probes=[
            (rate, [echo_run_figures(echo, clients, w) for w in windows])
            for rate, windows in probe_windows
        ],
        layer=layer,
    )


# --- the benchmark ---------------------------------------------------------------------


@dataclass
class StepResult:
    live: LivePhase
    echo: EchoPhase
    saturation_rate: float | None = None
    webs: int = 1  # daphne processes
    other_echo: EchoPhase | None = None  # the same echo on the other channel layer


def saturation_rate(phase: LivePhase) -> float | None:
    """The highest action rate (median of runs) among the paces whose p99 stayed under
    the limit, the step's own pace included."""
    candidates = [(1.0, phase.runs), *phase.probes]
    rates = [summarize(runs)["rate"] or 0.0 for _pace, runs in candidates if passes(runs)]
    return max(rates) if rates else None


async def run_step(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    *,
    search: bool,
    layer: str = "",
    profile_logs: Path | None = None,
) -> StepResult:
    names = names[: len(names) - len(names) % SEATS]
    live = await live_phase(
        stack, cookies, names, options, search=search, profile_logs=profile_logs
    )
    step = summarize(live.runs)
    log(
        f"  live: {live.seconds:.0f} s; {step['rate'] or 0:.1f} actions/s, "
        f"p99 (a) {_num(step['latency'].a[99])} ms, (b) {_num(step['latency'].b[99])} ms"
    )
    # The echo baseline at the rate the players sent actions (and at the saturation
    # point's): the same offered load, whatever the tables managed to answer.
    rates = [step["sent_rate"] or 0.0]
    point = saturation_rate(live) if search else None
    if point:
        rates.append(point)
    echo = await echo_phase(
        stack,
        cookies,
        names,
        options,
        rates,
        int(live.frame_bytes) - 60,
        search=search,
        layer=layer,
    )
    base = summarize(echo.runs)
    log(
        f"  echo: {echo.seconds:.0f} s; {base['rate'] or 0:.1f} msg/s, "
        f"p99 (a) {_num(base['latency'].a[99])} ms, (b) {_num(base['latency'].b[99])} ms"
    )
    return StepResult(live, echo, point, webs=len(stack.ports))


async def bench(
    options: Options,
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    *,
    layer: str = "",
    logs: Path | None = None,
) -> list[StepResult]:
    results = []
    search = options.saturation_players if options.search else None
    steps = list(options.steps)
    if search is not None and search not in steps:
        steps.append(search)
    for players in steps:
        log(
            f"step: {players} players"
            + (" (then the saturation search)" if players == search else "")
        )
        profile = options.profile and players == options.profile_players
        results.append(
            await run_step(
                stack,
                cookies,
                names[:players],
                options,
                search=players == search,
                layer=layer,
                profile_logs=logs if profile else None,
            )
        )
    return results


async def other_layer_echo(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    results: list[StepResult],
    layer: str,
) -> None:
    """The echo of every one-process step again, on a stack whose channel layer is the
    other one: the same sockets and sessions, the same rates and padding, and the echo's
    saturation search where the live stack's echo had one."""
    for result in results:
        if result.webs != 1:
            continue
        players = result.live.players
        log(f"echo on the {layer} layer: {players} players")
        result.other_echo = await echo_phase(
            stack,
            cookies,
            names[:players],
            options,
            result.echo.rates,
            result.echo.pad,
            search=result.echo.searched,
            layer=layer,
        )
        base = summarize(result.other_echo.runs)
        log(
            f"  echo ({layer}): {result.other_echo.seconds:.0f} s; {base['rate'] or 0:.1f} "
            f"msg/s, p99 (a) {_num(base['latency'].a[99])} ms, (b) "
            f"{_num(base['latency'].b[99])} ms"
        )


# --- the report ------------------------------------------------------------------------


def _num(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _ratio(live: float | None, base: float | None) -> float | None:
    if live is None or base is None or base <= 0:
        return None
    return live / base


def report(results: list[StepResult], options: Options, context: dict[str, Any]) -> str:
    ordered = sorted(results, key=lambda r: (r.webs, r.live.players))
    lines = [
        "Live tables over real WebSockets: one daphne process, a Celery worker (prefork) and "
        "beat, on PostgreSQL and Redis — all on this machine",
        f"({context['cores']} cores, shared with other work: load average "
        f"{context['load_before']} before, {context['load_after']} after). 4 players a "
        "table, banker36 and blackjack alternating, every seat a person; each acts 0.5–2 s "
        f"after their turn, {options.miss:.0%} of turns left to the {options.decision_seconds}"
        " s clock.",
        f"Each figure: median of {options.runs} runs of {options.duration:g} s. Latency in ms "
        "from sending an action to (a) the actor's update, (b) the last other seat's update.",
        "Echo: a bare consumer on the same daphne + Redis broadcasting each message to its "
        "group of 4 — the same players' sessions and socket count, the same message rate, "
        "frames padded to the tables' mean update size.",
    ]
    layer = context.get("layer") or {}
    if layer:
        lines.append(
            f"Channel layer of the live stack: {layer.get('live')} ({layer.get('backend')}), "
            "what its settings give (read back from them; nothing set for it here)."
        )
    if options.quick:
        lines.append(
            "QUICK: one small step; the saturation searches (live and echo) and the other "
            "layer's echo are shortened (fewer, shorter probes), the idle window is 5 s."
        )
    if options.extra_env:
        extra = " ".join(f"{k}={v}" for k, v in options.extra_env.items())
        lines.append(f"EXPERIMENT: the server processes ran with {extra} (not the defaults).")
    lines += idle_lines(context)
    lines += [
        "",
        f"{'players':>7} {'tables':>6} {'sent/s':>6} {'act/s':>6} │ {'(a) p50':>7} {'p95':>6}"
        f" {'p99':>6} │ {'(b) p50':>7} {'p95':>6} {'p99':>6} │ {'echo/s':>6} {'(a) p99':>7}"
        f" {'(b) p99':>7} │ {'× echo p99 (a)':>14} {'(b)':>6}",
    ]
    for result in ordered:
        live, echo = summarize(result.live.runs), summarize(result.echo.runs)
        la, le = live["latency"], echo["latency"]
        lines.append(
            f"{_players(result):>7} {result.live.tables:>6,} {_num(live['sent_rate'], 1):>6}"
            f" {_num(live['rate'], 1):>6} │"
            f" {_num(la.a[50]):>7} {_num(la.a[95]):>6} {_num(la.a[99]):>6} │"
            f" {_num(la.b[50]):>7} {_num(la.b[95]):>6} {_num(la.b[99]):>6} │"
            f" {_num(echo['rate'], 1):>6} {_num(le.a[99], 1):>7} {_num(le.b[99], 1):>7} │"
            f" {_num(_ratio(la.a[99], le.a[99]), 1):>13}× {_num(_ratio(la.b[99], le.b[99]), 1):>5}×"
        )
    lines.append(
        "  sent/s: actions the players sent; act/s: those accepted (acked). Latencies are of "
        "the accepted ones; '—': none was accepted in the runs."
    )
    lines += ["", *cpu_lines(ordered, str(layer.get("live", "")))]
    if any(r.webs > 1 for r in ordered):
        lines.append(
            "  N (2): the same step on two daphne processes sharing the Redis layer (no proxy:"
            " each table's players split over both, so every change crosses processes); the"
            " echo likewise. daphne CPU/RSS below: both together."
        )
    lines += [
        "",
        "Timeouts, errors and delivery. Lateness: when beat's sweep applied a timeout minus the "
        "deadline the players were shown (the GameEvent's created_at), every timeout of the "
        "step pooled. Errors: refused commands, by code below. Lost: versions a client never "
        "got as an update; resyncs: snapshots asked for after a gap (§7) + after a ping showed "
        "a client behind once play stopped (a lost last update leaves no gap to see); "
        "converged: clients whose last picture is their table's final version within 30 s of "
        "the tables closing.",
        f"{'players':>7} {'timeouts':>8} {'late p50':>8} {'p95':>6} {'p99':>6} │ {'errors':>6}"
        f" {'unanswered':>10} {'lost':>5} {'resyncs':>7} {'converged':>11} │"
        f" {'echo lost':>9} {'of sent':>8}",
    ]
    for result in ordered:
        live = result.live
        late = live.lateness_ms
        unanswered = summarize(live.runs)["unanswered"]
        connected = live.players - live.not_opened
        lines.append(
            f"{_players(result):>7} {len(late):>8} {_num(percentile(late, 50)):>8}"
            f" {_num(percentile(late, 95)):>6} {_num(percentile(late, 99)):>6} │"
            f" {sum(live.errors.values()):>6} {unanswered:>10} {live.lost:>5}"
            f" {f'{live.resyncs}+{live.late_resyncs}':>7}"
            f" {f'{live.converged}/{connected}':>11} │"
            f" {result.echo.lost:>9} {result.echo.sent:>8}"
        )
    for result in ordered:
        if result.live.errors:
            codes = ", ".join(f"{c} {n}" for c, n in result.live.errors.most_common())
            lines.append(f"  {_players(result)} players, errors: {codes}")
    if CONNECT_RETRIES:
        lines.append(
            "  handshakes retried (daphne dropped them before accepting): "
            + ", ".join(f"{kind} {n}" for kind, n in sorted(CONNECT_RETRIES.items()))
        )
    lines += [
        "",
        "Processes during the runs: CPU in % of one core / RSS in MB, medians of the runs. "
        "postgres and redis are the machine's servers, shared with any other work on it "
        "(postgres: every backend, RSS of the postmaster). machine: all cores busy, "
        "everything on the machine included.",
        f"{'players':>7} │ {'daphne':>9} {'worker':>9} {'beat':>8} {'postgres':>8} {'redis':>8}"
        f" {'load-gen':>9} {'machine':>7} │ {'echo: daphne':>12} {'redis':>5} {'load-gen':>8}"
        f" {'machine':>7}",
    ]

    def cell(s: dict[str, Any], name: str, width: int, rss: bool = True) -> str:
        text = f"{_num(s['cpu'].get(name))}%"
        if rss:
            text += f"/{_num(s['rss'].get(name))}"
        return text.rjust(width)

    for result in ordered:
        live, echo = summarize(result.live.runs), summarize(result.echo.runs)
        lines.append(
            f"{_players(result):>7} │ {cell(live, 'daphne', 9)} {cell(live, 'worker', 9)}"
            f" {cell(live, 'beat', 8)} {cell(live, 'postgres', 8, False)}"
            f" {cell(live, 'redis', 8)} {cell(live, 'load-gen', 9)} {_num(live['machine']):>6}% │"
            f" {cell(echo, 'daphne', 12)} {cell(echo, 'redis', 5, False)}"
            f" {cell(echo, 'load-gen', 8, False)} {_num(echo['machine']):>6}%"
        )
    lines += ["", "Setup of each step (not measured):"]
    for result in ordered:
        live = result.live
        lines.append(
            f"  {_players(result):>7} players: sockets open in {live.connect_seconds:.0f} s"
            f"{f' ({live.not_opened} never opened)' if live.not_opened else ''}; "
            f"{live.dealt}/{live.tables} tables dealt {live.warmup_seconds:.0f} s after the "
            f"first start; the live phase took {live.seconds:.0f} s, the echo phase "
            f"{result.echo.seconds:.0f} s"
        )
    for result in ordered:
        if result.live.probes:
            lines += ["", *saturation_lines(result, options)]
        if result.echo.searched:
            lines += ["", *echo_search_lines(result.echo, result.live.players, options)]
    lines += ["", *layer_lines(ordered, context, options)]
    for result in ordered:
        if result.live.profile is not None:
            lines += ["", *profile_lines(result.live.profile, result.live.players)]
    lines += ["", *targets(results, context)]
    return "\n".join(lines)


def idle_lines(context: dict[str, Any]) -> list[str]:
    idle = context.get("idle") or {}
    live = (context.get("layer") or {}).get("live")
    lines = []
    for name, figures in sorted(idle.items(), key=lambda item: item[0] != live):
        cpu = figures["cpu"]
        text = ", ".join(f"{k} {_num(cpu.get(k), 1)}%" for k in IDLE_PROCESSES)
        stack = "the live stack" if name == live else "the other layer's echo stack"
        lines.append(
            f"Idle ({stack}, {name} layer; no table, {figures['seconds']:g} s right after it "
            f"started, before any sign-in): {text} of one core; machine "
            f"{_num(figures['machine'])}% of all cores (postgres and redis: the machine's "
            "servers, shared with any other work on it)"
        )
    return lines


def cpu_lines(ordered: list[StepResult], layer: str) -> list[str]:
    lines = [
        "daphne CPU per message: its CPU-seconds in the runs ÷ the actions accepted (live) / "
        f"the messages broadcast (echo), on the same layer ({layer or '?'}); target ratio ≤ "
        f"{TARGET_CPU_RATIO:g}×",
        f"{'players':>7} │ {'live ms/action':>14} │ {'echo ms/broadcast':>17} │ {'ratio':>6}",
    ]
    for result in ordered:
        live, echo = cpu_per_message(result.live.runs), cpu_per_message(result.echo.runs)
        lines.append(
            f"{_players(result):>7} │ {_num(live, 2):>14} │ {_num(echo, 2):>17} │"
            f" {_num(_ratio(live, echo), 1):>5}×"
        )
    return lines


def echo_search_lines(echo: EchoPhase, players: int, options: Options) -> list[str]:
    lines = [
        f"Echo saturation search on the {players}-player sockets ({echo.layer or '?'} layer): "
        f"the rate doubled (halved) until p99 crosses {SATURATION_P99_MS:g} ms or over "
        f"{ECHO_LOST_SHARE:.0%} of frames are lost, then once between; median of "
        f"{options.saturation_runs} runs of {options.saturation_duration:g} s per rate "
        f"(at most {options.echo_max_probes} probes + 1)",
        f"{'asked/s':>8} {'msg/s':>7} {'(a) p50':>8} {'(a) p99':>8} {'(b) p99':>8} {'lost':>6}"
        f" {'daphne':>7} {'load-gen':>8} {'machine':>8}  passes",
    ]
    rows = [
        *(zip(echo.rates, (echo.runs, echo.at_saturation), strict=False)),
        *echo.probes,
    ]
    for asked, runs in sorted((row for row in rows if row[1]), key=lambda row: row[0]):
        s = summarize(runs)
        lines.append(
            f"{asked:>8.1f} {_num(s['rate'], 1):>7} {_num(s['latency'].a[50]):>8}"
            f" {_num(s['latency'].a[99]):>8} {_num(s['latency'].b[99]):>8} {s['lost']:>6}"
            f" {_num(s['cpu']['daphne']):>6}% {_num(s['cpu']['load-gen']):>7}%"
            f" {_num(s['machine']):>7}%  {'yes' if echo_passes(runs) else 'no'}"
        )
    lines.append("Echo saturation point: " + echo_point(echo) + " msg/s")
    return lines


def echo_point(echo: EchoPhase) -> str:
    if not echo.searched:
        return "not searched"
    if echo.saturation is None:
        return f"below {echo.lowest_rate():,.1f}"
    return f"about {echo.saturation:,.1f}" + ("" if echo.saturated else " or more")


def layer_lines(ordered: list[StepResult], context: dict[str, Any], options: Options) -> list[str]:
    layer = context.get("layer") or {}
    lines = [
        "Echo by layer: the same sockets, sessions, rates and frame size on each channel "
        f"layer; the live stack's is {layer.get('live', '?')}"
        + (
            f", the other ({layer.get('other')}: {layer.get('other_backend')}) on a stack of "
            "its own started with CHANNEL_LAYER set to it"
            if layer.get("other_backend")
            else f" ({context.get('layers_skipped', 'the other layer not run')})"
        )
        + ". lost: frames of the runs' messages never received, of those expected.",
        f"{'players':>7} {'layer':<7} {'msg/s':>6} │ {'(a) p50':>7} {'p99':>6} │ {'(b) p50':>7}"
        f" {'p99':>6} │ {'lost':>12} │ {'ms/broadcast':>12} │ saturation point",
    ]
    for result in ordered:
        if result.webs != 1:
            continue
        for echo in (result.echo, result.other_echo):
            if echo is None:
                continue
            s = summarize(echo.runs)
            lat = s["latency"]
            frames = SEATS * sum(r.rate * r.span for r in echo.runs)
            mark = "*" if echo.layer == layer.get("live") else " "
            lost = f"{s['lost']}/{frames:,.0f}"
            lines.append(
                f"{_players(result):>7} {echo.layer + mark:<7} {_num(s['rate'], 1):>6} │"
                f" {_num(lat.a[50], 1):>7} {_num(lat.a[99], 1):>6} │"
                f" {_num(lat.b[50], 1):>7} {_num(lat.b[99], 1):>6} │"
                f" {lost:>12} │"
                f" {_num(cpu_per_message(echo.runs), 2):>12} │"
                f" {echo_point(echo) if echo.searched else ''}"
            )
    lines.append("  *: the live stack's layer (the live figures above ran on it)")
    return lines


def saturation_lines(result: StepResult, options: Options) -> list[str]:
    live = result.live
    lines = [
        f"Saturation search on the {live.players}-player tables: the think time × pace; median "
        f"of {options.saturation_runs} runs of {options.saturation_duration:g} s per pace (after "
        f"{options.settle:g} s to settle; pace 1 is the step above)",
        f"{'pace':>6} {'act/s':>6} {'(a) p50':>8} {'(a) p99':>8} {'(b) p99':>8} {'daphne':>7}"
        f" {'load-gen':>8}"
        f" {'machine':>8}  p99 < {SATURATION_P99_MS:g} ms",
    ]
    rows = sorted([(1.0, live.runs), *live.probes], key=lambda row: -row[0])
    for pace, runs in rows:
        s = summarize(runs)
        lines.append(
            f"{pace:>6g} {_num(s['rate'], 1):>6} {_num(s['latency'].a[50]):>8}"
            f" {_num(s['latency'].a[99]):>8}"
            f" {_num(s['latency'].b[99]):>8} {_num(s['cpu']['daphne']):>6}%"
            f" {_num(s['cpu']['load-gen']):>7}% {_num(s['machine']):>7}%"
            f"  {'yes' if passes(runs) else 'no'}"
        )
    fastest = min(pace for pace, _runs in rows)
    if result.saturation_rate is None:
        lowest = min(summarize(runs)["rate"] or 0.0 for _pace, runs in rows)
        lines.append(
            f"Saturation point: below {lowest:,.1f} actions/s — p99 was over "
            f"{SATURATION_P99_MS:g} ms at every pace tried"
        )
    else:
        text = f"Saturation point: about {result.saturation_rate:,.1f} actions/s"
        if all(passes(runs) for pace, runs in rows if pace == fastest):
            text += " or more (still under the limit at the fastest pace tried)"
        lines.append(text)
        if result.echo.at_saturation:
            echo = summarize(result.echo.at_saturation)
            lines.append(
                f"  the echo at that rate: {_num(echo['rate'], 1)} msg/s, p99 (a) "
                f"{_num(echo['latency'].a[99], 1)} ms, (b) {_num(echo['latency'].b[99], 1)} ms"
            )
    return lines


def _players(result: StepResult) -> str:
    players = f"{result.live.players:,}"
    return players if result.webs == 1 else f"{players} ({result.webs})"


def targets(results: list[StepResult], context: dict[str, Any] | None = None) -> list[str]:
    lines = ["Targets for one daphne process:"]
    results = [r for r in results if r.webs == 1]
    step = next((r for r in results if r.live.players == TARGET_PLAYERS), None)
    if step is None:
        lines.append(f"  (no {TARGET_PLAYERS}-player step in this run: latency targets not judged)")
    else:
        live = summarize(step.live.runs)["latency"]
        echo = summarize(step.echo.runs)["latency"]
        worst = live.worst_p99
        met = worst is not None and worst < TARGET_P99_MS
        lines.append(
            f"  {TARGET_PLAYERS} players at p99 under {TARGET_P99_MS:g} ms: (a) {_num(live.a[99])}"
            f" ms, (b) {_num(live.b[99])} ms — {'met' if met else 'MISSED'}"
        )
        ratios = [_ratio(live.a[99], echo.a[99]), _ratio(live.b[99], echo.b[99])]
        known = [r for r in ratios if r is not None]
        met = bool(known) and max(known) <= TARGET_ECHO_RATIO
        lines.append(
            f"  within {TARGET_ECHO_RATIO:g}× of the echo p99: (a) {_num(ratios[0], 1)}×, (b)"
            f" {_num(ratios[1], 1)}× — {'met' if met else 'MISSED'}"
        )
    lines.append("  " + lateness_line(results))
    lines.append("Issue 19's targets (ratios measured in this run):")
    lines += [verdict.line() for verdict in issue19_verdicts(results, context or {})]
    return lines


def lateness_line(results: list[StepResult]) -> str:
    verdicts = []
    for result in sorted(results, key=lambda r: r.live.players):
        late = result.live.lateness_ms
        p99 = percentile(late, 99)
        verdict = (
            "not measured" if p99 is None else "met" if p99 <= TARGET_LATENESS_MS else "MISSED"
        )
        verdicts.append(
            f"{result.live.players:,} players {_num(p99)} ms ({len(late)} timeouts) — {verdict}"
        )
    return (
        f"timeouts applied within {TARGET_LATENESS_MS / 1000:g} s of their deadlines at p99: "
        + "; ".join(verdicts)
    )


@dataclass
class Verdict:
    target: str
    measured: str
    state: str  # met, MISSED, not judged, shown, not run, measured

    def line(self) -> str:
        return f"  {self.target}: {self.measured} — {self.state}"


def _judged_step(results: list[StepResult], players: int) -> tuple[StepResult | None, str]:
    """The one-process step with `players`, else the largest one (named in the verdict)."""
    ones = [r for r in results if r.webs == 1]
    exact = next((r for r in ones if r.live.players == players), None)
    if exact is not None or not ones:
        return exact, ""
    largest = max(ones, key=lambda r: r.live.players)
    return largest, f" [no {players:,}-player step: judged at {largest.live.players:,}]"


def _met(ok: bool | None) -> str:
    return "not judged" if ok is None else "met" if ok else "MISSED"


def cpu_verdict(results: list[StepResult]) -> Verdict:
    step, note = _judged_step(results, TARGET_PLAYERS)
    target = f"daphne CPU per accepted action ≤ {TARGET_CPU_RATIO:g}× the echo's per broadcast"
    if step is None:
        return Verdict(target, "no step", "not judged")
    live, echo = cpu_per_message(step.live.runs), cpu_per_message(step.echo.runs)
    ratio = _ratio(live, echo)
    return Verdict(
        target,
        f"{_num(live, 1)} ms against {_num(echo, 1)} ms = {_num(ratio, 1)}×{note}",
        _met(None if ratio is None else ratio <= TARGET_CPU_RATIO),
    )


def saturation_verdict(results: list[StepResult]) -> Verdict:
    target = f"saturation point ≥ {TARGET_SATURATION_SHARE:.0%} of the echo's"
    step = next((r for r in results if r.webs == 1 and r.live.probes), None)
    if step is None or not step.echo.searched:
        return Verdict(target, "no saturation search in this run", "not judged")
    live_rows = [(1.0, step.live.runs), *step.live.probes]
    live_floor = all(passes(runs) for _p, runs in live_rows)  # never saturated
    echo_floor = not step.echo.saturated
    live, echo = step.saturation_rate, step.echo.saturation
    live_text = (
        f"below {min(summarize(r)['rate'] or 0.0 for _p, r in live_rows):,.1f}"
        if live is None
        else f"{live:,.1f}{'+' if live_floor else ''}"
    )
    echo_text = (
        f"below {step.echo.lowest_rate():,.1f}"
        if echo is None
        else f"{echo:,.1f}{'+' if echo_floor else ''}"
    )
    measured = f"{live_text} actions/s against the echo's {echo_text} msg/s"
    ok: bool | None
    if live is None:
        ok = False if echo is not None else None
    elif echo is None:
        ok = None
    else:
        share = live / echo
        measured += f" = {share:.0%}"
        if live_floor or echo_floor:
            measured += " (+: a floor, not saturated at the fastest rate tried)"
        if share >= TARGET_SATURATION_SHARE:
            ok = None if echo_floor else True
        else:
            ok = None if live_floor else False
    return Verdict(target + f" ({step.live.players:,} players)", measured, _met(ok))


def crowd_verdicts(results: list[StepResult]) -> list[Verdict]:
    step, note = _judged_step(results, TARGET_CROWD)
    if step is None:
        return [Verdict(f"{TARGET_CROWD:,} players", "no step", "not judged")]
    live = step.live
    players = f"{live.players:,} players"
    lat, echo = summarize(live.runs)["latency"], summarize(step.echo.runs)["latency"]
    ratios = [_ratio(lat.a[99], echo.a[99]), _ratio(lat.b[99], echo.b[99])]
    known = [r for r in ratios if r is not None]
    verdicts = [
        Verdict(
            f"{players}: p99 ≤ {TARGET_ECHO_RATIO:g}× the echo's p99",
            f"(a) {_num(lat.a[99])} ms = {_num(ratios[0], 1)}×, (b) {_num(lat.b[99])} ms = "
            f"{_num(ratios[1], 1)}× (echo {_num(echo.a[99], 1)} / {_num(echo.b[99], 1)} ms)" + note,
            _met(max(known) <= TARGET_ECHO_RATIO if len(known) == 2 else None),
        )
    ]
    dealt = live.dealt if live.dealt_by_end is None else live.dealt_by_end
    verdicts.append(
        Verdict(
            f"{players}: every table dealt",
            f"{dealt}/{live.tables} by the end ({live.dealt} when the runs began)",
            _met(dealt == live.tables),
        )
    )
    p99 = percentile(live.lateness_ms, 99)
    verdicts.append(
        Verdict(
            f"{players}: timeouts applied within {TARGET_LATENESS_MS / 1000:g} s at p99",
            f"{_num(p99)} ms late at p99 ({len(live.lateness_ms)} timeouts)",
            _met(None if p99 is None else p99 <= TARGET_LATENESS_MS),
        )
    )
    own = {c: n for c, n in live.errors.items() if c in PLAYERS_OWN_MISTAKES}
    other = {c: n for c, n in live.errors.items() if c not in PLAYERS_OWN_MISTAKES}
    listed = ", ".join(f"{c} {n}" for c, n in sorted(other.items(), key=lambda i: -i[1]))
    verdicts.append(
        Verdict(
            f"{players}: no errors but the players' own mistakes "
            f"({', '.join(sorted(PLAYERS_OWN_MISTAKES))})",
            (f"others: {listed}" if other else "no other error")
            + (f"; own mistakes {sum(own.values())}" if own else ""),
            _met(not other),
        )
    )
    connected = live.players - live.not_opened
    verdicts.append(
        Verdict(
            f"{players}: every client converged",
            f"{live.converged}/{connected}"
            + (f" ({live.not_opened} sockets never opened)" if live.not_opened else ""),
            _met(live.converged == connected and not live.not_opened),
        )
    )
    return verdicts


def layers_verdict(results: list[StepResult], context: dict[str, Any]) -> Verdict:
    target = "the echo's own line on both layers"
    rows = []
    for result in results:
        if result.webs != 1:
            continue
        for echo in (result.echo, result.other_echo):
            if echo is not None:
                s = summarize(echo.runs)["latency"]
                rows.append(
                    f"{echo.layer or '?'} {result.live.players:,}: p99 {_num(s.worst_p99, 1)} ms"
                )
    shown = any(r.other_echo is not None for r in results)
    why = context.get("layers_skipped") or "not run"
    return Verdict(target, "; ".join(rows) if rows else "no echo", "shown" if shown else why)


def idle_verdict(context: dict[str, Any]) -> Verdict:
    idle = context.get("idle") or {}
    live = idle.get(context.get("layer", {}).get("live", ""))
    if not live:
        return Verdict("idle costs nothing (item 5)", "not measured", "not run")
    cpu = live["cpu"]
    text = ", ".join(f"{k} {_num(cpu.get(k), 1)}%" for k in IDLE_PROCESSES)
    return Verdict(
        "idle costs nothing (item 5, no numeric target)",
        f"{text} of one core over {live['seconds']:g} s",
        "measured",
    )


def issue19_verdicts(results: list[StepResult], context: dict[str, Any]) -> list[Verdict]:
    return [
        cpu_verdict(results),
        saturation_verdict(results),
        *crowd_verdicts(results),
        layers_verdict(results, context),
        idle_verdict(context),
    ]


def as_json(results: list[StepResult], context: dict[str, Any]) -> dict[str, Any]:
    def figures(runs: list[RunFigures]) -> dict[str, Any]:
        if not runs:
            return {}
        s = summarize(runs)
        latency = s.pop("latency")
        return {**s, "p50_a": latency.a[50], "p99_a": latency.a[99], "p99_b": latency.b[99]}

    steps = []
    for r in results:
        live = r.live
        steps.append(
            {
                "players": live.players,
                "webs": r.webs,
                "tables": live.tables,
                "not_opened": live.not_opened,
                "live": figures(live.runs),
                "echo": figures(r.echo.runs),
                "timeouts": len(live.lateness_ms),
                "lateness_p99": percentile(live.lateness_ms, 99),
                "errors": dict(live.errors),
                "lost": live.lost,
                "resyncs": live.resyncs,
                "late_resyncs": live.late_resyncs,
                "converged": live.converged,
                "echo_lost": r.echo.lost,
                "echo_sent": r.echo.sent,
                "probes": [{"pace": p, **figures(runs)} for p, runs in live.probes],
                "saturation_rate": r.saturation_rate,
                "dealt": live.dealt,
                "dealt_by_end": live.dealt_by_end,
                "cpu_per_action_ms": cpu_per_message(live.runs),
                "echo_cpu_per_broadcast_ms": cpu_per_message(r.echo.runs),
                "cpu_ratio": _ratio(cpu_per_message(live.runs), cpu_per_message(r.echo.runs)),
                "echo_by_layer": [
                    echo_json(echo) for echo in (r.echo, r.other_echo) if echo is not None
                ],
                "profile": profile_json(live.profile),
            }
        )
    return {
        "context": context,
        "steps": steps,
        "connect_retries": dict(CONNECT_RETRIES),
        "targets": [vars(v) for v in issue19_verdicts(results, context)],
    }


def echo_json(echo: EchoPhase) -> dict[str, Any]:
    s = summarize(echo.runs)
    latency = s["latency"]
    return {
        "layer": echo.layer,
        "rate": s["rate"],
        "p50_a": latency.a[50],
        "p99_a": latency.a[99],
        "p50_b": latency.b[50],
        "p99_b": latency.b[99],
        "lost": s["lost"],
        "frames": SEATS * sum(r.rate * r.span for r in echo.runs),
        "cpu_per_broadcast_ms": cpu_per_message(echo.runs),
        "probes": [
            {
                "asked": rate,
                **{k: v for k, v in summarize(runs).items() if k != "latency"},
                "p99": summarize(runs)["latency"].worst_p99,
                "passes": echo_passes(runs),
            }
            for rate, runs in echo.probes
        ],
        "saturation_rate": echo.saturation if echo.searched else None,
        "saturated": echo.saturated if echo.searched else None,
    }


def profile_json(profile: Profile | None) -> dict[str, Any] | None:
    if profile is None:
        return None
    per_action = cpu_per_message([profile.run]) if profile.run else None
    return {
        "path": str(profile.path),
        "rate": profile.rate,
        "samples": profile.total,
        "error": profile.error,
        "cpu_per_action_ms": per_action,
        "categories": {
            name: {
                "samples": count,
                "share": count / profile.total,
                "ms_per_action": None if per_action is None else per_action * count / profile.total,
            }
            for name, count in profile.samples.most_common()
        },
    }


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    # A bench stopped with SIGTERM (kill, a CI timeout) stops its daphne, worker and beat
    # on the way out, as after Ctrl+C: left running, a beat went on sending sweeps into
    # the Redis database the next run measured.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    context: dict[str, Any] = {"cores": os.cpu_count(), "load_before": load_average()}
    env = process_env(options)
    began = time.monotonic()
    logs = Path(tempfile.mkdtemp(prefix="bench-live-"))
    log(f"bench-live: database {options.database}, Redis {options.redis_url}, logs in {logs}")
    recreate_database(options.pg_url, options.database)
    stack: Stack | None = None
    try:
        flush_redis(options.redis_url)
        migrate(env)
        setup_django(env)
        names = create_players(options.max_players)
        # The live stack runs on whatever the settings give (no CHANNEL_LAYER set here):
        # read back from them, as the servers will read it.
        found = server_layer(env)
        layer = found["layer"] or ("pubsub" if "PubSub" in str(found["backend"]) else "core")
        other = OTHER_LAYER[layer] if found["layer"] is not None else None
        context["layer"] = {"live": layer, "backend": found["backend"], "other": other}
        log(f"channel layer of the live stack: {layer} ({found['backend']})")
        context["idle"] = {}
        stack = Stack(env, logs)
        stack.start()
        if options.idle > 0:
            context["idle"][layer] = measure_idle(stack, options.idle)
        started = time.monotonic()
        cookies = sign_in_all(stack.port, names)
        log(
            f"setup: {len(names)} players signed in through /login/ in "
            f"{time.monotonic() - started:.0f} s ({time.monotonic() - began:.0f} s since start)"
        )
        results = asyncio.run(bench(options, stack, cookies, names, layer=layer, logs=logs))
        if options.two_webs:
            # The same stack with two web processes on one Redis layer (docs/deployment.md).
            stack.stop()
            stack = Stack(env, logs, webs=2)
            stack.start()
            log(f"step: {options.two_webs} players on two daphne processes")
            players = names[: options.two_webs]
            results.append(
                asyncio.run(run_step(stack, cookies, players, options, search=False, layer=layer))
            )
        if options.layers == "live":
            context["layers_skipped"] = "not run (--layers live)"
        elif other is None:
            context["layers_skipped"] = "not run (these settings have no CHANNEL_LAYER)"
        else:
            # The echo alone on the other layer: a stack of its own, the same sessions.
            stack.stop()
            other_env = {**env, "CHANNEL_LAYER": other}
            context["layer"]["other_backend"] = server_layer(other_env)["backend"]
            stack = Stack(other_env, logs)
            stack.start()
            if options.idle > 0:
                context["idle"][other] = measure_idle(stack, options.idle)
            asyncio.run(other_layer_echo(stack, cookies, names, options, results, other))
        context["load_after"] = load_average()
        context["seconds"] = round(time.monotonic() - began)
        print(report(results, options, context))
        print(f"(whole run: {context['seconds']} s)")
        if options.json_path:
            Path(options.json_path).write_text(json.dumps(as_json(results, context), default=str))
        return 0
    except BaseException:
        if stack is not None:
            for service in stack.services:
                log(f"----- {service.name} log (tail) -----\n{service.log_text()[-4000:]}")
        raise
    finally:
        if stack is not None:
            stack.stop()
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        if not options.keep:
            with contextlib.suppress(Exception):
                recreate_database(options.pg_url, options.database, drop_only=True)
        with contextlib.suppress(Exception):
            flush_redis(options.redis_url)


if __name__ == "__main__":
    sys.exit(main())
