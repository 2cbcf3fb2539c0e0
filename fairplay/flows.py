"""Chip flows as a signal (issue 32): many-to-one. Several accounts that are new or linked
to one player and whose chips end with that player open a case against the taker, even
when no single pair's decisions make a leak (a dump by folding leaves no decision).

The flows are read from the games' settlements — every `settle` event of a finished
`banker36` or `salon` game, each a ponter's win or loss against the banker of the moment —
so they are exact per ordered pair and count every hand, decided or not. Each game is
read once, when it has finished (`flows_record`, a `Flow` row per ordered pair that moved
chips); a pass then sums rows in the window with one aggregate query.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet, Sum
from django.utils import timezone

from fairplay.leak import duels, window_start
from fairplay.links import links_to
from fairplay.models import Flow, FlowGame
from moderation.models import Report
from moderation.services import case_open
from play.models import Game

# The player-bank variants: chips pass between a ponter and the banker.
FLOW_VARIANTS = ("banker36", "salon")

# The evidence key of a many-to-one case (a leak case's is "fairplay").
EVIDENCE_KEY = "many_to_one"


def _flow_games() -> QuerySet[Game]:
    # Not a tournament's stacks table (Table.stacks): its chips are the event's counters,
    # never a wallet's, so losing them feeds nobody.
    return Game.objects.filter(
        variant__in=FLOW_VARIANTS,
        status=Game.Status.FINISHED,
        finished_at__isnull=False,
        table__stacks__isnull=True,
    )


def game_flows(game: Game) -> dict[tuple[int, int], int]:
    """What each player lost to each other in one game's settlements: {(giver, taker):
    chips}, both directions of a pair apart (AI seats are no one's)."""
    lost: dict[tuple[int, int], int] = defaultdict(int)
    for ponter, banker, delta in duels(game):
        if ponter is None or banker is None or ponter == banker:
            continue
        if delta < 0:
            lost[(ponter, banker)] += -delta
        elif delta > 0:
            lost[(banker, ponter)] += delta
    return dict(lost)


def flows_record(*, games: int | None = None) -> int:
    """Write the flows of every finished player-bank game not yet read (the oldest first;
    `games` bounds one call); how many games were read. Each game's rows and its
    `FlowGame` mark are written together, so a game is read exactly once."""
    pending = (
        _flow_games()
        .filter(~Exists(FlowGame.objects.filter(game=OuterRef("pk"))))
        .order_by("finished_at", "pk")
    )
    read = 0
    for game in pending[:games] if games else pending:
        rows = [
            Flow(
                game=game, giver_id=giver, taker_id=taker, chips=chips, finished_at=game.finished_at
            )
            for (giver, taker), chips in game_flows(game).items()
        ]
        with transaction.atomic():
            _, fresh = FlowGame.objects.get_or_create(game=game)
            if fresh:  # another pass may have read it meanwhile
                Flow.objects.bulk_create(rows)
        read += 1
    return read


def bank_flows(*, since: datetime.datetime) -> dict[tuple[int, int], int]:
    """Net chips from each giver to each taker at player-bank tables since `since`:
    {(giver, taker): chips}, positive where the giver lost on balance to the taker
    (the recorded flows, `flows_record`, summed in one query)."""
    return {
        (row["giver"], row["taker"]): row["chips"]
        for row in Flow.objects.filter(finished_at__gte=since)
        .values("giver", "taker")
        .annotate(chips=Sum("chips"))
        if row["chips"]
    }


def chip_flow(first_id: int, second_id: int, *, since: datetime.datetime) -> dict[str, int]:
    """Chips won and lost between two players at player-bank tables since `since`, from
    the recorded flows: {"games" (where chips moved between them), "to_first",
    "to_second", "net_to_first"}."""
    pair = (first_id, second_id)
    rows = Flow.objects.filter(giver_id__in=pair, taker_id__in=pair, finished_at__gte=since)
    moved = {
        (row["giver"], row["taker"]): row["chips"]
        for row in rows.values("giver", "taker").annotate(chips=Sum("chips"))
    }
    to_first = moved.get((second_id, first_id), 0) if first_id != second_id else 0
    to_second = moved.get((first_id, second_id), 0) if first_id != second_id else 0
    return {
        "games": rows.values("game").distinct().count(),
        "to_first": to_first,
        "to_second": to_second,
        "net_to_first": to_first - to_second,
    }


@dataclass(frozen=True)
class Giver:
    id: int
    chips: int
    new: bool
    link_score: int


@dataclass(frozen=True)
class ManyToOne:
    taker_id: int
    givers: tuple[Giver, ...]  # the largest net first

    @property
    def chips(self) -> int:
        return sum(giver.chips for giver in self.givers)


def many_to_one(*, now: datetime.datetime | None = None) -> list[ManyToOne]:
    """Every taker whose net winnings from new or linked accounts at player-bank tables in
    the window reach FAIRPLAY_FLOW_CHIPS from at least FAIRPLAY_FLOW_GIVERS of them."""
    now = now or timezone.now()
    flows = bank_flows(since=window_start(now))
    # Net per ordered pair: what the giver lost to the taker less what they won back.
    losers: dict[int, dict[int, int]] = defaultdict(dict)
    for (giver, taker), chips in flows.items():
        balance = chips - flows.get((taker, giver), 0)
        if balance > 0:
            losers[taker][giver] = balance
    young = now - datetime.timedelta(days=settings.FAIRPLAY_NEW_ACCOUNT_DAYS)
    joined = dict(
        get_user_model()
        .objects.filter(pk__in={g for group in losers.values() for g in group})
        .values_list("pk", "date_joined")
    )
    out = []
    for taker, group in losers.items():
        if len(group) < settings.FAIRPLAY_FLOW_GIVERS:
            continue
        links = links_to(taker, group)
        givers = [
            Giver(
                id=giver,
                chips=chips,
                new=joined[giver] >= young,
                link_score=links[giver].score if giver in links else 0,
            )
            for giver, chips in group.items()
        ]
        counted = [g for g in givers if g.new or g.link_score > 0]
        signal = ManyToOne(taker, tuple(sorted(counted, key=lambda g: (-g.chips, g.id))))
        enough_givers = len(counted) >= settings.FAIRPLAY_FLOW_GIVERS
        if enough_givers and signal.chips >= settings.FAIRPLAY_FLOW_CHIPS:
            out.append(signal)
    return out


def _decided(signal: ManyToOne) -> bool:
    """A moderator already handled this taker's many-to-one case and nothing new came
    since: no new giver and no more chips than its evidence showed."""
    last = (
        Report.objects.filter(
            reporter__isnull=True, reported_id=signal.taker_id, evidence__has_key=EVIDENCE_KEY
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None or last.status == Report.Status.OPEN:
        return False
    seen = (last.evidence or {})[EVIDENCE_KEY]
    seen_givers = {giver["id"] for giver in seen.get("givers", [])}
    no_new_giver = {g.id for g in signal.givers} <= seen_givers
    return no_new_giver and signal.chips <= int(seen.get("chips", 0))


def flow_cases_open(*, now: datetime.datetime | None = None) -> list[Report]:
    """Open or update a case for every many-to-one signal: against the taker, paired with
    the largest giver (both held off the leaderboards while it is open), the evidence
    listing every giver. An open leak case about the same pair keeps its evidence."""
    now = now or timezone.now()
    since = window_start(now)
    signals = [signal for signal in many_to_one(now=now) if not _decided(signal)]
    if not signals:
        return []
    ids = {s.taker_id for s in signals} | {g.id for s in signals for g in s.givers}
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids)}
    cases = []
    for signal in signals:
        evidence = {
            EVIDENCE_KEY: {
                "since": since.isoformat(),
                "gainer": {"id": signal.taker_id, "username": users[signal.taker_id].username},
                "chips": signal.chips,
                "givers": [
                    {
                        "id": g.id,
                        "username": users[g.id].username,
                        "chips": g.chips,
                        "new": g.new,
                        "link_score": g.link_score,
                    }
                    for g in signal.givers
                ],
                "thresholds": {
                    "givers": settings.FAIRPLAY_FLOW_GIVERS,
                    "chips": settings.FAIRPLAY_FLOW_CHIPS,
                    "new_account_days": settings.FAIRPLAY_NEW_ACCOUNT_DAYS,
                },
            }
        }
        top = users[signal.givers[0].id]
        with transaction.atomic():
            current = (
                Report.objects.select_for_update()
                .filter(
                    reporter__isnull=True,
                    reported_id=signal.taker_id,
                    partner=top,
                    status=Report.Status.OPEN,
                )
                .first()
            )
            merged = {**((current.evidence or {}) if current else {}), **evidence}
            cases.append(
                case_open(
                    gainer=users[signal.taker_id],
                    giver=top,
                    evidence=merged,
                    note=f"many-to-one: {len(signal.givers)} / {signal.chips}",
                )
            )
    return cases
