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
import re
import statistics
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Case, Count, Exists, F, FloatField, OuterRef, QuerySet, Sum, When
from django.db.models.functions import Cast
from django.utils import timezone

from fairplay.models import Leak
from games import engine
from insights.models import Decision
from insights.reviews import game_review
from lib.functions import JSONArrayLength
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


def _stake(state: Mapping[str, Any], seat: str) -> int:
    """The chips a decision is played for: a bet's largest offer; a draw's bet (the duel's
    at `banker36`, the ponter's own at `salon`); a `salon` banker's, every bet in the
    deal. The test compares decisions per chip at stake (docs/fair-play.md)."""
    turn = engine.legal_actions(state)
    if turn is None or turn["seat"] != seat:
        return 0
    for offer in turn["actions"]:
        if offer["action"] == "bet":
            return int(max(offer.get("amounts") or [offer.get("max") or 0]))
    view = engine.view(state, seat)
    if state["variant"] == "banker36":
        return int(((view.get("circle") or {}).get("duel") or {}).get("bet") or 0)
    hands = (view.get("deal") or {}).get("hands") or []
    if seat == state.get("banker"):
        return sum(int(h.get("bet") or 0) for h in hands if h.get("role") != "banker")
    return next((int(h.get("bet") or 0) for h in hands if h["seat"] == seat), 0)


def _walk(
    record: Mapping[str, Any],
) -> Iterator[tuple[int, Mapping[str, Any], Mapping[str, Any], list[dict[str, Any]]]]:
    """Each action of the record with the state it was taken in and the events it made
    (pure: the record replayed through the rules engine)."""
    state, _ = engine.new_game(
        record["variant"],
        seats=record["seats"],
        options=record.get("options") or {},
        first_banker=record.get("first_banker"),
        deck=record.get("deck"),
        seed=record.get("seed"),
    )
    for number, action in enumerate(record["actions"]):
        before = state
        state, events = engine.apply(state, action)
        yield number, action, before, events


def takers_by_action(record: Mapping[str, Any]) -> dict[int, tuple[str, int]]:
    """Who gains from each seated action of the record (`_taker`) and the chips at stake
    (`_stake`), by action number."""
    takers: dict[int, tuple[str, int]] = {}
    for number, action, before, _events in _walk(record):
        seat = action.get("seat")
        if seat is not None:
            taker = _taker(before, seat)
            if taker is not None:
                takers[number] = (taker, _stake(before, seat))
    return takers


def settled_upto(record: Mapping[str, Any]) -> int:
    """How many of the record's actions lead up to its last settlement (a `banker36`
    duel, a `salon` deal): what is reviewed of a game in play, every card of it shown."""
    upto = 0
    for number, _action, _before, events in _walk(record):
        if any(event["type"] == "settle" for event in events):
            upto = number + 1
    return upto


def reviews_settled(*, games: int | None = None) -> int:
    """Review every player-bank game in play up to its last settlement (a `salon` game is
    a whole shoe, reviewed in full only when it ends); how many decisions were stored."""
    playing = (
        Game.objects.filter(variant__in=LEAK_VARIANTS, status=Game.Status.PLAYING)
        .annotate(actions_count=JSONArrayLength("actions"))
        .filter(reviewed_actions__lt=F("actions_count"))  # played since the last look
        .select_related("table")
        .order_by("pk")
    )
    stored = 0
    for game in playing[:games] if games else playing:
        upto = settled_upto(game_record(game))
        if upto > game.reviewed_actions:
            stored += game_review(game, upto=upto)
    return stored


_KIND = re.compile(r"[a-z]*")


def decision_kind(situation: str) -> str:
    """A decision's kind from its situation code (games.strategy.review): "bet" (bet:A),
    "total" (total14), "stake" (stake14), "bank" (bank16), "hard", "soft", "pair"."""
    match = _KIND.match(situation)
    return match.group(0)[:8] if match else ""


def leaks_record(*, games: int | None = None) -> int:
    """Give each reviewed decision of a player-bank game (LEAK_VARIANTS) not yet looked at
    its Leak row (the giver, who gains, the loss in chips); `games` bounds the work of one
    call. How many rows were written. Each game's record is replayed once."""
    pending = Decision.objects.filter(variant__in=LEAK_VARIANTS).filter(
        ~Exists(Leak.objects.filter(decision=OuterRef("pk")))
    )
    # The newest games first: after a rebuild (the migration that gave rows their kind and
    # stake) the window's recent play is tested before old games are written again.
    game_ids = list(pending.values_list("game_id", flat=True).distinct().order_by("-game_id"))
    written = 0
    for game in Game.objects.filter(pk__in=game_ids[:games] if games else game_ids):
        takers = takers_by_action(game_record(game))
        users = {p["id"]: p["user"] for p in game.players if p.get("user")}
        made_at = game.finished_at or game.started_at
        rows = []
        for decision in pending.filter(game=game):
            seat, stake = takers.get(decision.number, ("", 0))
            taker = users.get(seat)
            rows.append(
                Leak(
                    decision=decision,
                    game=game,
                    number=decision.number,
                    giver_id=decision.user_id,
                    taker_id=taker if taker != decision.user_id else None,
                    loss=decision.loss,
                    kind=decision_kind(decision.situation),
                    stake=stake,
                    made_at=made_at,
                )
            )
        Leak.objects.bulk_create(rows, ignore_conflicts=True)
        written += len(rows)
    return written


