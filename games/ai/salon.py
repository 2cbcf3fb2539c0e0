"""`salon` AI seats (docs/rules/salon.md §7, "AI seats").

The rules give one AI per role: the ponter bets the table minimum and stands on 16 or
more (the source's advice: 16–20 are "close to 21"), otherwise draws; the banker draws
while below 17. The bank rotates, so a seat plays the role the deal gives it — read from
the view (``banker``) — and both level names give the same play. The banker never sees
the ponters' cards (the view hides them), as the rules require.

A live table with cuts (``options.cut``) asks the seat on the banker's right to cut: the
AI cuts in the middle of the offered range (the shuffle is already random).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LEVELS: tuple[str, ...] = ("ponter", "banker")

PONTER_STANDS_ON = 16
BANKER_STANDS_ON = 17


def prepare(level: str) -> None:
    """Nothing to compute."""


def choose(
    level: str, seat: str, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    entry = legal[0]
    name = entry["action"]
    if name == "bet":
        return {"seat": seat, "action": "bet", "amount": entry["min"]}
    if name == "cut":
        return {"seat": seat, "action": "cut", "position": (entry["min"] + entry["max"]) // 2}
    own = next(hand for hand in view["deal"]["hands"] if hand["seat"] == seat)
    limit = BANKER_STANDS_ON if view["banker"] == seat else PONTER_STANDS_ON
    return {"seat": seat, "action": "hit" if own["total"] < limit else "stand"}
