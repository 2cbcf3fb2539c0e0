"""Skill rating: how much expected value a player's decisions give away, per variant.

Chip winnings are luck; decisions are skill. Every reviewed decision (insights.reviews) has a
loss ℓ ≥ 0: the expected value of the best option minus that of the option chosen, from
the seat's own view, in the variant's unit (`blackjack` units, `classic` points,
`banker36` chips, `solo` coins). The cards that came next do not enter it, so a lucky
hand neither raises nor lowers it. A player's rating in a variant is the value they lost
per 100 decisions, with a 95% confidence interval:

    n decisions with losses ℓ₁ … ℓₙ
    m  = (ℓ₁ + … + ℓₙ) / n                      mean loss per decision
    s  = √( Σ (ℓᵢ − m)² / (n − 1) )             sample standard deviation
    rating   = 100 · m
    interval = 100 · (m ± 1.96 · s / √n)        (the lower end no lower than 0)

Only players with at least MIN_DECISIONS decisions are rated: below that the normal
approximation behind 1.96 is poor (losses are mostly 0 with a few large ones) and the
interval is too wide to say much. The leaderboard ranks by the interval's upper end,
lowest first: a place is earned by evidence that the player loses little, so a short run
of easy, well-played hands (a narrow sample with a wide interval) does not beat a long
record of good play.

Only decisions of games that are over count. A decision of a game in play names the
player's hand («16 против десятки»), and the public leaderboard must not move with it; so
a rating stays the same while a game goes on, and the statistics page and the lobby give
the same figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.db.models import Avg, Count, F, FloatField, QuerySet, StdDev, Value
from django.db.models.functions import Cast, NullIf, Sqrt

from games.strategy.review import REVIEWED
from insights.models import Decision
from play.models import Game
from tables.variants import VARIANTS

MIN_DECISIONS = 50
Z_95 = 1.96  # the normal quantile of a two-sided 95% interval
LEADERBOARD_SIZE = 10

# The rated variants, in the registry's order (classic first).
RATED = tuple(key for key in VARIANTS if key in REVIEWED)


@dataclass(frozen=True)
class Skill:
    """A rating: value lost per 100 decisions and its 95% confidence interval."""

    decisions: int
    lost_per_100: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """The interval's half-width (before the lower end is held at 0)."""
        return self.high - self.lost_per_100


def skill_of(decisions: int, mean: float | None, deviation: float | None) -> Skill | None:
    """The rating from a sample's size, mean loss and sample standard deviation, or None
    below MIN_DECISIONS."""
    if decisions < MIN_DECISIONS or mean is None:
        return None
    margin = Z_95 * (deviation or 0.0) / math.sqrt(decisions)
    return Skill(
        decisions=decisions,
        lost_per_100=100 * mean,
        low=100 * max(0.0, mean - margin),
        high=100 * (mean + margin),
    )


def rated_decisions() -> QuerySet[Decision]:
    """The decisions a rating counts: those of games that are over."""
    return Decision.objects.exclude(game__status=Game.Status.PLAYING)


def _moments(decisions: QuerySet[Decision]) -> QuerySet[Decision]:
    """Per group: n, the mean loss and the sample standard deviation (None for n = 1).

    The sample deviation is the population one times √(n / (n − 1)), not
    StdDev(sample=True): on SQLite Django computes that aggregate with
    `statistics.stdev`, which raises for a group of one row (and the whole query fails
    with it, even for groups the HAVING would drop), where PostgreSQL gives NULL. The
    population deviation of one row is 0 on both backends, and the factor is NULL there
    (n − 1 = 0), so both give None for one decision and the same figure from two on."""
    count = Cast(F("n"), FloatField())
    return decisions.annotate(
        n=Count("id"), mean=Avg("loss"), spread=StdDev("loss", sample=False)
    ).annotate(
        deviation=Cast(F("spread"), FloatField())
        * Sqrt(count / NullIf(count - Value(1.0), Value(0.0)))
    )


def player_skills(user: Any) -> dict[str, tuple[int, Skill | None]]:
    """Per variant the user has decisions in (of games over): how many, and the rating
    (None: fewer than MIN_DECISIONS yet). One aggregate query."""
    rows = _moments(rated_decisions().filter(user=user).values("variant"))
    return {
        row["variant"]: (row["n"], skill_of(row["n"], row["mean"], row["deviation"]))
        for row in rows
    }


def leaderboard(
    variant: str, size: int = LEADERBOARD_SIZE, *, bots: bool = False
) -> list[dict[str, Any]]:
    """The variant's best `size` rated players, by the upper end of their interval (lowest
    first; ties: more decisions, then the name) — people, or with `bots` the bot accounts:
    the two are rated apart. One aggregate query: the interval is computed by the database
    (SQLite gets STDDEV_SAMP and SQRT from Django)."""
    rows = (
        _moments(
            rated_decisions()
            .filter(variant=variant, user__is_active=True, user__bot_owner__isnull=not bots)
            # Held off while a fair-play case about them is open (accounts.User).
            .filter(user__leaderboard_hold=False)
            .values("user", "user__username")
        )
        .filter(n__gte=MIN_DECISIONS)
        .annotate(
            upper=F("mean")
            + Z_95 * Cast(F("deviation"), FloatField()) / Sqrt(Cast(F("n"), FloatField()))
        )
        .order_by("upper", "-n", "user__username")[:size]
    )
    board = []
    for place, row in enumerate(rows, start=1):
        skill = skill_of(row["n"], row["mean"], row["deviation"])
        assert skill is not None  # n ≥ MIN_DECISIONS by the query
        board.append({"place": place, "username": row["user__username"], "skill": skill})
    return board


def leaderboards(*, bots: bool = False) -> list[dict[str, Any]]:
    """Every rated variant's leaderboard (of people, or of bots), in the registry's order:
    one query each."""
    return [{"variant": VARIANTS[key], "rows": leaderboard(key, bots=bots)} for key in RATED]