@dataclass(frozen=True)
class Baseline:
    """Honest play per decision of one kind: the mean and variance of the measured loss,
    from the sums over `decisions` rows."""

    decisions: int
    mean: float
    variance: float

    @property
    def deviation(self) -> float:
        return math.sqrt(max(self.variance, 0.0))

    @classmethod
    def of(cls, decisions: int, total: float, square: float) -> Baseline:
        """From the count, the sum and the sum of squares of the measured losses."""
        if decisions < 1:
            return cls(decisions=0, mean=0.0, variance=0.0)
        mean = total / decisions
        spread = square - decisions * mean * mean
        # The sums are whole-window sums less the left-out pairs' (summed in another
        # order): a residue of rounding is no spread.
        if spread <= 1e-9 * max(square, 1.0):
            spread = 0.0
        variance = spread / (decisions - 1) if decisions > 1 else 0.0
        return cls(decisions=decisions, mean=mean, variance=variance)


@dataclass(frozen=True)
class PairLeak:
    """What `giver` lost toward `taker` in one kind of decision, against what honest play
    would have lost in as many decisions of that kind."""

    giver_id: int
    taker_id: int
    decisions: int
    chips: float
    reference: float  # honest play's expected loss per decision, in chips at these stakes
    deviation: float  # honest play's standard deviation per chip at stake
    z: float
    variant: str = "banker36"  # the population it was tested against
    kind: str = ""  # the kind of decision it was tested on (`decision_kind`)
    volume: int = 0  # the giver's decisions of every kind toward the taker, in the variant
    spread: float = 0.0  # how far honest players' own rates lie apart (`_spread`), as measured

    @property
    def excess(self) -> float:
        """Chips lost beyond honest play's."""
        return self.chips - self.decisions * self.reference

    @property
    def flagged(self) -> bool:
        return (
            max(self.volume, self.decisions) >= settings.FAIRPLAY_LEAK_MIN_DECISIONS
            and self.decisions >= settings.FAIRPLAY_LEAK_MIN_KIND_DECISIONS
            and self.z >= settings.FAIRPLAY_LEAK_Z
        )


def window_start(now: datetime.datetime | None = None) -> datetime.datetime:
    return (now or timezone.now()) - datetime.timedelta(days=settings.FAIRPLAY_LEAK_WINDOW_DAYS)


# The kinds measured per chip at stake: a `salon` banker's draw is valued against every
# bet in the deal, which is the ponters' choice, not his. Every other decision is measured
# in chips: a ponter's stake is his own choice, and betting big before a dumped draw is
# part of what he gives.
PER_CHIP_KINDS = ("bank",)


def _measure() -> Case:
    """A leak row's loss as the test measures it: per chip at stake for PER_CHIP_KINDS (a
    row without a stake counts as one chip), else in chips."""
    return Case(
        When(
            kind__in=PER_CHIP_KINDS,
            stake__gt=0,
            then=F("loss") / Cast(F("stake"), FloatField()),
        ),
        default=F("loss"),
        output_field=FloatField(),
    )


def _staked() -> Case:
    """The chips a row's measure is per: its stake for PER_CHIP_KINDS, else one."""
    return Case(When(kind__in=PER_CHIP_KINDS, stake__gt=0, then=F("stake")), default=1)


Sums = tuple[int, float, float]  # decisions, measured loss, its square: summed


def _sums(row: Mapping[str, Any]) -> Sums:
    """An aggregate row's Sums."""
    return (row["n"], row["per"] or 0.0, row["square"] or 0.0)


def _less(sums: Sums, part: Sums) -> Sums:
    return (sums[0] - part[0], sums[1] - part[1], sums[2] - part[2])


