"""`make bench-live` at a tiny scale against real processes: daphne, a Celery worker and
beat on PostgreSQL and Redis, 8 players signed in through the login form, a few seconds
of play, the echo baseline and one saturation probe. It checks that the benchmark runs
end to end and prints its table with sane numbers — never how fast anything is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from django.db import connection

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]


def _server_url() -> str:
    """The test database's server, as a URL to its `postgres` database."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = quote(db["PASSWORD"] or "", safe="")
    auth = f"{user}:{password}@" if password else f"{user}@" if user else ""
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{auth}{db['HOST'] or '127.0.0.1'}{port}/postgres"


def test_bench_live_runs_end_to_end_at_tiny_scale(
    postgres: None, redis_url: str, tmp_path: Path
) -> None:
    parts = urlsplit(redis_url)
    redis = urlunsplit((parts.scheme, parts.netloc, "/14", "", ""))  # its own, flushed
    database = f"{connection.settings_dict['TEST']['NAME']}_bench_smoke"
    out = tmp_path / "figures.json"
    argv = [
        *(sys.executable, "-m", "benchmarks.live", "--steps", "8", "--runs", "1"),
        *("--duration", "3", "--warmup", "3", "--settle", "1"),
        *("--saturation-players", "8", "--saturation-runs", "1", "--saturation-duration", "2"),
        *("--max-probes", "1", "--pg-url", _server_url(), "--database", database),
        *("--redis-url", redis, "--json", str(out)),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DEBUG")}
    done = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=150, check=False
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr[-6000:]}"
    text = done.stdout
    for heading in (
        "players tables sent/s  act/s",
        "players timeouts",
        "Processes during the runs",
        "Saturation search on the 8-player tables",
        "Targets for one daphne process:",
    ):
        assert heading in text, text
    assert "\n      8      2 " in text, text  # the step's row: 8 players at 2 tables

    figures: dict[str, Any] = json.loads(out.read_text())
    (step,) = figures["steps"]
    assert (step["players"], step["tables"], step["not_opened"]) == (8, 2, 0)
    live, echo = step["live"], step["echo"]
    assert live["sent_rate"] > 0 and 0 <= live["rate"] <= live["sent_rate"]
    if live["p99_a"] is not None:
        assert 0 < live["p50_a"] <= live["p99_a"] < 60_000
    assert step["converged"] == 8, "every client reaches its table's final version"
    assert step["lost"] >= 0 and step["resyncs"] >= 0
    assert step["echo_sent"] > 0 and 0 <= step["echo_lost"] <= 4 * step["echo_sent"]
    assert echo["p99_a"] is None or echo["p99_a"] > 0
    for name in ("daphne", "worker", "beat", "load-gen"):
        assert live["cpu"][name] >= 0 and live["rss"][name] > 10, name
    # One probe (--max-probes 1), and one more between the two paces when its verdict
    # differs from pace 1's (the search tries once between the last pass and first fail).
    assert 1 <= len(step["probes"]) <= 2 and step["probes"][0]["pace"] in (0.5, 1.5)


def test_the_saturation_search_runs_on_the_400_player_tables_when_they_are_a_step():
    """100 players' 25 tables cannot offer one process enough actions to saturate it."""
    from benchmarks.live import parse_options

    assert parse_options([]).saturation_players == 400
    assert parse_options(["--steps", "100,1000"]).saturation_players == 100
    assert parse_options(["--saturation-players", "40"]).saturation_players == 40
