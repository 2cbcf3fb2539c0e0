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

pytestmark = [pytest.mark.services, pytest.mark.slow]

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
        *("--duration", "2", "--warmup", "2", "--settle", "1"),
        *("--saturation-players", "8", "--saturation-runs", "1", "--saturation-duration", "2"),
        *("--max-probes", "1", "--echo-max-probes", "1", "--idle", "1", "--layers", "live"),
        *("--pg-url", _server_url(), "--database", database),
        *("--redis-url", redis, "--json", str(out)),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DEBUG")}
    done = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr[-6000:]}"
    text = done.stdout
    for heading in (
        "players tables sent/s  act/s",
        "players timeouts",
        "Processes during the runs",
        "Saturation search on the 8-player tables",
        "Echo saturation search on the 8-player sockets",
        "daphne CPU per message",
        "Echo by layer",
        "Idle (the live stack",
        "Targets for one daphne process:",
        "Targets for live play against the echo",
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
    assert step["cpu_per_action_ms"] is None or step["cpu_per_action_ms"] > 0
    # The echo on the live stack's layer only (--layers live): the run on the other layer
    # is the same code on a second stack, 40 s more of the suite (make bench-live runs it).
    layers = [echo["layer"] for echo in step["echo_by_layer"]]
    assert layers == ["pubsub"], layers
    assert set(figures["context"]["idle"]) == set(layers)
    assert len(figures["targets"]) == 9


def test_the_saturation_search_runs_on_the_400_player_tables_when_they_are_a_step():
    """100 players' 25 tables cannot offer one process enough actions to saturate it."""
    from benchmarks.live.options import parse_options

    assert parse_options([]).saturation_players == 400
    assert parse_options(["--steps", "100,1000"]).saturation_players == 100
    assert parse_options(["--saturation-players", "40"]).saturation_players == 40


# --- the report's verdicts, without any process ----------------------------------------


def _usage(daphne: float) -> Any:
    from benchmarks.live.usage import Usage

    names = ("daphne", "worker", "beat", "postgres", "redis", "load-gen")
    return Usage(
        cpu={n: daphne if n == "daphne" else 1.0 for n in names},
        rss={n: 50.0 for n in names},
        machine_busy=50.0,
    )


def _run(rate: float, p99: float, daphne: float, *, lost: int = 0, span: float = 10.0) -> Any:
    from benchmarks.live.figures import Latency, RunFigures

    latency = Latency(
        a={50: p99 / 2, 95: p99, 99: p99},
        b={50: p99 / 2, 95: p99, 99: p99},
        samples=int(rate * span),
    )
    return RunFigures(rate, rate, latency, 0, 0, lost, _usage(daphne), span)


def _step(
    players: int,
    *,
    live_cpu: float = 50.0,
    echo_cpu: float = 10.0,
    live_p99: float = 100.0,
    echo_p99: float = 40.0,
    errors: dict[str, int] | None = None,
    lateness: list[float] | None = None,
    converged: int | None = None,
    dealt: int | None = None,
    live_probes: list[Any] | None = None,
    echo_probes: list[Any] | None = None,
    saturation: float | None = None,
) -> Any:
    from collections import Counter

    from benchmarks.live.load import LivePhase
    from benchmarks.live.steps import StepResult

    tables = players // 4
    live = LivePhase(
        players=players,
        tables=tables,
        not_opened=0,
        runs=[_run(20.0, live_p99, live_cpu)],
        probes=live_probes or [],
        converged=players if converged is None else converged,
        lost=0,
        resyncs=0,
        late_resyncs=0,
        errors=Counter(errors or {}),
        missed=0,
        lateness_ms=[100.0, 200.0] if lateness is None else lateness,
        frame_bytes=900.0,
        seconds=60.0,
        connect_seconds=5.0,
        warmup_seconds=8.0,
        dealt=tables,
        dealt_by_end=tables if dealt is None else dealt,
    )
    echo = _echo(echo_p99, echo_cpu, echo_probes or [], "core")
    return StepResult(live, echo, saturation)


def _echo(p99: float, cpu: float, probes: list, layer: str):
    """An echo phase of 20 msg/s with one run at `p99` and `cpu`, and its search `probes`."""
    from benchmarks.live.echo import EchoPhase

    return EchoPhase(
        runs=[_run(20.0, p99, cpu)],
        at_saturation=[],
        lost=0,
        sent=200,
        seconds=30.0,
        rates=[20.0],
        pad=840,
        probes=probes,
        layer=layer,
    )


def test_cpu_per_message_pools_the_runs_cpu_seconds_over_their_answered_messages():
    from benchmarks.live.figures import cpu_per_message

    # 50% of a core for 10 s = 5 CPU-s over 20/s × 10 s = 200 actions: 25 ms each; a
    # second run at 100% of a core over 100 actions: 10 CPU-s; pooled 15 s / 300 = 50 ms.
    runs = [_run(20.0, 10, 50.0), _run(10.0, 10, 100.0)]
    assert cpu_per_message(runs) == pytest.approx(50.0)
    assert cpu_per_message([_run(0.0, 10, 50.0)]) is None


def test_the_cpu_target_compares_the_400_step_with_its_echo_and_says_when_it_is_missed():
    from benchmarks.live.report import cpu_verdict

    missed = cpu_verdict([_step(100, live_cpu=10.0), _step(400, live_cpu=50.0, echo_cpu=10.0)])
    assert missed.state == "MISSED" and "25.0 ms against 5.0 ms = 5.0×" in missed.measured
    met = cpu_verdict([_step(400, live_cpu=18.0, echo_cpu=10.0)])
    assert met.state == "met" and "1.8×" in met.measured
    elsewhere = cpu_verdict([_step(20)])
    assert "judged at 20" in elsewhere.measured


def test_the_saturation_target_is_the_live_point_over_the_echo_point():
    from benchmarks.live.report import saturation_verdict

    live_probes = [(0.5, [_run(40.0, 300, 90.0)])]  # fails: the live point is pace 1's 20/s
    passing, failing = (40.0, [_run(40.0, 60, 30.0)]), (80.0, [_run(80.0, 400, 90.0)])
    step = _step(400, live_probes=live_probes, echo_probes=[passing, failing], saturation=20.0)
    verdict = saturation_verdict([step])
    assert verdict.state == "met", verdict
    assert "20.0 actions/s against the echo's 40.0 msg/s = 50%" in verdict.measured

    faster = [passing, (60.0, [_run(60.0, 60, 30.0)]), failing]
    step = _step(400, live_probes=live_probes, echo_probes=faster, saturation=20.0)
    assert saturation_verdict([step]).state == "MISSED"  # 20 of 60

    # An echo that lost over 1% of its frames fails its rate however low its p99.
    lossy = [(40.0, [_run(40.0, 60, 30.0, lost=100)])]
    step = _step(400, live_probes=live_probes, echo_probes=lossy, saturation=20.0)
    verdict = saturation_verdict([step])
    assert verdict.state == "met" and "echo's 20.0 msg/s" in verdict.measured


def test_an_echo_that_never_saturated_leaves_a_passing_share_unjudged():
    from benchmarks.live.report import saturation_verdict

    live_probes = [(0.5, [_run(40.0, 300, 90.0)])]
    step = _step(
        400, live_probes=live_probes, echo_probes=[(40.0, [_run(40.0, 60, 30.0)])], saturation=20.0
    )
    verdict = saturation_verdict([step])
    assert verdict.state == "not judged" and "40.0+" in verdict.measured  # 20 of 40 or more
    step = _step(
        400, live_probes=live_probes, echo_probes=[(50.0, [_run(50.0, 60, 30.0)])], saturation=20.0
    )
    assert saturation_verdict([step]).state == "MISSED"  # 20 of 50 or more: under half


def test_the_crowd_verdicts_one_line_per_target():
    from benchmarks.live.report import crowd_verdicts

    good = crowd_verdicts([_step(1000, live_p99=100.0, echo_p99=40.0, errors={"not_your_turn": 2})])
    assert [v.state for v in good] == ["met"] * 5, good
    assert "own mistakes 2" in good[3].measured
    bad = crowd_verdicts(
        [
            _step(
                1000,
                live_p99=500.0,
                echo_p99=40.0,
                lateness=[300, 900],
                errors={"no_shuffle": 9, "stale_version": 3},
                converged=990,
                dealt=200,
            )
        ]
    )
    assert [v.state for v in bad] == ["MISSED"] * 5, bad
    assert "no_shuffle 9, stale_version 3" in bad[3].measured
    assert "200/250" in bad[1].measured and "990/1000" in bad[4].measured


def test_the_timeout_target_is_half_a_second():
    from benchmarks.live.report import TARGET_LATENESS_MS, lateness_line

    assert TARGET_LATENESS_MS == 500
    line = lateness_line([_step(100, lateness=[100.0] * 98 + [600.0, 700.0])])
    assert "within 0.5 s" in line and "600 ms" in line and "MISSED" in line  # nearest rank


def test_the_report_prints_the_cpu_layers_idle_and_target_sections():
    from benchmarks.live.options import parse_options
    from benchmarks.live.report import report

    step = _step(20, echo_probes=[(40.0, [_run(40.0, 60, 30.0)]), (80.0, [_run(80.0, 400, 90)])])
    step.other_echo = _echo(20.0, 8.0, [(40.0, [_run(40.0, 30, 20.0)])], "pubsub")
    idle = {
        "seconds": 5.0,
        "cpu": {"daphne": 0.4, "worker": 15.0, "beat": 1.0, "postgres": 2.0, "redis": 0.5},
        "machine": 20.0,
    }
    context = {
        "cores": 2,
        "load_before": "1",
        "load_after": "1",
        "layer": {
            "live": "core",
            "backend": "x.RedisChannelLayer",
            "other": "pubsub",
            "other_backend": "x.RedisPubSubChannelLayer",
        },
        "idle": {"core": idle, "pubsub": idle},
    }
    text = report([step], parse_options(["--quick"]), context)
    assert "Channel layer of the live stack: core (x.RedisChannelLayer)" in text
    assert "Idle (the live stack, core layer;" in text and "worker 15.0%" in text
    assert "daphne CPU per message" in text
    assert "     20 │          25.00 │              5.00 │   5.0×" in text, text
    assert "Echo saturation search on the 20-player sockets (core layer)" in text
    assert "Echo saturation point: about 40.0 msg/s" in text
    assert "Echo by layer" in text and "pubsub" in text
    assert "about 40.0 or more" in text  # the other layer never failed its probes
    assert "Targets for live play against the echo" in text
    for target in (
        "CPU per accepted action",
        "saturation point ≥ 50%",
        "every table dealt",
        "within 0.5 s at p99",
        "players' own mistakes",
        "every client converged",
        "both layers: ",
        "idle costs nothing",
    ):
        assert target in text, target


def test_the_profile_summary_puts_each_sample_in_its_first_matching_category(tmp_path: Path):
    from benchmarks.live.profile import Profile, summarize_profile
    from benchmarks.live.report import profile_lines

    loop = "run (daphne/cli.py:1);run_forever (asyncio/base_events.py:2);_run (asyncio/events.py:3)"
    pool = (
        "_bootstrap (threading.py:1);_worker (concurrent/futures/thread.py:2);"
        "run (concurrent/futures/thread.py:3);thread_handler (asgiref/sync.py:4)"
    )
    raw = "\n".join(
        [
            f"{pool};action (play/services/commands.py:5);"
            "execute (django/db/models/sql/compiler.py:6);execute (psycopg/cursor.py:7) 30",
            f"{pool};action (play/services/commands.py:5);from_db (django/db/models/base.py:8) 20",
            f"{loop};send (play/frames/broadcast.py:9);dumps (json/__init__.py:10) 10",
            f"{loop};frame (play/frames/build.py:11);view (games/engine.py:12) 15",
            f"{loop};receive (channels_redis/core.py:13) 10",
            f"{loop};touch (play/services/presence.py:14);execute (psycopg/cursor.py:7) 5",
            f"{loop};changed (lobby/broadcast.py:15) 2",
            f"{loop};doRead (twisted/internet/tcp.py:16);onMessage (daphne/ws_protocol.py:17) 4",
            f"{loop};handler (play/edge/consumers.py:18);handle_reply (daphne/server.py:19) 1",
            f"{loop};dispatch (channels/consumer.py:20) 1",
            f"{loop} 1",
            f"{loop};_run_once (asyncio/base_events.py:21);select (selectors.py:22) 1",
        ]
    )
    counts = summarize_profile(raw)
    assert counts == {
        "PostgreSQL queries/commits": 35,
        "ORM model building": 20,
        "JSON": 10,
        "per-seat views and frames": 15,
        "channel layer": 10,
        "lobby": 2,
        "WebSocket server": 5,
        "Channels/asgiref plumbing": 1,
        "asyncio event loop": 2,
    }
    path = tmp_path / "daphne-400.txt"
    path.write_text(raw)
    profile = Profile(path, _run(10.0, 10, 100.0), counts, 100)
    text = "\n".join(profile_lines(profile, 400))
    assert str(path) in text
    # 100% of a core over 100 actions: 100 ms each; the database's 35% of it is 35 ms.
    assert "100 samples" in text and "100.0 ms of daphne CPU per accepted action" in text
    assert "PostgreSQL queries/commits         35  35.0%      35.00" in text, text


def test_the_new_options_and_their_quick_values():
    from benchmarks.live.options import parse_options

    full, quick = parse_options([]), parse_options(["--quick"])
    assert (full.idle, full.echo_max_probes, full.layers, full.profile) == (10.0, 6, "both", False)
    assert (quick.idle, quick.echo_max_probes) == (5.0, 2)
    assert full.profile_players == 400 and quick.profile_players == 20
    options = parse_options(["--profile", "--profile-players", "100", "--layers", "live"])
    assert (options.profile, options.profile_players, options.layers) == (True, 100, "live")
