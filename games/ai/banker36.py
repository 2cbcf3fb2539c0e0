"""`banker36` AI seats (docs/rules/banker36.md §6, "AI seats").

Reads from the seat's view only: its own cards and total (its entry in
``circle.hands``) and the offered bets. The banker has no decisions (he draws to 17 by
himself), so the AI only ever plays a duel's player.

* easy: bets the smallest offer; draws below 17.
* hard: draws or stands by the exact optimum for its own cards, and bets the largest
  offer when the first card's expected value is positive, else the smallest
  (`games.strategy.banker36`: positive on A and T).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.strategy import banker36 as computed

LEVELS: tuple[str, ...] = ("easy", "hard")

EASY_STANDS_ON = 17

_DRAWS: dict[str, bool] = {}  # sorted ranks -> the hard level draws


def prepare(level: str) -> None:
    if level == "hard":
        computed.compute_strategy()


def hard_draws(cards: Sequence[str]) -> bool:
    """The exact optimum for these cards (memoised on their ranks)."""
    key = "".join(sorted(card[0] for card in cards))
    draws = _DRAWS.get(key)
    if draws is None:
        draws = _DRAWS[key] = computed.compute_strategy().should_draw(list(key))
    return draws


def choose(
    level: str, seat: str, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    own = next(hand for hand in view["circle"]["hands"] if hand["seat"] == seat)
    cards: list[str] = own["cards"]
    entry = legal[0]
    if entry["action"] == "bet":
        amounts: list[int] = entry["amounts"]
        high = level == "hard" and computed.compute_strategy().bet_high(cards[0][0])
        return {"seat": seat, "action": "bet", "amount": max(amounts) if high else min(amounts)}
    draws = hard_draws(cards) if level == "hard" else own["total"] < EASY_STANDS_ON
    return {"seat": seat, "action": "hit" if draws else "stand"}
