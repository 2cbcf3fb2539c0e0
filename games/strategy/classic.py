"""The points-maximising hit/stand chart for the `classic` variant.

Rules (docs/rules/classic.md): one 52-card deck shuffled for every round; hit or stand only;
the dealer checks for a natural first (the round ends: a player natural pushes, any
other hand loses), then draws to 17 and stands on every 17, soft 17 included; a natural
wins +150 points, a win +100, a loss -100, a push 0; a bust loses even if the dealer
busts; 21 ends the hand.

In EV terms that is blackjack with one deck, a peeking dealer, a 3:2 natural and neither
doubling nor splitting, so the same engine computes it (`games.strategy._twentyone`);
points are 100 x the EV per unit. Other players at the table are ignored: their cards
are unseen, and the computation is for one player against the dealer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from games.strategy._chart import Chart, compute_chart
from games.strategy._twentyone import (
    BUST,
    DNATURAL,
    RANK_CHARS,
    STEP,
    UPCARD_ORDER,
    ExactShoe,
    Rules,
    deal_probability,
    hand_state,
    is_natural,
    rank_index,
    state_total,
    two_card_hands,
)

Move = Literal["hit", "stand"]
Kind = Literal["hard", "soft"]

CLASSIC_RULES = Rules(
    decks=1,
    hits_soft_17=False,
    dealer_peeks=True,
    double_allowed=False,
    double_after_split=False,
    max_hands=1,
    resplit_aces=False,
    natural_pays=1.5,
)
POINTS = 100  # points per unit: win +100, natural +150, loss -100


@dataclass(frozen=True)
class ClassicStrategy:
    """The computed hit/stand chart. Up-cards: 'A', '2'..'9', 'T' (or cards)."""

    chart: Chart

    @property
    def expected_points(self) -> float:
        """Expected points per round for one player playing the chart."""
        return POINTS * self.chart.expected_return

    def code(self, kind: Kind, total: int, upcard: str) -> str:
        if total >= 21:
            return "S"
        table = self.chart.soft if kind == "soft" else self.chart.hard
        return table[(total, rank_index(upcard))]

    def decision(self, kind: Kind, total: int, upcard: str) -> Move:
        """Hit or stand for a hard/soft total against the dealer's up-card."""
        return "hit" if self.code(kind, total, upcard) == "H" else "stand"

    def decide(self, cards: Sequence[str], upcard: str) -> Move:
        """Hit or stand for a hand given its cards ('AS', 'T', '10H', ...)."""
        ranks = [rank_index(c) for c in cards]
        if len(ranks) < 2:
            raise ValueError("a classic decision needs at least two cards")
        state = hand_state(ranks)
        if state == BUST:
            raise ValueError("the hand is bust")
        total, soft = state_total(state)
        return self.decision("soft" if soft else "hard", total, upcard)

    def should_hit(self, cards: Sequence[str], upcard: str) -> bool:
        return self.decide(cards, upcard) == "hit"

    def evs(self, kind: Kind, total: int, upcard: str) -> dict[str, float]:
        """Expected points of hit and stand for a cell (weighted over its two-card hands)."""
        table = self.chart.soft_evs if kind == "soft" else self.chart.hard_evs
        return {k: POINTS * v for k, v in table[(total, rank_index(upcard))].items()}


def compute_strategy(rules: Rules = CLASSIC_RULES) -> ClassicStrategy:
    """The chart for `rules` (default: the `classic` variant), memoised."""
    return _compute(rules)


@cache
def _compute(rules: Rules) -> ClassicStrategy:
    return ClassicStrategy(compute_chart(rules))


def expected_points() -> float:
    """Expected points per round for one player playing the computed chart."""
    return compute_strategy().expected_points


def exact_expected_return(strategy: ClassicStrategy, upcards: Iterable[str] | None = None) -> float:
    """The chart's expected return computed without the model's approximation.

    Every card is drawn without replacement: the player's hits change the dealer's odds
    (the model keeps them at the two-card shoe). Returns the summed contribution of the
    given up-cards (all by default), each weighted by its deal probability; the full sum
    is the return per round. Slow (seconds for all up-cards): for checks and documents.
    """
    ups = UPCARD_ORDER if upcards is None else tuple(rank_index(u) for u in upcards)
    return sum(_exact_for_upcard(strategy, up) for up in ups)


def _exact_for_upcard(strategy: ClassicStrategy, up: int) -> float:
    rules = strategy.chart.rules
    base = [c - (r == up) for r, c in enumerate(rules.full_shoe())]
    shoe = ExactShoe(rules, up, base)  # peek: settle is E[payoff and no dealer natural]
    upcard = RANK_CHARS[up]

    @cache
    def play(removed: tuple[int, ...], state: int) -> float:
        if state == BUST:
            return shoe.settle(state, removed)
        total, soft = state_total(state)
        if total == 21 or strategy.decision("soft" if soft else "hard", total, upcard) == "stand":
            return shoe.settle(state, removed)
        return sum(p * play(more, STEP[state][r]) for p, more, r in shoe.draws(removed))

    result = 0.0
    for h in two_card_hands():
        removed = tuple(int(r == h[0]) + int(r == h[1]) for r in range(10))
        if min(shoe.left(removed)) < 0:
            continue
        p_natural = shoe.dealer(removed)[DNATURAL]
        if is_natural(*h):
            ev = (1.0 - p_natural) * rules.natural_pays
        else:
            ev = -p_natural + play(removed, hand_state(h))
        result += deal_probability(rules, up, *h) * ev
    return result
