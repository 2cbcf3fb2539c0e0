"""Basic strategy and house edge for the `blackjack` variant, computed from its rules.

Rules (docs/strategy.md, docs/rules/blackjack.md): six decks, the dealer stands on every 17,
double on any first two cards and after a split, resplit to four hands, split aces take
one card each, no surrender, no insurance, and no hole-card peek: a dealer natural takes
the whole wager, doubles and splits included (European no-hole-card, "ENHC").

The chart is total-dependent (the form published charts take) and comes out of the
computation; it is never typed in. See `games.strategy._twentyone` for the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from games.strategy._chart import Chart, HandEVs, compute_chart
from games.strategy._twentyone import (
    ACE,
    BUST,
    DNATURAL,
    RANK_CHARS,
    STEP,
    TEN,
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

Action = Literal["hit", "stand", "double", "split"]
Kind = Literal["hard", "soft"]

BLACKJACK_RULES = Rules(
    decks=6,
    hits_soft_17=False,
    dealer_peeks=False,
    double_allowed=True,
    double_after_split=True,
    max_hands=4,
    resplit_aces=False,
    natural_pays=1.5,
)

# Wizard of Odds, Blackjack Appendix 9, "euro-6ds17r4": expected return -0.0051417.
PUBLISHED_HOUSE_EDGE = 0.0051417


def _action(code: str, *, can_double: bool) -> Action:
    if code == "H":
        return "hit"
    if code == "S":
        return "stand"
    if code == "P":
        return "split"
    if can_double:
        return "double"
    return "hit" if code == "Dh" else "stand"


@dataclass(frozen=True)
class BlackjackStrategy:
    """A computed chart with its EVs. Up-cards and ranks are 'A', '2'..'9', 'T' (or cards)."""

    chart: Chart

    @property
    def rules(self) -> Rules:
        return self.chart.rules

    @property
    def house_edge(self) -> float:
        """House edge playing the chart, as a fraction of the initial bet (0.005 = 0.5%)."""
        return -self.chart.expected_return

    @property
    def optimal_house_edge(self) -> float:
        """House edge with the best play for every two-card hand (composition-dependent)."""
        return -self.chart.optimal_expected_return

    def code(self, kind: Kind | Literal["pair"], key: int | str, upcard: str) -> str:
        """The chart's cell: 'H', 'S', 'Dh', 'Ds' or 'P'. Key: a total, or a pair's rank."""
        up = rank_index(upcard)
        if kind == "pair":
            return self.chart.pairs[(rank_index(str(key)), up)]
        total = int(key)
        if total >= 21:
            return "S"
        table = self.chart.soft if kind == "soft" else self.chart.hard
        return table[(total, up)]

    def decision(
        self,
        kind: Kind,
        total: int,
        upcard: str,
        *,
        pair: str | None = None,
        can_double: bool = True,
        can_split: bool = True,
    ) -> Action:
        """The chart's action for a hand described by its total.

        `pair` is the rank of a two-card pair (the hand may be split if `can_split`);
        `can_double` is False once the hand has more than two cards or doubling is not
        offered, and then 'Dh'/'Ds' fall back to hit/stand.
        """
        if pair is not None and can_split:
            code = self.code("pair", pair, upcard)
            if code == "P":
                return "split"
        return _action(self.code(kind, total, upcard), can_double=can_double)

    def decide(
        self,
        cards: Sequence[str],
        upcard: str,
        *,
        can_double: bool = True,
        can_split: bool = True,
    ) -> Action:
        """The chart's action for a hand given its cards ('AS', 'T', '10H', ...).

        Doubling and splitting are only considered on two cards; pass False for what
        the table does not offer (a fifth hand, a split ace, ...).
        """
        ranks = [rank_index(c) for c in cards]
        if len(ranks) < 2:
            raise ValueError("a blackjack decision needs at least two cards")
        state = hand_state(ranks)
        if state < 0:
            raise ValueError("the hand is bust")
        total, soft = state_total(state)
        two = len(ranks) == 2
        pair = RANK_CHARS[ranks[0]] if two and ranks[0] == ranks[1] else None
        return self.decision(
            "soft" if soft else "hard",
            total,
            upcard,
            pair=pair,
            can_double=can_double and two,
            can_split=can_split and two,
        )

    def evs(self, kind: Kind | Literal["pair"], key: int | str, upcard: str) -> Mapping[str, float]:
        """Probability-weighted EV of each action for a chart cell (per unit bet)."""
        up = rank_index(upcard)
        if kind == "pair":
            return self.chart.pair_evs[(rank_index(str(key)), up)]
        table = self.chart.soft_evs if kind == "soft" else self.chart.hard_evs
        return table[(int(key), up)]

    def hand_evs(self, first: str, second: str, upcard: str) -> HandEVs:
        """EVs of stand/hit/double/split for one two-card hand (best play afterwards)."""
        a, b = sorted((rank_index(first), rank_index(second)))
        if {a, b} == {ACE, TEN}:
            raise ValueError("a natural has no decision")
        return self.chart.hand_evs[(a, b, rank_index(upcard))]


def compute_strategy(rules: Rules = BLACKJACK_RULES) -> BlackjackStrategy:
    """The basic strategy for `rules` (default: the `blackjack` variant), memoised."""
    return _compute(rules)


@cache
def _compute(rules: Rules) -> BlackjackStrategy:
    return BlackjackStrategy(compute_chart(rules))


def house_edge(rules: Rules = BLACKJACK_RULES) -> float:
    """House edge of the computed basic strategy, as a fraction of the initial bet."""
    return compute_strategy(rules).house_edge


def exact_expected_return(
    strategy: BlackjackStrategy, upcards: Sequence[str] | None = None
) -> float:
    """The chart's expected return with every card drawn without replacement, except
    splits, which keep the model's value.

    Hit, stand and double follow the chart; each card the player draws changes what the
    dealer draws from (the model keeps the dealer at the situation's shoe). A pair the
    chart splits is valued by the model (`Chart.pair_evs`): splitting shares one shoe
    between hands and is where the model's approximation is kept (about 2.5 % of deals).
    Returns the summed contribution of the given up-cards (all by default), each
    weighted by its deal probability. Slow (tens of seconds): for documents and checks.
    """
    ups = UPCARD_ORDER if upcards is None else tuple(rank_index(u) for u in upcards)
    return sum(_exact_for_upcard(strategy, up) for up in ups)


def _exact_for_upcard(strategy: BlackjackStrategy, up: int) -> float:
    chart = strategy.chart
    rules = chart.rules
    base = [c - (r == up) for r, c in enumerate(rules.full_shoe())]
    shoe = ExactShoe(rules, up, base)  # no hole card: settle counts the dealer's natural
    upcard = RANK_CHARS[up]

    @cache
    def play(state: int, removed: tuple[int, ...]) -> float:
        """A hand of three or more cards (or a two-card hand not doubled), by the chart."""
        if state == BUST:
            return -1.0
        total, soft = state_total(state)
        if (
            total >= 21
            or strategy.decision("soft" if soft else "hard", total, upcard, can_double=False)
            == "stand"
        ):
            return shoe.settle(state, removed)
        return sum(p * play(STEP[state][r], more) for p, more, r in shoe.draws(removed))

    result = 0.0
    for h in two_card_hands():
        removed = tuple(int(r == h[0]) + int(r == h[1]) for r in range(10))
        weight = deal_probability(rules, up, *h)
        if is_natural(*h):
            result += weight * rules.natural_pays * (1.0 - shoe.dealer(removed)[DNATURAL])
            continue
        state = hand_state(h)
        total, soft = state_total(state)
        if h[0] == h[1] and chart.pairs[(h[0], up)] == "P":
            ev = chart.pair_evs[(h[0], up)]["split"]
        elif strategy.decision("soft" if soft else "hard", total, upcard) == "double":
            ev = shoe.double(state, removed)
        else:
            ev = play(state, removed)
        result += weight * ev
    return result
