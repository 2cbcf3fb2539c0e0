"""Simulation: AI seats play many rounds through the rules engine; mean and 95% CI.

`simulate(variant=, level=, rounds=, seed=, workers=)` plays `rounds` rounds with every
seat an AI (`games.ai`), through `engine.new_game` / `engine.apply` exactly as a table
would, each decision made from `engine.view(state, seat)` and the legal actions only.

What one "round" and its result are, per variant (the mean is over these samples):

============  ====================  ======================================================
variant       a round               its result (the sample)
============  ====================  ======================================================
blackjack     a round, one seat     the seat's units won (split and doubled hands summed),
                                    per 1-unit initial bet
classic       a round, two seats    points, the mean of the two seats (one sample per round:
                                    the seats share a dealer, so their results correlate)
salon         a deal, four seats    ``ponter``: chips per chip bet, the mean over the deal's
                                    three ponters (every ponter bets the table minimum);
                                    ``banker``: the banker's chips per deal, in table minimums.
                                    Every seat plays its role's AI whatever the level; the
                                    level picks the side that is measured
banker36      a duel, four seats    the player's chips per chip bet (won +1, lost −1),
                                    whatever the bet; the chips won per chip staked
                                    overall (which the bet choice moves) is reported too
solo          a round               coins per coin bet (won +1, lost −1)
============  ====================  ======================================================

Work is split into chunks of a fixed size (`CHUNK_ROUNDS`), each played from its own
seed ``f"{seed}:{index}"``. Chunks are spread over `workers` processes, and their sums
are combined in chunk order, so the result depends on (variant, level, rounds, seed)
only — never on the number of workers. Each chunk is one long record where the variant
allows (a `blackjack` game of 1,000 rounds, a `banker36` game of many banks), or a run of
records (a `classic` match is at most 10 rounds, a `solo` game ends by itself).

The 95% confidence interval is the normal approximation, mean ± 1.96 · s / √n.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from games import ai, engine

__all__ = [
    "CHUNK_ROUNDS",
    "SimulationResult",
    "bench_figures",
    "format_simulation",
    "simulate",
]

Z95 = 1.959963984540054

# Rounds (deals, duels) per chunk, per variant. Fixed: the chunking (and so the result)
# must not depend on the worker count. Blackjack's 1,000-round records are about where
# the engine is fastest (a record's history is shared, not copied, but its list of
# rounds is still copied on every move); salon's view copies every settled deal, so its
# records are kept short (`_SALON_DEALS`).
CHUNK_ROUNDS: dict[str, int] = {
    "blackjack": 1000,
    "classic": 500,
    "salon": 500,
    "banker36": 1000,
    "solo": 1000,
}

_BIG_CHIPS = 1_000_000  # no seat runs short within a chunk
_SALON_SEATS = 4
_SALON_DEALS = 20
_SALON_OPTIONS = {"min_bet": 10, "max_bet": 100}
_BANKER36_SEATS = 4
_BANKER36_OPTIONS = {"stake": 10, "entry_limit": 100}
_CLASSIC_SEATS = 2
_CLASSIC_MATCH = 10

_UNITS: dict[str, str] = {
    "blackjack": "units per round (one seat, 1-unit initial bet)",
    "classic": "points per seat-round (two seats)",
    "salon:ponter": "chips per chip bet, per ponter-deal (three ponters at the minimum bet)",
    "salon:banker": "banker's chips per deal, in table minimums (three ponters)",
    "banker36": "chips per chip bet, per duel (three players against the bank)",
    "solo": "coins per coin bet, per round",
}


@dataclass(frozen=True)
class _Stats:
    """One chunk's sums: count, sum and sum of squares of the samples, plus extras
    (banker36: chips won, chips staked)."""

    n: int
    total: float
    squares: float
    extra: tuple[float, ...] = ()


@dataclass(frozen=True)
class SimulationResult:
    variant: str
    level: str
    seed: str
    rounds: int  # rounds asked for (deals for salon, duels for banker36)
    samples: int  # values the mean is over
    mean: float
    stdev: float  # of one sample
    half_width: float  # of the 95% confidence interval
    unit: str
    chunks: int
    workers: int  # processes used
    expected: float | None = None  # the computed expectation, where one exists
    expected_label: str = ""
    notes: tuple[tuple[str, str], ...] = ()

    @property
    def ci_low(self) -> float:
        return self.mean - self.half_width

    @property
    def ci_high(self) -> float:
        return self.mean + self.half_width

    def contains(self, value: float) -> bool:
        return self.ci_low <= value <= self.ci_high


# --- playing --------------------------------------------------------------------------


def _play(
    state: dict[str, Any], variant: str, level: str, stop: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """AI moves until the record is finished or `stop(state)` says enough."""
    choose = ai.choose_action
    view = engine.view
    apply = engine.apply
    seats = [seat["id"] for seat in state["seats"]]
    only = seats[0] if len(seats) == 1 else None
    while not state["finished"] and not stop(state):
        if only is not None:
            seen = view(state, only)
            legal = seen["actions"]
        else:
            turn = engine.legal_actions(state)
            assert turn is not None
            seen = view(state, turn["seat"])
            legal = turn["actions"]
        state, _ = apply(state, choose(variant, level, seen, legal))
    return state


def _never(state: dict[str, Any]) -> bool:
    return False


def _enough(count: int) -> Callable[[dict[str, Any]], bool]:
    def stop(state: dict[str, Any]) -> bool:
        return len(state["rounds"]) >= count

    return stop


def _chunk_blackjack(level: str, seed: str, size: int) -> _Stats:
    state, _ = engine.new_game(
        "blackjack", seats=[{"id": "ai"}], options={"rounds": size}, seed=seed
    )
    state = _play(state, "blackjack", level, _never)
    values = [sum(hand.get("delta", 0) for hand in unit["hands"]) for unit in state["rounds"]]
    return _sums(values)


def _chunk_classic(level: str, seed: str, size: int) -> _Stats:
    seats = [{"id": f"ai{k + 1}"} for k in range(_CLASSIC_SEATS)]
    values: list[float] = []
    game = 0
    while len(values) < size:
        state, _ = engine.new_game(
            "classic", seats=seats, options={"rounds": _CLASSIC_MATCH}, seed=f"{seed}:{game}"
        )
        state = _play(state, "classic", level, _enough(size - len(values)))
        for unit in state["rounds"]:
            deltas = [hand["delta"] for hand in unit["hands"] if "delta" in hand]
            values.append(sum(deltas) / len(deltas))
        game += 1
    return _sums(values[:size])


def _chunk_salon(level: str, seed: str, size: int) -> _Stats:
    seats = [{"id": f"ai{k + 1}", "chips": _BIG_CHIPS} for k in range(_SALON_SEATS)]
    least = _SALON_OPTIONS["min_bet"]
    values: list[float] = []
    game = 0
    while len(values) < size:
        deals = min(_SALON_DEALS, size - len(values))
        options = {**_SALON_OPTIONS, "deals": deals}
        state, _ = engine.new_game("salon", seats=seats, options=options, seed=f"{seed}:{game}")
        state = _play(state, "salon", level, _never)
        for unit in state["rounds"]:
            ponters = [hand for hand in unit["hands"] if "delta" in hand]
            if not ponters:
                continue
            if level == "banker":
                values.append(-sum(hand["delta"] for hand in ponters) / least)
            else:
                values.append(sum(hand["delta"] / least for hand in ponters) / len(ponters))
        game += 1
    return _sums(values[:size])


def _chunk_banker36(level: str, seed: str, size: int) -> _Stats:
    seats = [{"id": f"ai{k + 1}", "chips": _BIG_CHIPS} for k in range(_BANKER36_SEATS)]
    options = {**_BANKER36_OPTIONS, "banks": size}  # every bank has a duel at least
    state, _ = engine.new_game("banker36", seats=seats, options=options, seed=seed)
    state = _play(state, "banker36", level, _enough(size))
    values: list[float] = []
    won = staked = 0.0
    for unit in state["rounds"][:size]:
        delta = unit["hands"][0]["delta"]  # the bet, won (+) or lost (−)
        values.append(1.0 if delta > 0 else -1.0)
        won += delta
        staked += abs(delta)
    return _sums(values, (won, staked))


def _chunk_solo(level: str, seed: str, size: int) -> _Stats:
    values: list[float] = []
    game = 0
    while len(values) < size:
        state, _ = engine.new_game("solo", seats=[{"id": "ai"}], seed=f"{seed}:{game}")
        state = _play(state, "solo", level, _enough(size - len(values)))
        for unit in state["rounds"]:
            delta = unit["hands"][0]["delta"]
            values.append(1.0 if delta > 0 else -1.0)
        game += 1
    return _sums(values[:size])


_CHUNKS: dict[str, Callable[[str, str, int], _Stats]] = {
    "blackjack": _chunk_blackjack,
    "classic": _chunk_classic,
    "salon": _chunk_salon,
    "banker36": _chunk_banker36,
    "solo": _chunk_solo,
}


def _sums(values: list[float], extra: tuple[float, ...] = ()) -> _Stats:
    return _Stats(len(values), math.fsum(values), math.fsum(v * v for v in values), extra)


def _run_chunk(task: tuple[str, str, str, int]) -> _Stats:
    variant, level, seed, size = task
    return _CHUNKS[variant](level, seed, size)


def _tasks(variant: str, level: str, rounds: int, seed: str) -> list[tuple[str, str, str, int]]:
    size = CHUNK_ROUNDS[variant]
    count = -(-rounds // size)
    return [
        (variant, level, f"{seed}:{index}", min(size, rounds - index * size))
        for index in range(count)
    ]


def _context() -> Any:
    # fork: the workers inherit the strategy tables the parent computed (`ai.prepare`);
    # elsewhere (spawn) each worker computes them once, on its first chunk.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _results(tasks: list[tuple[str, str, str, int]], workers: int) -> Iterator[_Stats]:
    if workers <= 1:
        for task in tasks:
            yield _run_chunk(task)
        return
    with _context().Pool(processes=workers) as pool:
        yield from pool.imap(_run_chunk, tasks, chunksize=1)


# --- the result -----------------------------------------------------------------------


def _expected(variant: str, level: str) -> tuple[float | None, str]:
    """The strategy engine's expectation for the simulated quantity, where it has one."""
    if level != "hard":
        return None, ""
    if variant == "blackjack":
        from games.strategy import blackjack

        return -blackjack.house_edge(), "computed expected return (−house edge, full shoe)"
    if variant == "banker36":
        from games.strategy import banker36

        return banker36.expected_return(), "computed expected return per chip (fresh deck)"
    if variant == "classic":
        from games.strategy import classic

        return classic.expected_points(), "computed expected points (one player, model)"
    return None, ""


