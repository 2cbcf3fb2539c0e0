"""Optimal play and expected return of a `solo` round (exact, 36-card deck per round).

A `solo` round is a `banker36` duel without the five-pictures rule (docs/rules/solo.md): the
player holds one card (face up) and bets on it; the banker's one card is face down. The
player draws or stops; exactly 21 or golden point (two aces) wins at once, over 21 loses
at once; otherwise the banker turns his card up and draws while below 17, golden point
counting 21 for him too; a banker bust loses; the higher total wins and ties go to the
banker. A win pays +1 per coin bet, a loss costs 1.

The banker's face-down card is a random card the player has not seen, exactly like the
first card a `banker36` banker draws, so the `banker36` computation serves with
`five_pictures=False`. The deck is fresh every round and the player sees only his own
cards, so conditioning on them is conditioning on everything the seat can see: these
values are exact.

The bet is made after the first card: its best size is the largest allowed when that
card's EV is positive, else the smallest (1 coin). The game's longer arc (breaking the
bank, stuk) is not modelled: every round is valued on its own.
"""

from __future__ import annotations

from functools import cache

from games.strategy.banker36 import Banker36Strategy
from games.strategy.banker36 import compute_strategy as _duel

__all__ = ["SoloStrategy", "compute_strategy", "expected_return", "first_card_ev"]

SoloStrategy = Banker36Strategy


@cache
def compute_strategy() -> SoloStrategy:
    """The optimal `solo` play and its figures (memoised)."""
    return _duel(five_pictures=False)


def first_card_ev(card_rank: str) -> float:
    """EV per coin bet given the player's first card, with optimal play."""
    return compute_strategy().first_card_ev(card_rank)


def expected_return() -> float:
    """Expected return per coin bet of a round with optimal play, first card random."""
    return compute_strategy().expected_return
