"""Signals above their threshold become cases in the moderation queue (issue 32, item 2):
cases, not verdicts. The detector opens (or brings up to date) a case per flagged ordered
pair with its evidence — the pair, their link score, the leak with the worst decisions
linked to their replays and the coach's figures, the chip flows, the bank's other flagged
feeders — and holds both players off the leaderboards while it is open
(`moderation.services.case_open`). Everything else is a moderator's decision.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from fairplay.flows import chip_flow, flow_cases_open, flows_record
from fairplay.leak import (
    PairLeak,
    leaks_record,
    pair_leaks,
    reviews_settled,
    window_start,
    worst_decisions,
)
from fairplay.links import link_between
from moderation.models import Report
from moderation.services import case_open

WORST_SHOWN = 10


def _figure(value: float) -> float:
    return round(value, 2)


# How many of the bank's feeders a case lists (many-to-one: several accounts feeding one).
FEEDERS_SHOWN = 5


def case_evidence(
    pair: PairLeak,
    *,
    since: datetime.datetime,
    feeders: list[int],
    names: dict[int, str],
    toward_bank: Sequence[PairLeak] = (),
) -> dict[str, Any]:
    """What a moderator reads on the case (JSON, kept with it as it stood)."""
    link = link_between(pair.giver_id, pair.taker_id)
    flow = chip_flow(pair.taker_id, pair.giver_id, since=since)
    worst = [
        {
            "decision": leak.decision_id,
            "game": leak.game_id,
            "number": leak.number,
            "situation": leak.decision.situation,
            "chosen": leak.decision.chosen,
            "best": leak.decision.best,
            "options": leak.decision.options,
            "loss": _figure(leak.loss),
            "replay": reverse("game_replay", args=[leak.game_id]),
        }
        for leak in worst_decisions(pair.giver_id, pair.taker_id, since=since, count=WORST_SHOWN)
    ]
    return {
        "fairplay": {
            "since": since.isoformat(),
            "gainer": {"id": pair.taker_id, "username": names.get(pair.taker_id, "")},
            "giver": {"id": pair.giver_id, "username": names.get(pair.giver_id, "")},
            "link": {"addresses": link.addresses, "devices": link.devices, "score": link.score},
            "leak": {
                "variant": pair.variant,
                "decisions": pair.decisions,
                "chips": _figure(pair.chips),
                "expected": _figure(pair.decisions * pair.reference),
                "excess": _figure(pair.excess),
                "kind": pair.kind,
                "reference_per_decision": round(pair.reference, 4),
                "deviation_per_chip": round(pair.deviation, 4),
                "skill_spread": round(pair.spread, 4),
                "z": round(pair.z, 2),
                "threshold": settings.FAIRPLAY_LEAK_Z,
            },
            "worst": worst,
            "flows": {
                "games": flow["games"],
                "to_gainer": flow["to_first"],
                "to_giver": flow["to_second"],
                "net_to_gainer": flow["net_to_first"],
            },
            "other_feeders": [
                {"id": pk, "username": names.get(pk, "")} for pk in feeders if pk != pair.giver_id
            ],
            # Everyone's leak toward this bank, the largest excess first: one bank fed by
            # several accounts shows here even when each alone is below the threshold.
            "toward_bank": [
                {
                    "id": other.giver_id,
                    "username": names.get(other.giver_id, ""),
                    "decisions": other.decisions,
                    "excess": _figure(other.excess),
                    "z": round(other.z, 2),
                }
                for other in sorted(toward_bank, key=lambda p: -p.excess)[:FEEDERS_SHOWN]
            ],
        }
    }


def _decided(pair: PairLeak) -> bool:
    """Whether a moderator already decided on this pair's leak: their last case is
    handled and fewer than FAIRPLAY_LEAK_MIN_DECISIONS decisions came since its
    evidence. A dismissed case is not reopened every scan on the same decisions; a pair
    that goes on leaking opens a new one."""
    last = (
        Report.objects.filter(
            reporter__isnull=True, reported_id=pair.taker_id, partner_id=pair.giver_id
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None or last.status == Report.Status.OPEN:
        return False
    seen = ((last.evidence or {}).get("fairplay") or {}).get("leak", {}).get("decisions", 0)
    return pair.decisions - int(seen) < settings.FAIRPLAY_LEAK_MIN_DECISIONS


def cases_open(*, now: datetime.datetime | None = None) -> list[Report]:
    """Open or update a case for every flagged ordered pair; the cases touched."""
    now = now or timezone.now()
    since = window_start(now)
    pairs = pair_leaks(now=now)
    flagged = [pair for pair in pairs if pair.flagged and not _decided(pair)]
    if not flagged:
        return []
    by_taker: dict[int, list[int]] = defaultdict(list)
    for pair in flagged:
        by_taker[pair.taker_id].append(pair.giver_id)
    toward: dict[int, list[PairLeak]] = defaultdict(list)
    for pair in pairs:
        if pair.taker_id in by_taker:
            toward[pair.taker_id].append(pair)
    ids = {pair.giver_id for pair in flagged} | {pair.taker_id for pair in flagged}
    ids |= {pair.giver_id for group in toward.values() for pair in group}
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=ids)}
    names = {pk: u.username for pk, u in users.items()}
    return [
        case_open(
            gainer=users[pair.taker_id],
            giver=users[pair.giver_id],
            evidence=case_evidence(
                pair,
                since=since,
                feeders=sorted(by_taker[pair.taker_id]),
                names=names,
                toward_bank=toward[pair.taker_id],
            ),
            note=f"z = {pair.z:.1f}, {pair.decisions} / {pair.excess:.0f}",
        )
        for pair in flagged
    ]


def fairplay_scan(*, now: datetime.datetime | None = None, games: int | None = None) -> int:
    """The periodic pass: the settled part of the games in play reviewed, new decisions'
    leaks and new games' flows, then the cases; how many cases touched."""
    reviews_settled(games=games)
    leaks_record(games=games)
    flows_record(games=games)
    touched = {case.pk for case in cases_open(now=now)}
    touched |= {case.pk for case in flow_cases_open(now=now)}
    return len(touched)
