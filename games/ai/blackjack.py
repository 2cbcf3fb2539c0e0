"""`blackjack` AI seats (docs/rules/blackjack.md §7, "AI seats").

Reads from the seat's view only: its own hands (``hands``, the active one at ``hand``,
each with ``cards``, ``total`` and ``soft``) and the dealer's up-card
(``dealer.cards[0]``); doubling and splitting only when the legal actions offer them.
Every level's decision depends on (total, soft, pair, up-card, may double, may split)
alone, so decisions are memoised on that key: a simulation pays for each key once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.ai import charts
from games.ai._levels import MemoisedLevels
from games.strategy import blackjack as computed

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

# (total, soft, pair rank or "", up-card rank, may double, may split)
Key = tuple[int, bool, str, str, bool, bool]

# The chart rank of a card by its first character: J, Q and K are tens.
_RANK = {r: r for r in "A23456789T"} | {"J": "T", "Q": "T", "K": "T"}


def _move(code: str, can_double: bool) -> str:
    if code == "H":
        return "hit"
    if code == "S":
        return "stand"
    if can_double:
        return "double"
    return "hit" if code == "Dh" else "stand"


def _easy(key: Key) -> str:
    return "hit" if key[0] < 17 else "stand"


def _medium(key: Key) -> str:
    total, soft, pair, up, can_double, can_split = key
    if pair and can_split and charts.BLACKJACK_PAIRS[(pair, up)] == "Y":
        return "split"
    if total >= 21:
        return "stand"
    table = charts.BLACKJACK_SOFT if soft else charts.BLACKJACK_HARD
    return _move(table[(str(total), up)], can_double)


def _hard(key: Key) -> str:
    total, soft, pair, up, can_double, can_split = key
    return computed.compute_strategy().decision(
        "soft" if soft else "hard",
        total,
        up,
        pair=pair or None,
        can_double=can_double,
        can_split=can_split,
    )


_LEVELS = MemoisedLevels[Key](
    {"easy": _easy, "medium": _medium, "hard": _hard}, computed.compute_strategy
)
prepare = _LEVELS.prepare
decide = _LEVELS.decide


def choose(
    level: str, seat: str, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    can_double = can_split = False
    for entry in legal:
        name = entry["action"]
        if name == "double":
            can_double = True
        elif name == "split":
            can_split = True
    hand = view["hands"][view["hand"]]
    cards: list[str] = hand["cards"]
    pair = ""
    if len(cards) == 2:
        first = _RANK[cards[0][0]]
        if first == _RANK[cards[1][0]]:
            pair = first
    up = _RANK[view["dealer"]["cards"][0][0]]
    key: Key = (hand["total"], hand["soft"], pair, up, can_double, can_split)
    return {"seat": seat, "action": decide(level, key)}
