"""The AI levels measured by the decision review (`python -m games review-ai`).

`review_ai(variant=, level=, rounds=, seed=, workers=)` has AI seats of one level play
hand records through the rules engine (`engine.new_game` / `engine.apply`, every decision
by `games.ai.choose_action` from the seat's view and legal actions), then reviews every
AI decision of each record with `games.strategy.review.review_record`: the value of each
option the seat had, the best, and the value lost by the choice. Summed up as the
review's `summary` does: decisions, accuracy (the share of decisions whose choice is a
best option) and value lost per 100 decisions.

Every level plays the same deals: record *i* is shuffled from the seed ``f"{seed}:{i}"``
whatever the level, and each record is short enough that its deals are the same for
every level:

============  ======================================  ====================================
variant       a record (``rounds`` counts)            the unit of value
============  ======================================  ====================================
blackjack     one round, one seat, a fresh shoe       units (1-unit initial bet)
              (rounds: records)
classic       a match of 10 rounds, two seats;        points (+100 a win)
              every round is a fresh deck shuffled
              from (seed, round), so every round's
              deal is the same for every level
              (rounds: rounds, the last match cut
              short)
banker36      one bank, four seats: a circle, and     the table's stake (chips ÷ stake;
              the stuk circle when called             stake 10)
              (rounds: banks)
solo          up to `SOLO_ROUNDS` rounds of one       coins
              game, a fresh deck every round
              (rounds: rounds)
============  ======================================  ====================================

In `banker36` a circle's deck is the same for every level; which cards a duel draws,
whether stuk is called and the bets offered then follow the play. A `solo` game that ends
early (bank broken, player broke, stuk) leaves its record short: `player` cannot end a
game within 10 rounds (25-coin bets against a 300 bank and 1,000 coins).

Records are split into chunks of `CHUNK` records; chunks run on `workers` processes and
their sums are added in chunk order, so a result depends on (variant, level, rounds,
seed) only, never on the number of workers.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from games import ai, engine
from games.strategy import review

__all__ = [
    "LEVELS",
    "UNITS",
    "AIReview",
    "format_review_ai",
    "play_record",
    "review_ai",
    "review_levels",
]

# The levels reviewed per variant, in the order their names promise (most loss first).
LEVELS: dict[str, tuple[str, ...]] = {
    "blackjack": ("easy", "medium", "hard"),
    "classic": ("easy", "medium", "hard"),
    "banker36": ("easy", "hard"),
    "solo": ("player",),
}

UNITS: dict[str, str] = {
    "blackjack": "units (1-unit initial bet)",
    "classic": "points",
    "banker36": "stakes (chips ÷ the table's stake of 10)",
    "solo": "coins",
}

CHUNK = 200  # records per chunk (fixed: the result must not depend on the worker count)
CLASSIC_MATCH = 10
CLASSIC_SEATS = 2
BANKER36_SEATS = 4
BANKER36_OPTIONS = {"stake": 10, "entry_limit": 100, "banks": 1}
BANKER36_CHIPS = 1_000_000
SOLO_ROUNDS = 10


def _seats(variant: str) -> list[dict[str, Any]]:
    if variant == "classic":
        return [{"id": f"ai{k + 1}"} for k in range(CLASSIC_SEATS)]
    if variant == "banker36":
        return [{"id": f"ai{k + 1}", "chips": BANKER36_CHIPS} for k in range(BANKER36_SEATS)]
    return [{"id": "ai"}]


def _options(variant: str) -> dict[str, Any]:
    if variant == "blackjack":
        return {"rounds": 1}
    if variant == "classic":
        return {"rounds": CLASSIC_MATCH}
    if variant == "banker36":
        return dict(BANKER36_OPTIONS)
    return {}


def play_record(variant: str, level: str, seed: str, rounds: int | None = None) -> dict[str, Any]:
    """A hand record played by AI seats of `level` from `seed`: every decision from the
    seat's view and legal actions only. `rounds` stops a `classic` or `solo` record once
    that many rounds are settled (a record may stop awaiting an action)."""
    seats = _seats(variant)
    options = _options(variant)
    state, _ = engine.new_game(variant, seats=seats, options=options, seed=seed)
    actions: list[dict[str, Any]] = []
    choose = ai.choose_action
    while not state["finished"] and (rounds is None or len(state["rounds"]) < rounds):
        turn = engine.legal_actions(state)
        assert turn is not None
        seen = engine.view(state, turn["seat"])
        action = choose(variant, level, seen, turn["actions"])
        actions.append(action)
        state, _ = engine.apply(state, action)
    return {
        "variant": variant,
        "seats": seats,
        "options": options,
        "seed": seed,
        "actions": actions,
    }


@dataclass(frozen=True)
class _Sums:
    records: int
    decisions: int
    best: int
    lost: float  # in the review's own values (banker36: chips)


# (variant, level, seed, first record, records, rounds of the last record or 0 for all)
_Task = tuple[str, str, str, int, int, int]


def _per_record(variant: str) -> int | None:
    """Rounds per record where a record holds several (None: one round, or one bank)."""
    return {"classic": CLASSIC_MATCH, "solo": SOLO_ROUNDS}.get(variant)


def _run_chunk(task: _Task) -> _Sums:
    variant, level, seed, first, count, tail = task
    decisions = best = 0
    losses: list[float] = []
    per_record = _per_record(variant)
    for index in range(first, first + count):
        limit = tail if tail and index == first + count - 1 else per_record
        record = play_record(variant, level, f"{seed}:{index}", limit)
        seats = [seat["id"] for seat in record["seats"]]
        for decision in review.review_record(record, seats=seats):
            decisions += 1
            if decision["loss"] <= 1e-9:
                best += 1
            losses.append(decision["loss"])
    return _Sums(count, decisions, best, math.fsum(losses))


def _tasks(variant: str, level: str, rounds: int, seed: str) -> list[_Task]:
    per_record = _per_record(variant)
    records = rounds if per_record is None else -(-rounds // per_record)
    tail = 0 if per_record is None else rounds - (records - 1) * per_record
    tasks: list[_Task] = []
    for first in range(0, records, CHUNK):
        count = min(CHUNK, records - first)
        last = tail if first + count == records and tail != per_record else 0
        tasks.append((variant, level, seed, first, count, last))
    return tasks


def _context() -> Any:
    # fork: workers inherit the strategy tables computed before the pool starts.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _results(tasks: list[_Task], workers: int) -> Iterator[_Sums]:
    if workers <= 1:
        for task in tasks:
            yield _run_chunk(task)
        return
    with _context().Pool(processes=workers) as pool:
        yield from pool.imap(_run_chunk, tasks, chunksize=1)


@dataclass(frozen=True)
class AIReview:
    """One level's reviewed decisions."""

    variant: str
    level: str
    seed: str
    rounds: int
    records: int
    decisions: int
    best: int
    lost: float  # in `unit`
    unit: str
    workers: int

    @property
    def accuracy(self) -> float:
        return self.best / self.decisions if self.decisions else 0.0

    @property
    def lost_per_100(self) -> float:
        return 100.0 * self.lost / self.decisions if self.decisions else 0.0


