"""`classic` AI seats (docs/rules/classic.md §6, "AI seats").

Reads from the seat's view only: its own hand (the entry of ``round.hands`` that carries
``cards``, with ``total`` and ``soft``) and the dealer's up-card
(``round.dealer.cards[0]``). Hit or stand; decisions memoised on (total, soft, up-card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.ai import charts
from games.ai._levels import MemoisedLevels
from games.strategy import classic as computed

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

Key = tuple[int, bool, str]  # (total, soft, up-card rank)

_RANK = {"J": "T", "Q": "T", "K": "T"}


def _easy(key: Key) -> str:
    return "hit" if key[0] < 17 else "stand"


def _medium(key: Key) -> str:
    total, soft, up = key
    if total >= 21:
        return "stand"
    table = charts.CLASSIC_SOFT if soft else charts.CLASSIC_HARD
    return "hit" if table[(str(total), up)] == "H" else "stand"


def _hard(key: Key) -> str:
    total, soft, up = key
    return computed.compute_strategy().decision("soft" if soft else "hard", total, up)


_LEVELS = MemoisedLevels[Key](
    {"easy": _easy, "medium": _medium, "hard": _hard}, computed.compute_strategy
)
prepare = _LEVELS.prepare
decide = _LEVELS.decide


def choose(
    level: str, seat: str, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    current = view["round"]
    own = next(entry for entry in current["hands"] if entry["seat"] == seat)
    up: str = current["dealer"]["cards"][0][0]
    key: Key = (own["total"], own["soft"], _RANK.get(up, up))
    return {"seat": seat, "action": decide(level, key)}
