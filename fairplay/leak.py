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

# The variants whose decisions feed a player's bank, all reviewed by the coach
# (games.strategy.review): each is tested against its own population, since a `salon`
# bet of up to the table maximum and a `banker36` duel lose chips on different scales.
LEAK_VARIANTS = ("banker36", "salon")


def _taker(state: Mapping[str, Any], seat: str) -> str | None:
    """Who gains what `seat`'s decision now gives away: the bank's holder — or, for the
    decision of a `salon` banker (who draws blind against every ponter at once), the
    ponter with the largest stake in the deal (the first in deal order on a tie), the
    one a dumping banker would be feeding."""
    banker: str | None = state.get("banker")
    if seat != banker or state["variant"] != "salon" or not state.get("deal"):
        return banker
    bets: Mapping[str, int] = state["deal"]["bets"]
    bettors = [p for p in state["deal"]["ponters"] if bets.get(p)]
    return max(bettors, key=lambda p: bets[p]) if bettors else None


def takers_by_action(record: Mapping[str, Any]) -> dict[int, str]:
    """Who gains from each seated action of the record (`_taker`), by action number
    (pure: the record replayed through the rules engine)."""
    state, _ = engine.new_game(
        record["variant"],
        seats=record["seats"],
        options=record.get("options") or {},
        first_banker=record.get("first_banker"),
        deck=record.get("deck"),
        seed=record.get("seed"),
    )
    takers: dict[int, str] = {}
    for number, action in enumerate(record["actions"]):
        seat = action.get("seat")
        if seat is not None:
            taker = _taker(state, seat)
            if taker is not None:
                takers[number] = taker
        state, _ = engine.apply(state, action)
    return takers


def leaks_record(*, games: int | None = None) -> int:
    """Give each reviewed decision of a player-bank game (LEAK_VARIANTS) not yet looked at
    its Leak row (the giver, who gains, the loss in chips); `games` bounds the work of one
    call. How many rows were written. Each game's record is replayed once."""
    pending = Decision.objects.filter(variant__in=LEAK_VARIANTS).filter(
        ~Exists(Leak.objects.filter(decision=OuterRef("pk")))
    )
    game_ids = list(pending.values_list("game_id", flat=True).distinct().order_by("game_id"))
    written = 0
    for game in Game.objects.filter(pk__in=game_ids[:games] if games else game_ids):
        takers = takers_by_action(game_record(game))
        users = {p["id"]: p["user"] for p in game.players if p.get("user")}
        made_at = game.finished_at or game.started_at
        rows = []
        for decision in pending.filter(game=game):
            taker = users.get(takers.get(decision.number, ""))
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
    variant: str = "banker36"  # the population it was tested against

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


def baseline(*, since: datetime.datetime, variant: str = "banker36") -> Baseline:
    """The variant's population loss per decision since `since` (every leak row, rings
    included: they are few, and they can only raise the bar they are measured against)."""
    row = Leak.objects.filter(made_at__gte=since, game__variant=variant).aggregate(
        n=Count("id"), mean=Avg("loss"), square=Avg(F("loss") * F("loss"))
    )
    n, mean, square = row["n"] or 0, row["mean"] or 0.0, row["square"] or 0.0
    variance = (square - mean * mean) * n / (n - 1) if n > 1 else 0.0
    return Baseline(decisions=n, mean=mean, variance=variance)


def pair_leaks(*, now: datetime.datetime | None = None) -> list[PairLeak]:
    """Every ordered pair's leak in the window (FAIRPLAY_LEAK_WINDOW_DAYS), tested; a pair
    that met in several variants keeps its strongest test.

    The one-sided z-test, per variant: with `n` the giver's decisions toward the taker
    and `S` the chips they lost, z = (S − n·μ) / (σ·√n), where σ² is the variant's
    population variance per decision and μ honest play's mean for this giver — the
    population's, or the giver's own toward every other taker when they made at least
    FAIRPLAY_LEAK_OWN_DECISIONS there and it is higher (a weak player loses to every
    bank alike: that is not a leak toward one). Three aggregate queries per variant."""
    since = window_start(now)
    strongest: dict[tuple[int, int], PairLeak] = {}
    for variant in LEAK_VARIANTS:
        for pair in _variant_pair_leaks(since=since, variant=variant):
            key = (pair.giver_id, pair.taker_id)
            if key not in strongest or pair.z > strongest[key].z:
                strongest[key] = pair
    return list(strongest.values())


def _variant_pair_leaks(*, since: datetime.datetime, variant: str) -> list[PairLeak]:
    base = baseline(since=since, variant=variant)
    if base.decisions < 2 or base.deviation == 0.0:
        return []
    rows = Leak.objects.filter(made_at__gte=since, game__variant=variant)
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
        out.append(
            PairLeak(r["giver"], r["taker"], n, chips, reference, base.deviation, z, variant)
        )
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
