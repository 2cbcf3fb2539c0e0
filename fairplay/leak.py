"""The directed EV leak (issue 32, item 1): the chips each decision at a player-bank table
gives away by the coach's figures, to whom, summed per ordered pair of players and tested
against what honest play of the same volume gives (docs/fair-play.md, "The test").

A ring that dumps chips into one bank makes decisions worse than its players' own play
elsewhere and worse than the population's, and always toward the same banker: the sum of
its EV losses toward that banker grows linearly with the decisions, while honest noise
grows with their square root. One bad night is a handful of decisions and is not enough.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Avg, Count, Exists, F, OuterRef, QuerySet, Sum
from django.utils import timezone

from fairplay.models import Leak
from games import engine
from insights.models import Decision
from play.models import Game
from play.services.records import game_record

# The variants whose decisions feed a player's bank and that the coach reviews: `salon`
# is a player-bank game too, but its decisions are not reviewed (games.strategy.review),
# so there is no EV figure to sum there (docs/fair-play.md says what that leaves open).
LEAK_VARIANTS = ("banker36",)


def bankers_by_action(record: Mapping[str, Any]) -> dict[int, str]:
    """The seat holding the bank when each seated action of the record was taken (pure:
    the record replayed through the rules engine)."""
    state, _ = engine.new_game(
        record["variant"],
        seats=record["seats"],
        options=record.get("options") or {},
        first_banker=record.get("first_banker"),
        deck=record.get("deck"),
        seed=record.get("seed"),
    )
    bankers: dict[int, str] = {}
    for number, action in enumerate(record["actions"]):
        if action.get("seat") is not None:
            bankers[number] = state["banker"]
        state, _ = engine.apply(state, action)
    return bankers


def leaks_record(*, games: int | None = None) -> int:
    """Give each reviewed `banker36` decision not yet looked at its Leak row (the giver,
    the banker who gains, the loss in chips); `games` bounds the work of one call. How
    many rows were written. Each game's record is replayed once."""
    pending = Decision.objects.filter(variant__in=LEAK_VARIANTS).filter(
        ~Exists(Leak.objects.filter(decision=OuterRef("pk")))
    )
    game_ids = list(pending.values_list("game_id", flat=True).distinct().order_by("game_id"))
    written = 0
    for game in Game.objects.filter(pk__in=game_ids[:games] if games else game_ids):
        bankers = bankers_by_action(game_record(game))
        users = {p["id"]: p["user"] for p in game.players if p.get("user")}
        made_at = game.finished_at or game.started_at
        rows = []
        for decision in pending.filter(game=game):
            taker = users.get(bankers.get(decision.number, ""))
            rows.append(
                Leak(
                    decision=decision,
                    game=game,
                    number=decision.number,
                    giver_id=decision.user_id,
                    taker_id=taker if taker != decision.user_id else None,
                    loss=decision.loss,
                    made_at=made_at,
                )
            )
        Leak.objects.bulk_create(rows, ignore_conflicts=True)
        written += len(rows)
    return written


@dataclass(frozen=True)
class Baseline:
    """Honest play per decision: the population's mean and variance of the loss."""

    decisions: int
    mean: float
    variance: float

    @property
    def deviation(self) -> float:
        return math.sqrt(max(self.variance, 0.0))


@dataclass(frozen=True)
class PairLeak:
    """What `giver` lost toward `taker`'s bank, against what honest play would have."""

    giver_id: int
    taker_id: int
    decisions: int
    chips: float
    reference: float  # expected loss per decision of honest play for this giver
    deviation: float
    z: float

    @property
    def excess(self) -> float:
        """Chips lost beyond honest play's."""
        return self.chips - self.decisions * self.reference

    @property
    def flagged(self) -> bool:
        return (
            self.decisions >= settings.FAIRPLAY_LEAK_MIN_DECISIONS
            and self.z >= settings.FAIRPLAY_LEAK_Z
        )


def window_start(now: datetime.datetime | None = None) -> datetime.datetime:
    return (now or timezone.now()) - datetime.timedelta(days=settings.FAIRPLAY_LEAK_WINDOW_DAYS)


def baseline(*, since: datetime.datetime) -> Baseline:
    """The population's loss per decision since `since` (every leak row, rings included:
    they are few, and they can only raise the bar they are measured against)."""
    row = Leak.objects.filter(made_at__gte=since).aggregate(
        n=Count("id"), mean=Avg("loss"), square=Avg(F("loss") * F("loss"))
    )
    n, mean, square = row["n"] or 0, row["mean"] or 0.0, row["square"] or 0.0
    variance = (square - mean * mean) * n / (n - 1) if n > 1 else 0.0
    return Baseline(decisions=n, mean=mean, variance=variance)