def pair_leaks(*, now: datetime.datetime | None = None) -> list[PairLeak]:
    """Every ordered pair's leak in the window (FAIRPLAY_LEAK_WINDOW_DAYS), tested; a pair
    that met in several variants keeps its strongest test.

    The one-sided z-test, per variant and per kind of decision, on the loss as measured
    (docs/fair-play.md, "The test"): with `n` the giver's decisions of that kind toward
    the taker and `P` the sum of their losses, z = (P − n·μ) / √(n·σ² + n²·τ²), where σ²
    is the variance of the variant's population of decisions of that kind — everyone
    else's: neither the pair's own nor the flagged pairs' —, τ how far honest players'
    own rates lie apart (`_spread`), and μ honest play's rate for this pair: the
    population's, raised to the giver's own toward every other taker (a weak player loses
    to every bank alike) or to the others' toward this taker (a bank everyone loses more
    to is not fed by one), each where there are enough decisions to measure it. A pair
    keeps its largest z. Three aggregate queries per variant."""
    since = window_start(now)
    strongest: dict[tuple[int, int], PairLeak] = {}
    for variant in LEAK_VARIANTS:
        for pair in _variant_pair_leaks(since=since, variant=variant):
            key = (pair.giver_id, pair.taker_id)
            if key not in strongest or _stronger(pair, strongest[key]):
                strongest[key] = pair
    return list(strongest.values())


def _variant_pair_leaks(*, since: datetime.datetime, variant: str) -> list[PairLeak]:
    """Each ordered pair's strongest kind of decision in one variant, tested.

    The population is what honest play is measured by, and a ring's dumps are the largest
    losses there are: left in, they would widen the bar for the next ring, and for the
    ring itself, far beyond honest play's spread. So a pair is measured without its own
    decisions, and a pair once flagged leaves the population: the test runs again without
    the flagged pairs' decisions until it flags no new pair."""
    rows = (
        Leak.objects.filter(made_at__gte=since, game__variant=variant)
        .annotate(per=_measure())
        .annotate(at_stake=_staked(), per_square=F("per") * F("per"))
    )
    square = Sum("per_square")
    totals: dict[str, Sums] = {
        r["kind"]: _sums(r)
        for r in rows.values("kind").annotate(n=Count("id"), per=Sum("per"), square=square)
    }
    # The giver's decisions and measured losses per kind, toward everyone.
    given: dict[tuple[int, str], tuple[int, float]] = {
        (r["giver"], r["kind"]): (r["n"], r["per"] or 0.0)
        for r in rows.values("giver", "kind").annotate(n=Count("id"), per=Sum("per"))
    }
    sums = {
        "n": Count("id"),
        "chips": Sum("loss"),
        "per": Sum("per"),
        "square": square,
        "staked": Sum("at_stake"),
    }
    pairs = list(rows.filter(taker__isnull=False).values("giver", "taker", "kind").annotate(**sums))
    toward: dict[tuple[int, int], int] = defaultdict(int)  # every kind: the pair's volume
    # Each giver's rate toward each taker, per kind: (decisions, measured loss).
    rates: dict[tuple[int, str], list[tuple[int, int, float]]] = defaultdict(list)
    for r in pairs:
        toward[(r["giver"], r["taker"])] += r["n"]
        rates[(r["taker"], r["kind"])].append((r["giver"], r["n"], r["per"] or 0.0))
    left_out: set[tuple[int, int]] = set()
    held: dict[tuple[int, int], PairLeak] = {}  # each left-out pair, as it was flagged
    while True:
        population = dict(totals)
        own = dict(given)
        takers: dict[tuple[int, str], int] = defaultdict(int)  # whom each giver played
        for r in pairs:
            if (r["giver"], r["taker"]) in left_out:
                population[r["kind"]] = _less(population[r["kind"]], _sums(r))
                n, per = own[(r["giver"], r["kind"])]
                own[(r["giver"], r["kind"])] = (n - r["n"], per - (r["per"] or 0.0))
            elif r["n"] >= settings.FAIRPLAY_LEAK_MIN_KIND_DECISIONS:
                takers[(r["giver"], r["kind"])] += 1
        tested = _tested(
            pairs,
            population,
            left_out,
            spread=_spread(own, takers),
            own=own,
            toward=toward,
            rates=rates,
            variant=variant,
        )
        flagged = {key for key, pair in tested.items() if pair.flagged} - left_out
        if not flagged:
            # A pair stays flagged once flagged: a later pass, without other flagged
            # pairs, may measure it against a wider spread, but it is out of the
            # population as flagged, and a case shows the test that flagged it.
            for key, pair in held.items():
                if key not in tested or not tested[key].flagged:
                    tested[key] = pair
            return list(tested.values())
        left_out |= flagged
        held.update({key: tested[key] for key in flagged})


# The players a giver must have played toward (each FAIRPLAY_LEAK_MIN_KIND_DECISIONS
# decisions of the kind at least) for his rate to count in the skill spread.
SPREAD_TAKERS = 3


