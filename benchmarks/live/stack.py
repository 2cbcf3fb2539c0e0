"""The production stack as real processes on this machine: daphne (one or more processes,
each on its own port), Celery workers and Celery beat on PostgreSQL and Redis, as
`docker compose` runs them — and, for a test that restarts Redis, a `redis-server` of the
stack's own.

`make bench-live` and the integration tests (tests/integration/live_stack.py) both start
their processes through `Stack`: what differs is the environment they pass (the
benchmark's production settings on a database of its own; the tests' settings on the test
database) and the worker's options. The environment is passed whole, so a stack inherits
whatever the caller's process has (the test runner's CHANNEL_LAYER_PREFIX and per-process
REDIS_URL, say) unless the caller overrides it.

Also here: the benchmark's database, Redis and Django setup, and its measuring windows.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from benchmarks import http_login
from benchmarks.live.figures import Window
from benchmarks.live.options import Options
from benchmarks.live.usage import (
    Sample,
    find_postmaster,
    find_redis,
    group_usage,
    machine_ticks,
    scan,
    tree_usage,
    usage_between,
)

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
if not (BIN / "daphne").exists():  # pragma: no cover - run from outside the venv
    BIN = ROOT / ".venv" / "bin"

SETTINGS_MODULE = "benchmarks.live.settings"
ASGI_APP = "config.asgi:application"
STARTUP_TIMEOUT = 60.0  # a process's readiness
HEALTH_TIMEOUT = 10.0  # one /healthz request


class ServiceError(AssertionError):
    """A service exited, or did not get ready in time. (An AssertionError: to a test it is
    a failure like any other.)"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Service:
    """One program (daphne, a Celery worker, beat, redis-server) run in a session of its
    own, so that a signal reaches it and its children (the worker's pool) and nothing
    else; restartable, each run logging to a file of its own (`<name>-<n>.log`, never one
    an earlier run or stack in the same folder wrote)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.argv, self.env, self.logs = name, argv, env, logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_files: list[Path] = []

    def start(self) -> None:
        number = len(self.log_files) + 1
        while (log := self.logs / f"{self.name}-{number}.log").exists():
            number += 1
        self.log_files.append(log)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pgid(self) -> int:
        """Its process group (= its pid): itself and its children."""
        assert self.proc is not None
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _signal(self, sig: signal.Signals) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        if self.running():
            self._signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=10)

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM, then SIGKILL after `timeout` s; children of the group that outlived
        their parent (the worker's pool) are killed too."""
        if self.proc is None:
            return
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
            if self.proc.poll() is not None:
                break
            self._signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=wait)
        self._signal(signal.SIGKILL)

    def log_text(self, run: int | None = None) -> str:
        """Every run's log, or only run number `run` (1, 2, …)."""
        paths = self.log_files if run is None else self.log_files[run - 1 : run]
        return "".join(path.read_text(errors="replace") for path in paths if path.exists())

    def wait_for_log(
        self, pattern: str, timeout: float = STARTUP_TIMEOUT, *, run: int | None = None
    ) -> re.Match[str]:
        """The first match of `pattern` in the log (every run's, or run `run`'s), once it
        appears."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.search(pattern, self.log_text(run))
            if found:
                return found
            if not self.running():
                code = self.proc and self.proc.poll()
                raise ServiceError(
                    f"{self.name} exited (code {code}):\n{self.log_text(run)[-3000:]}"
                )
            time.sleep(0.1)
        raise ServiceError(f"{self.name}: no {pattern!r} in its log within {timeout:.0f} s")


class Stack:
    """daphne (`webs` processes, each on its own port), Celery workers and Celery beat on
    the database and Redis that `env` names, as `docker compose` runs them.

    `worker_options` are added to every worker's command line (the tests run a solo pool
    without gossip, mingle or heartbeats; the benchmark, production's prefork pool). With
    `private_redis`, a `redis-server` of the stack's own on a free port is the channel
    layer, the cache and the broker (`env`'s REDIS_URL is replaced), so that a test may
    stop and restart it without disturbing anything else on the machine."""

    def __init__(
        self,
        env: dict[str, str],
        logs: Path,
        *,
        webs: int = 1,
        workers: int = 1,
        worker_options: Sequence[str] = (),
        beat: bool = True,
        private_redis: bool = False,
    ) -> None:
        logs.mkdir(parents=True, exist_ok=True)
        # Workers' names and beat's schedule file of this stack's own: two stacks on one
        # machine (or one after another in the same folder) never share them.
        tag = uuid.uuid4().hex[:8]
        self.redis: Service | None = None
        if private_redis:
            self.redis_port = free_port()
            self.redis = Service(
                "redis",
                [
                    *("redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1"),
                    *("--save", "", "--appendonly", "no", "--daemonize", "no"),
                ],
                env,
                logs,
            )
            env = {**env, "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0"}
        self.env = env
        self.ports = [free_port() for _ in range(webs)]
        self.webs = [
            Service(
                "daphne" if webs == 1 else f"daphne{i + 1}",
                [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), ASGI_APP],
                env,
                logs,
            )
            for i, port in enumerate(self.ports)
        ]
        self.workers = [
            Service(
                "worker" if workers == 1 else f"worker{i + 1}",
                [
                    *(str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "INFO"),
                    *("--hostname", f"stack-{tag}-{i + 1}@%h", *worker_options),
                ],
                env,
                logs,
            )
            for i in range(workers)
        ]
        self.beat: Service | None = None
        if beat:
            self.beat = Service(
                "beat",
                [
                    *(str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "INFO"),
                    *("--schedule", str(logs / f"beat-schedule-{tag}")),
                ],
                env,
                logs,
            )
        self.services = [*self.webs, *self.workers, *([self.beat] if self.beat else [])]
        if self.redis is not None:
            self.services.insert(0, self.redis)
        self._postmaster_pid: int | None = None
        self._redis_pid: int | None = None

    # The first web process and worker, for a stack of one.
    @property
    def daphne(self) -> Service:
        return self.webs[0]

    @property
    def port(self) -> int:
        return self.ports[0]

    @property
    def worker(self) -> Service:
        return self.workers[0]

    @property
    def redis_url(self) -> str:
        return self.env["REDIS_URL"]

    def start(self) -> None:
        """Start every process and wait until each is ready: daphne answers /healthz, a
        worker says it is ready, beat that it is starting."""
        if self.redis is not None:
            self.start_redis()
        for service in self.services:
            if service is not self.redis:
                service.start()
        for index in range(len(self.webs)):
            self.wait_for_daphne(index)
        for worker in self.workers:
            self.wait_for_worker(worker)
        if self.beat is not None:
            self.wait_for_beat()

    def start_redis(self) -> None:
        assert self.redis is not None
        self.redis.start()
        self.redis.wait_for_log(r"Ready to accept connections", run=len(self.redis.log_files))

    def wait_for_worker(self, worker: Service) -> None:
        worker.wait_for_log(r"@\S+ ready\.", run=len(worker.log_files))

    def wait_for_beat(self) -> None:
        assert self.beat is not None
        self.beat.wait_for_log(r"beat: Starting", run=len(self.beat.log_files))

    def wait_for_daphne(self, index: int = 0, timeout: float = STARTUP_TIMEOUT) -> None:
        web, port = self.webs[index], self.ports[index]
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not web.running():
                raise ServiceError(
                    f"{web.name} exited before answering /healthz:\n{web.log_text()[-3000:]}"
                )
            with contextlib.suppress(OSError, http.client.HTTPException):
                status = http_login.http_request(port, "GET", "/healthz", timeout=HEALTH_TIMEOUT)[0]
                if status == 200:
                    return
            time.sleep(0.05)
        raise ServiceError(f"{web.name} did not answer /healthz within {timeout:.0f} s")

    def restart_daphne(self, index: int = 0) -> float:
        """Start a daphne again on its port; returns the seconds until it answered."""
        began = time.monotonic()
        self.webs[index].start()
        self.wait_for_daphne(index)
        return time.monotonic() - began

    def stop(self) -> None:
        for service in reversed(self.services):
            service.stop()

    def logs(self, lines: int = 150) -> str:
        """The last `lines` of every process's log."""
        parts = []
        for service in self.services:
            tail = "\n".join(service.log_text().splitlines()[-lines:])
            parts.append(f"----- {service.name} (last {lines} lines) -----\n{tail}")
        return "\n".join(parts)

    def sample(self) -> Sample:
        """CPU and RSS of every process of the stack, of this process (the load
        generator), of the machine's PostgreSQL and of the Redis the stack uses."""
        procs = scan()
        groups = {service.name: group_usage(procs, service.pgid) for service in self.services}
        if len(self.webs) > 1:  # "daphne": every web process together
            usage = [groups[web.name] for web in self.webs]
            groups["daphne"] = (sum(cpu for cpu, _ in usage), sum(rss for _, rss in usage))
        me = procs.get(os.getpid())
        groups["load-gen"] = (me.cpu, me.rss) if me else (0.0, 0.0)
        if self._postmaster_pid is None:
            self._postmaster_pid = find_postmaster(procs)
        if self._redis_pid is None:
            port = urlsplit(self.redis_url).port or 6379
            self._redis_pid = find_redis(procs, port)
        groups["postgres"] = tree_usage(procs, self._postmaster_pid)
        groups["redis"] = tree_usage(procs, self._redis_pid)
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


async def measure(stack: Stack, seconds: float) -> Window:
    before = stack.sample()
    await asyncio.sleep(seconds)
    after = stack.sample()
    return Window(before.wall, after.wall, usage_between(before, after))