def simulate(
    *, variant: str, level: str, rounds: int, seed: str, workers: int | None = None
) -> SimulationResult:
    """Play `rounds` rounds (deals for salon, duels for banker36) with AI seats of `level`.

    `workers` processes (default: every core) play the fixed-size chunks; the result is
    the same for any number of workers.
    """
    if variant not in ai.LEVELS:
        raise ValueError(f"no AI for variant {variant!r}: {', '.join(ai.LEVELS)}")
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    ai.prepare(variant, level)  # also checks the level
    tasks = _tasks(variant, level, rounds, seed)
    wanted = (os.cpu_count() or 1) if workers is None else workers
    used = max(1, min(wanted, len(tasks)))
    n = 0
    total = squares = 0.0
    extra: list[float] = []
    for stats in _results(tasks, used):
        n += stats.n
        total += stats.total
        squares += stats.squares
        if not extra:
            extra = [0.0] * len(stats.extra)
        for k, value in enumerate(stats.extra):
            extra[k] += value
    mean = total / n
    if n > 1:
        variance = max(squares - n * mean * mean, 0.0) / (n - 1)
        stdev = math.sqrt(variance)
        half = Z95 * stdev / math.sqrt(n)
    else:
        stdev = half = math.inf
    notes: list[tuple[str, str]] = []
    if variant == "banker36" and extra and extra[1] > 0:
        notes.append(("chips won per chip staked, all duels", f"{extra[0] / extra[1]:+.5f}"))
    if variant == "salon":
        notes.append(("seats", "every ponter plays 'ponter', the banker 'banker'"))
    expected, label = _expected(variant, level)
    unit_key = f"salon:{level}" if variant == "salon" else variant
    return SimulationResult(
        variant=variant,
        level=level,
        seed=seed,
        rounds=rounds,
        samples=n,
        mean=mean,
        stdev=stdev,
        half_width=half,
        unit=_UNITS[unit_key],
        chunks=len(tasks),
        workers=used,
        expected=expected,
        expected_label=label,
        notes=tuple(notes),
    )


