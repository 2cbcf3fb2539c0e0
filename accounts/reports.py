"""Reports for operators, read from the chip ledger.

`bonus_grants`: who took the daily bonus, how often and how much (accounts/bonus.py). The
bonus is the one grant a player can take again and again; many accounts living on it, or
one that keeps losing its bonus to the same winner, are what an operator looks for.

`chip_flows`: who won most from whom, across tables. Chips never move between two wallets
directly: a game's stakes go into escrow and its payouts come out. So each game's flow
between two players is inferred from its ledger entries: every player's net result in the
game (payouts and refunds minus stakes), and each loser's loss shared among that game's
winners in proportion to what they won. Summed over games, a pair of accounts through
which one throwaway account keeps feeding another stands out at the top.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import Count, Max, Sum

from accounts.models import Account, LedgerEntry


@dataclass(frozen=True)
class ChipFlow:
    loser: Any  # a User
    winner: Any
    chips: int  # rounded to whole chips
    games: int  # games in which this loser lost and this winner won


def _nets_by_game() -> dict[int, dict[int, int]]:
    """{game id: {user id: net chips}} over every finished game with chip entries (a game
    in play still holds stakes in escrow that are nobody's loss yet)."""
    nets: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    entries = LedgerEntry.objects.filter(game__status="finished").values_list(
        "game_id",
        "amount",
        "source__kind",
        "source__owner_id",
        "destination__kind",
        "destination__owner_id",
    )
    for game_id, amount, src_kind, src_owner, dst_kind, dst_owner in entries.iterator():
        if src_kind == Account.Kind.PLAYER:
            nets[game_id][src_owner] -= amount
        if dst_kind == Account.Kind.PLAYER:
            nets[game_id][dst_owner] += amount
    return nets


def chip_flows(limit: int = 50) -> list[ChipFlow]:
    """The largest inferred flows between pairs of players, largest first."""
    totals: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    games: dict[tuple[int, int], int] = defaultdict(int)
    for nets in _nets_by_game().values():
        won = {user: net for user, net in nets.items() if net > 0}
        lost = {user: -net for user, net in nets.items() if net < 0}
        pot = sum(won.values())
        for loser, loss in lost.items():
            for winner, gain in won.items():
                totals[(loser, winner)] += Fraction(loss * gain, pot)
                games[(loser, winner)] += 1
    top = sorted(totals.items(), key=lambda item: item[1], reverse=True)[:limit]
    from accounts.models import User

    users = User.objects.in_bulk({u for pair, _ in top for u in pair})
    return [
        ChipFlow(users[loser], users[winner], round(chips), games[(loser, winner)])
        for (loser, winner), chips in top
        if round(chips) > 0
    ]


@dataclass(frozen=True)
class BonusGrants:
    player: Any  # a User
    claims: int
    chips: int
    last: datetime.datetime


def bonus_grants(limit: int = 50) -> list[BonusGrants]:
    """The players who took the most chips as daily bonuses, most first."""
    from accounts.models import User

    rows = list(
        LedgerEntry.objects.filter(reason=LedgerEntry.Reason.DAILY_BONUS)
        .values("destination__owner_id")
        .annotate(claims=Count("id"), chips=Sum("amount"), last=Max("created_at"))
        .order_by("-chips", "-claims")[:limit]
    )
    users = User.objects.in_bulk([row["destination__owner_id"] for row in rows])
    return [
        BonusGrants(
            users[row["destination__owner_id"]], row["claims"], int(row["chips"]), row["last"]
        )
        for row in rows
    ]