def pair_leaks(*, now: datetime.datetime | None = None) -> list[PairLeak]:
    """Every ordered pair's leak in the window (FAIRPLAY_LEAK_WINDOW_DAYS), tested.

    The one-sided z-test: with `n` the giver's decisions toward the taker's bank and `S`
    the chips they lost, z = (S − n·μ) / (σ·√n), where σ² is the population's variance
    per decision and μ honest play's mean for this giver — the population's, or the
    giver's own toward every other banker when they made at least
    FAIRPLAY_LEAK_OWN_DECISIONS there and it is higher (a weak player loses to every
    bank alike: that is not a leak toward one). Three aggregate queries."""
    since = window_start(now)
    base = baseline(since=since)
    if base.decisions < 2 or base.deviation == 0.0:
        return []
    rows = Leak.objects.filter(made_at__gte=since)
    givers = {
        r["giver"]: (r["n"], r["chips"] or 0.0)
        for r in rows.values("giver").annotate(n=Count("id"), chips=Sum("loss"))
    }
    out = []
    for r in (
        rows.filter(taker__isnull=False)
        .values("giver", "taker")
        .annotate(n=Count("id"), chips=Sum("loss"))
    ):
        n, chips = r["n"], r["chips"] or 0.0
        all_n, all_chips = givers[r["giver"]]
        reference = base.mean
        if all_n - n >= settings.FAIRPLAY_LEAK_OWN_DECISIONS:
            reference = max(reference, (all_chips - chips) / (all_n - n))
        z = (chips - n * reference) / (base.deviation * math.sqrt(n))
        out.append(PairLeak(r["giver"], r["taker"], n, chips, reference, base.deviation, z))
    return out


def worst_decisions(
    giver_id: int, taker_id: int, *, since: datetime.datetime, count: int = 10
) -> QuerySet[Leak]:
    """The giver's costliest decisions toward the taker's bank, with the coach's figures."""
    return (
        Leak.objects.filter(giver_id=giver_id, taker_id=taker_id, made_at__gte=since)
        .select_related("decision")
        .order_by("-loss", "game_id", "number")[:count]
    )


def duels(game: Game) -> Iterator[tuple[int | None, int | None, int]]:
    """Every settlement of a player-bank game as (ponter, banker, the ponter's delta), by
    user id (None: an AI seat): `banker36`'s settle against the banker of the moment (its
    last `bank_open`), `salon`'s deal settling each hand against the deal's banker. The
    games' `events` are read (prefetch them)."""
    users = {p["id"]: p["user"] for p in game.players if p.get("user")}
    banker = None
    for row in game.events.all():
        for event in row.events:
            if event["type"] == "bank_open":
                banker = users.get(event["banker"])
            elif event["type"] == "settle" and "hands" in event:  # salon: one deal
                bank = users.get(event["banker"])
                for hand in event["hands"]:
                    if hand.get("delta") is not None:
                        yield users.get(hand["seat"]), bank, int(hand["delta"])
            elif event["type"] == "settle" and event.get("delta") is not None:  # banker36
                yield users.get(event["seat"]), banker, int(event["delta"])


def chip_flow(first_id: int, second_id: int, *, since: datetime.datetime) -> dict[str, int]:
    """Chips won and lost between two players in their `banker36` duels since `since`,
    from the duels' settlements (each a ponter's `settle` against the banker of the
    moment): {"games", "to_first", "to_second", "net_to_first"}."""
    # The games where one of them decided against the other's bank (a game where every
    # choice between them was forced leaves no decision, and is not counted): read from
    # the leak rows, not by scanning every game's players.
    pair = (first_id, second_id)
    met = Leak.objects.filter(giver_id__in=pair, taker_id__in=pair, made_at__gte=since)
    games = Game.objects.filter(pk__in=met.values("game_id")).order_by("pk")
    to_first = to_second = played = 0
    for game in games.prefetch_related("events"):
        played += 1
        for ponter, banker, delta in duels(game):  # delta: the ponter's win (+) or loss (−)
            if (ponter, banker) == (first_id, second_id):
                to_first += max(delta, 0)
                to_second += max(-delta, 0)
            elif (ponter, banker) == (second_id, first_id):
                to_second += max(delta, 0)
                to_first += max(-delta, 0)
    return {
        "games": played,
        "to_first": to_first,
        "to_second": to_second,
        "net_to_first": to_first - to_second,
    }
