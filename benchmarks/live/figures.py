"""The figures of a run: latency percentiles, the rates and CPU per message of a
measuring window, and the medians over runs that the report prints.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.live.usage import Usage

SATURATION_P99_MS = 250.0


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


@dataclass
class Window:
    """One run: a stretch of time whose actions (or echo messages) are measured."""

    start: float  # monotonic
    end: float
    usage: Usage


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


def num(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def ratio_of(live: float | None, base: float | None) -> float | None:
    if live is None or base is None or base <= 0:
        return None
    return live / base
