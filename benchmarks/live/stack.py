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
import subprocess
import sys
import time
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
from benchmarks.processes import Service, free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
if not (BIN / "daphne").exists():  # pragma: no cover - run from outside the venv
    BIN = ROOT / ".venv" / "bin"

SETTINGS_MODULE = "benchmarks.live.settings"


STARTUP_TIMEOUT = 60.0
HTTP_TIMEOUT = 30.0


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


def http_request(port: int, method: str, path: str) -> tuple[int, str, dict[str, str]]:
    return http_login.http_request(port, method, path, timeout=HTTP_TIMEOUT)


async def measure(stack: Stack, seconds: float) -> Window:
    before = stack.sample()
    await asyncio.sleep(seconds)
    after = stack.sample()
    return Window(before.wall, after.wall, usage_between(before, after))