def _spread(
    own: Mapping[tuple[int, str], tuple[int, float]], takers: Mapping[tuple[int, str], int]
) -> dict[str, float]:
    """Per kind, how far honest players' own rates lie apart: the median absolute
    deviation of the rates of the givers with at least FAIRPLAY_LEAK_OWN_DECISIONS
    decisions of that kind (the flagged pairs' left out) who played at least
    SPREAD_TAKERS players FAIRPLAY_LEAK_MIN_KIND_DECISIONS times each, scaled to a normal
    distribution's standard deviation (×1.4826), when there are at least three such
    givers; 0 otherwise. The median, not the variance, so that the rings' extreme rates
    do not widen it; players of several others only, since one who plays a single bank
    is the very case under test (where rings are most of a variant's play, their feeders
    would otherwise be most of the rates)."""
    by_kind: dict[str, list[float]] = defaultdict(list)
    for (giver, kind), (n, per) in own.items():
        if n >= settings.FAIRPLAY_LEAK_OWN_DECISIONS and takers[(giver, kind)] >= SPREAD_TAKERS:
            by_kind[kind].append(per / n)
    spread = {}
    for kind, rates in by_kind.items():
        if len(rates) >= 3:
            middle = statistics.median(rates)
            spread[kind] = 1.4826 * statistics.median(abs(rate - middle) for rate in rates)
    return spread


def _tested(
    pairs: list[dict[str, Any]],
    population: Mapping[str, Sums],
    left_out: set[tuple[int, int]],
    *,
    spread: Mapping[str, float],
    own: Mapping[tuple[int, str], tuple[int, float]],
    toward: Mapping[tuple[int, int], int],
    rates: Mapping[tuple[int, str], list[tuple[int, int, float]]],
    variant: str,
) -> dict[tuple[int, int], PairLeak]:
    """Each ordered pair's strongest kind, tested against the `population` (the Sums per
    kind, the `left_out` pairs' taken away) without the pair's own decisions: a pair is
    measured by everyone else's play."""
    strongest: dict[tuple[int, int], PairLeak] = {}
    for r in pairs:
        giver, taker, n, per = r["giver"], r["taker"], r["n"], r["per"] or 0.0
        others_sums = population[r["kind"]]
        if (giver, taker) not in left_out:
            others_sums = _less(others_sums, _sums(r))
        base = Baseline.of(*others_sums)
        if base.decisions < 2 or base.deviation == 0.0:
            continue
        reference = base.mean
        # The giver's own rate in this kind toward the others, when there are enough
        # decisions to measure it: a weak player loses to every bank alike. (`own` holds
        # no flagged pair's decisions: a feeder of two banks does not hide one by the
        # other.)
        elsewhere_n, elsewhere_per = own[(giver, r["kind"])]
        if (giver, taker) not in left_out:
            elsewhere_n, elsewhere_per = elsewhere_n - n, elsewhere_per - per
        if elsewhere_n >= settings.FAIRPLAY_LEAK_OWN_DECISIONS:
            reference = max(reference, elsewhere_per / elsewhere_n)
        # The others' rate in this kind toward this taker: a bank everyone loses more to
        # (its size sets the bets it offers) is not fed by one of them. The median of the
        # other givers' rates, each measured on enough decisions and at least three of
        # them, so that a second feeder of the same bank cannot hide the first.
        others = [
            other_per / other_n
            for other, other_n, other_per in rates[(taker, r["kind"])]
            if other != giver
            and other_n >= settings.FAIRPLAY_LEAK_MIN_KIND_DECISIONS
            and (other, taker) not in left_out
        ]
        if len(others) >= 3:
            reference = max(reference, statistics.median(others))
        # Honest players differ in skill: a giver may be a weak one, and where his own
        # rate cannot be measured elsewhere nothing else says so. His loss over n
        # decisions varies by the play's noise (n·σ²) and by where his skill lies among
        # the players' (n²·τ²), so a steady excess must stand out from both. Applied to
        # every pair, also where μ is his own rate: conservative.
        tau = spread.get(r["kind"], 0.0)
        z = (per - n * reference) / math.sqrt(n * base.deviation**2 + (n * tau) ** 2)
        expected = reference * (r["staked"] or 0)  # in chips (per chip: at the stakes played)
        pair = PairLeak(
            giver_id=giver,
            taker_id=taker,
            decisions=n,
            chips=r["chips"] or 0.0,
            reference=expected / n,
            deviation=base.deviation,
            z=z,
            variant=variant,
            kind=r["kind"],
            volume=toward[(giver, taker)],
            spread=tau,
        )
        if (giver, taker) not in strongest or _stronger(pair, strongest[(giver, taker)]):
            strongest[(giver, taker)] = pair
    return strongest


def _stronger(pair: PairLeak, than: PairLeak) -> bool:
    """A flagged test before one that is not (however large a z on too few decisions),
    then the larger z: a few huge dumps of another kind must not hide a flagged one."""
    return (pair.flagged, pair.z) > (than.flagged, than.z)


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