def _prepare(variant: str, level: str) -> None:
    """The AI's and the review's tables, computed before any worker is forked."""
    ai.prepare(variant, level)
    review.prepare(variant)


def review_ai(
    *, variant: str, level: str, rounds: int, seed: str, workers: int | None = None
) -> AIReview:
    """Play `rounds` rounds (banker36: banks) with AI seats of `level` and review every
    AI decision; the same deals for every level (see the module's docstring)."""
    if variant not in LEVELS:
        raise ValueError(f"no decision review for {variant!r}: {', '.join(LEVELS)}")
    if level not in LEVELS[variant]:
        raise ValueError(
            f"{level!r} is not a {variant} AI level; the levels are: {', '.join(LEVELS[variant])}"
        )
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    _prepare(variant, level)
    tasks = _tasks(variant, level, rounds, seed)
    wanted = (os.cpu_count() or 1) if workers is None else workers
    used = max(1, min(wanted, len(tasks)))
    records = decisions = best = 0
    lost: list[float] = []
    for sums in _results(tasks, used):
        records += sums.records
        decisions += sums.decisions
        best += sums.best
        lost.append(sums.lost)
    scale = 1.0 / BANKER36_OPTIONS["stake"] if variant == "banker36" else 1.0
    return AIReview(
        variant=variant,
        level=level,
        seed=seed,
        rounds=rounds,
        records=records,
        decisions=decisions,
        best=best,
        lost=scale * math.fsum(lost),
        unit=UNITS[variant],
        workers=used,
    )


def review_levels(
    variant: str,
    levels: Sequence[str] | None,
    *,
    rounds: int,
    seed: str,
    workers: int | None = None,
) -> list[AIReview]:
    """`review_ai` for each level (every level of the variant by default), same deals."""
    chosen = LEVELS.get(variant, ()) if levels is None else tuple(levels)
    if variant not in LEVELS:
        raise ValueError(f"no decision review for {variant!r}: {', '.join(LEVELS)}")
    return [
        review_ai(variant=variant, level=level, rounds=rounds, seed=seed, workers=workers)
        for level in chosen
    ]


def format_review_ai(results: Sequence[AIReview]) -> str:
    """The table `python -m games review-ai` prints."""
    if not results:
        return ""
    first = results[0]
    what = "banks" if first.variant == "banker36" else "rounds"
    lines = [
        f"decision review of AI seats: {first.variant}, {first.rounds:,} {what} per level, "
        f"seed {first.seed!r} (the same deals for every level)",
        f"value unit: {first.unit}",
        "",
        f"{'level':<8}{'decisions':>11}{'accuracy':>10}{'lost per 100':>14}{'lost in all':>13}",
    ]
    for result in results:
        lines.append(
            f"{result.level:<8}{result.decisions:>11,}{100 * result.accuracy:>9.2f}%"
            f"{result.lost_per_100:>14.4f}{result.lost:>13.2f}"
        )
    return "\n".join(lines)
