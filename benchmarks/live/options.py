"""The benchmark's command line: what it runs, at which scale, against which servers.

`--quick` shrinks every default to a smoke run; an option given explicitly wins over
both. The constants here are the shape of the load (four seats a table, the variants
played, the stake) and the step the targets are judged at.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PASSWORD = "Bench-Live-Pass-42"
SEATS = 4
VARIANTS = ("banker36", "blackjack")
STAKE = 10


TARGET_PLAYERS = 400


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
        # one process takes under the limit (the search then only finds a floor).
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


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