def format_simulation(result: SimulationResult) -> str:
    """The text `python -m games simulate` prints."""
    lines = [
        f"simulation: {result.variant}, AI level {result.level}, seed {result.seed!r}",
        f"rounds: {result.rounds:,} ({result.samples:,} samples, {result.chunks} chunks, "
        f"{result.workers} worker{'s' if result.workers != 1 else ''})",
        f"unit: {result.unit}",
        f"mean: {result.mean:+.5f}",
        f"95% CI: [{result.ci_low:+.5f}, {result.ci_high:+.5f}] "
        f"(± {result.half_width:.5f}; standard deviation {result.stdev:.4f})",
    ]
    if result.expected is not None:
        inside = "inside" if result.contains(result.expected) else "OUTSIDE"
        lines.append(f"{result.expected_label}: {result.expected:+.5f} ({inside} the CI)")
    for label, value in result.notes:
        lines.append(f"{label}: {value}")
    return "\n".join(lines)


# --- bench figures --------------------------------------------------------------------


def bench_figures(quick: bool, clock: Callable[[], float]) -> list[tuple[str, str]]:
    """(label, value) lines for `make bench`: simulation speed and strategy time.

    * blackjack ``hard`` rounds per second per core: one process, the median of a few
      chunks (20,000 rounds each; 2,000 when `quick`), and what that makes of one million
      rounds on two cores (target: under 60 s);
    * the full blackjack strategy computed fresh (its memo cleared), median of 3
      (1 when `quick`; target: under 10 s).

    `clock` (seconds) times each run; the caller (`benchmarks/`) passes one, since the
    engine's package never reads a clock itself.
    """
    from games.strategy import _twentyone
    from games.strategy import blackjack as computed

    tick = clock
    ai.prepare("blackjack", "hard")
    size = 2_000 if quick else 20_000
    runs = 3
    rates = []
    for run in range(runs):
        start = tick()
        for index in range(size // CHUNK_ROUNDS["blackjack"]):
            _run_chunk(("blackjack", "hard", f"bench:{run}:{index}", CHUNK_ROUNDS["blackjack"]))
        rates.append(size / max(tick() - start, 1e-9))
    rate = statistics.median(rates)
    million = 1_000_000 / (2 * rate)

    times = []
    for _ in range(1 if quick else 3):
        computed._compute.cache_clear()
        _twentyone.dealer_graph.cache_clear()
        start = tick()
        computed.compute_strategy()
        times.append(tick() - start)
    strategy_time = statistics.median(times)
    return [
        ("simulation: blackjack hard, rounds/s per core", f"{rate:,.0f}"),
        (
            "simulation: 1,000,000 blackjack rounds on 2 cores (projected)",
            f"{million:.1f} s (target < 60 s)",
        ),
        ("strategy: full blackjack strategy, fresh", f"{strategy_time:.2f} s (target < 10 s)"),
    ]
