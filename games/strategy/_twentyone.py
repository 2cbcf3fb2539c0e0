"""Expected values for the 52-card games played against a dealer (`blackjack`, `classic`).

Both games are the same computation with different rules, so one engine serves both.

The model ("initial-removal", the usual basis of published basic-strategy tables):

* A *situation* is a dealer up-card plus the player's first two cards. Those three cards
  are removed from the full shoe; call what is left the situation's shoe ``S0``.
* The dealer's outcome (17..21, bust, natural) is computed exactly from ``S0``: the
  dealer's own cards are drawn without replacement (a forward pass over the dealer's
  possible card multisets).
* The player's further cards are drawn from ``S0`` with fixed probabilities
  ``S0[r] / |S0|``, and the dealer's distribution is not re-conditioned on them. This is
  the only approximation; with six decks it moves the house edge by thousandths of a
  percentage point.
* When the dealer peeks for a natural (American rules, and `classic`), the player acts
  knowing the dealer has none: the dealer's distribution is conditioned on that and the
  player's drawing probabilities account for the hole card being "not the natural card".
* Pair splitting uses the same ``S0`` for every split hand; resplits are counted with a
  small branching process (how many hands end up with a non-pair second card, how many
  with a pair they may no longer split).

Ranks are indices 0..9: 0 is the ace, 1..8 are the deuce to the nine, 9 is any ten-value
card. Values are ``index + 1`` (the ace counts 1, the soft ace adds 10 where it fits).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

ACE = 0
TEN = 9
RANK_CHARS = "A23456789T"
UPCARD_ORDER = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)  # columns 2..9, T, A

# Dealer outcomes, in this order in every distribution.
D17, D18, D19, D20, D21, DBUST, DNATURAL = range(7)

# Player hand states: a hard total t is state t (2..21); a soft total t is SOFT + t
# (11..21; a lone ace is "soft 11"). A bust is BUST.
SOFT = 32
BUST = -1
N_STATES = SOFT + 22

STAND, HIT, DOUBLE, SPLIT = "stand", "hit", "double", "split"


@dataclass(frozen=True)
class Rules:
    """The rule knobs the computation depends on."""

    decks: int = 6
    hits_soft_17: bool = False
    dealer_peeks: bool = False  # True: the dealer checks for a natural before play
    double_allowed: bool = True  # on any first two cards
    double_after_split: bool = True
    max_hands: int = 4  # 1 disables splitting
    resplit_aces: bool = False
    natural_pays: float = 1.5

    def full_shoe(self) -> tuple[int, ...]:
        return (4 * self.decks,) * 9 + (16 * self.decks,)


def rank_index(text: str) -> int:
    """A rank index from a card or rank string: 'AS', 'A', '10H', '10', 'K', 'td'."""
    raw = text.strip().upper()
    if raw.startswith("10"):
        return TEN
    if not raw:
        raise ValueError("empty card")
    head = raw[0]
    if head in "JQK":
        return TEN
    position = RANK_CHARS.find(head)
    if position < 0 or len(raw) > 2 or (len(raw) == 2 and raw[1] not in "SHDC"):
        raise ValueError(f"{text!r} is not a 52-card rank or card")
    return position


def step(state: int, rank: int) -> int:
    """The state after drawing `rank` (BUST if over 21)."""
    value = rank + 1
    if state >= SOFT:
        total = state - SOFT + value
        return SOFT + total if total <= 21 else total - 10
    if value == 1 and state + 11 <= 21:
        return SOFT + state + 11
    total = state + value
    return total if total <= 21 else BUST


def state_total(state: int) -> tuple[int, bool]:
    """(total, soft) of a state."""
    if state >= SOFT:
        return state - SOFT, True
    return state, False


def hand_state(ranks: Sequence[int]) -> int:
    hard = sum(r + 1 for r in ranks)
    if ACE in ranks and hard + 10 <= 21:
        return SOFT + hard + 10
    return hard if hard <= 21 else BUST


def single_card_state(rank: int) -> int:
    return SOFT + 11 if rank == ACE else rank + 1


STEP: tuple[tuple[int, ...], ...] = tuple(
    tuple(step(s, r) if (2 <= s <= 21 or SOFT + 11 <= s <= SOFT + 21) else BUST for r in range(10))
    for s in range(N_STATES)
)

# Decision order: every state's successors come before it (hard 21..11, soft 21..11,
# hard 10..2), so one pass computes every value.
ORDER: tuple[int, ...] = (
    tuple(range(21, 10, -1)) + tuple(SOFT + t for t in range(21, 10, -1)) + tuple(range(10, 1, -1))
)


# --- the dealer -----------------------------------------------------------------------


@dataclass(frozen=True)
class DealerGraph:
    """The dealer's non-final card multisets for one up-card, in drawing order.

    ``transitions[i]`` lists ``(rank, already_drawn_of_rank, target)``; a target >= 0 is
    another non-final multiset, a negative target ``-1 - k`` is final outcome ``k``.
    """

    drawn: tuple[int, ...]
    transitions: tuple[tuple[tuple[int, int, int], ...], ...]


@cache
def dealer_graph(upcard: int, hits_soft_17: bool) -> DealerGraph:
    start = (0,) * 10
    index: dict[tuple[int, ...], int] = {start: 0}
    order: list[tuple[int, ...]] = [start]
    transitions: list[tuple[tuple[int, int, int], ...]] = []
    position = 0
    while position < len(order):
        multiset = order[position]
        position += 1
        hard = upcard + 1 + sum((r + 1) * c for r, c in enumerate(multiset))
        has_ace = upcard == ACE or multiset[ACE] > 0
        first_draw = sum(multiset) == 0
        row: list[tuple[int, int, int]] = []
        for r in range(10):
            new_hard = hard + r + 1
            soft = (has_ace or r == ACE) and new_hard + 10 <= 21
            total = new_hard + 10 if soft else new_hard
            if first_draw and {upcard, r} == {ACE, TEN}:
                target = -1 - DNATURAL
            elif total > 21:
                target = -1 - DBUST
            elif total > 17 or (total == 17 and not (soft and hits_soft_17)):
                target = -1 - (total - 17)
            else:
                nxt = (*multiset[:r], multiset[r] + 1, *multiset[r + 1 :])
                if nxt not in index:
                    index[nxt] = len(order)
                    order.append(nxt)
                target = index[nxt]
            row.append((r, multiset[r], target))
        transitions.append(tuple(row))
    return DealerGraph(tuple(sum(m) for m in order), tuple(transitions))


def dealer_distribution(
    graph: DealerGraph, shoe: Sequence[int], outcomes: int = DNATURAL + 1
) -> list[float]:
    """Probabilities of the dealer's outcomes (17..21, bust, natural: the graph's final
    targets, `outcomes` of them) drawing from `shoe` without replacement."""
    total_cards = sum(shoe)
    reach = [0.0] * len(graph.drawn)
    reach[0] = 1.0
    out = [0.0] * outcomes
    for i, row in enumerate(graph.transitions):
        p = reach[i]
        if p == 0.0:
            continue
        scale = p / (total_cards - graph.drawn[i])
        for r, already, target in row:
            left = shoe[r] - already
            if left <= 0:
                continue
            if target >= 0:
                reach[target] += left * scale
            else:
                out[-1 - target] += left * scale
    return out


# --- one situation ----------------------------------------------------------------------


@dataclass
class Situation:
    """Everything the player's values depend on, for one up-card and removed cards.

    EVs here are per unit of the initial bet and, when the dealer peeks, conditional on
    the dealer having no natural (``p_natural`` holds that probability).
    """

    rules: Rules
    upcard: int
    draw: tuple[float, ...]  # the player's drawing probabilities
    dealer: tuple[float, ...]  # dealer outcomes as the player's decisions face them
    p_natural: float  # probability that the dealer has a natural
    stand: tuple[float, ...]  # stand EV by state (BUST -> index -1 is the last slot)

    def stand_ev(self, state: int) -> float:
        return -1.0 if state == BUST else self.stand[state]

    def natural_ev(self) -> float:
        """A player natural: pushes a dealer natural, else paid."""
        if self.rules.dealer_peeks:
            return self.rules.natural_pays
        return self.rules.natural_pays * (1.0 - self.p_natural)

    def values(self) -> list[float]:
        """Value of every state with the best of hit and stand from there on."""
        value = [0.0] * (N_STATES + 1)
        value[BUST] = -1.0
        draw = self.draw
        for s in ORDER:
            nxt = STEP[s]
            hit = 0.0
            for r in range(10):
                hit += draw[r] * value[nxt[r]]
            stand = self.stand[s]
            total, _ = state_total(s)
            value[s] = hit if total < 21 and hit > stand else stand
        return value

    def hit_ev(self, state: int, value: Sequence[float]) -> float:
        nxt = STEP[state]
        return sum(self.draw[r] * value[nxt[r]] for r in range(10))

    def double_ev(self, state: int) -> float:
        nxt = STEP[state]
        return 2.0 * sum(self.draw[r] * self.stand_ev(nxt[r]) for r in range(10))

    def split_counts(self, pair: int) -> tuple[float, float]:
        """Expected numbers of split hands ending with a non-pair / an unsplittable pair."""
        p = self.draw[pair]
        limit = self.rules.max_hands if (pair != ACE or self.rules.resplit_aces) else 2

        @cache
        def counts(hands: int, pending: int) -> tuple[float, float]:
            if pending == 0:
                return 0.0, 0.0
            done_n, done_p = counts(hands, pending - 1)
            if hands < limit:
                more_n, more_p = counts(hands + 1, pending + 1)
                return (
                    p * more_n + (1 - p) * (done_n + 1),
                    p * more_p + (1 - p) * done_p,
                )
            return done_n + (1 - p), done_p + p

        return counts(2, 2)

    def split_ev(self, pair: int, hand_ev: Callable[[int], float]) -> float:
        """EV of splitting `pair`; ``hand_ev(state)`` plays one two-card split hand.

        `hand_ev` is not called for split aces (they take one card and stand) nor for a
        pair that may still be resplit (the branching counts cover those).
        """
        one = single_card_state(pair)
        if pair == ACE and not self.rules.resplit_aces:
            # One card to each ace, no further action; a 21 here is not a natural.
            each = sum(self.draw[r] * self.stand_ev(STEP[one][r]) for r in range(10))
            return 2.0 * each
        p = self.draw[pair]
        non_pair = 0.0
        if p < 1.0:
            for r in range(10):
                if r != pair:
                    non_pair += self.draw[r] * hand_ev(STEP[one][r])
            non_pair /= 1.0 - p
        with_pair = hand_ev(STEP[one][pair])
        n_non, n_pair = self.split_counts(pair)
        return n_non * non_pair + n_pair * with_pair


def make_situation(rules: Rules, upcard: int, removed: Sequence[int]) -> Situation:
    """The situation for `upcard` with the player's cards `removed` (rank indices)."""
    shoe = list(rules.full_shoe())
    shoe[upcard] -= 1
    for r in removed:
        shoe[r] -= 1
    if min(shoe) < 0:
        raise ValueError("more cards removed than the shoe holds")
    dealer = dealer_distribution(dealer_graph(upcard, rules.hits_soft_17), shoe)
    p_natural = dealer[DNATURAL]
    total = sum(shoe)
    if rules.dealer_peeks and p_natural > 0.0:
        keep = 1.0 - p_natural
        dealer = [x / keep for x in dealer[:DNATURAL]] + [0.0]
        # The hole card is known not to make the natural: the player draws from what
        # is left after one card that is not the natural-making rank.
        natural_rank = TEN if upcard == ACE else ACE
        others = total - shoe[natural_rank]
        draw = tuple(
            (shoe[r] - (0.0 if r == natural_rank else shoe[r] / others)) / (total - 1)
            for r in range(10)
        )
    else:
        draw = tuple(c / total for c in shoe)
    stand = [0.0] * (N_STATES + 1)
    beaten_by_dealer = dealer[DNATURAL]
    for s in range(N_STATES):
        t, _ = state_total(s)
        if t > 21 or t < 2:
            continue
        win = dealer[DBUST]
        lose = beaten_by_dealer
        for k in range(5):
            if 17 + k < t:
                win += dealer[k]
            elif 17 + k > t:
                lose += dealer[k]
        stand[s] = win - lose
    stand[BUST] = -1.0
    return Situation(rules, upcard, draw, tuple(dealer), p_natural, tuple(stand))


def deal_probability(rules: Rules, upcard: int, first: int, second: int) -> float:
    """Probability of the player's two ranks (unordered) and the dealer's up-card."""
    shoe = list(rules.full_shoe())
    n = sum(shoe)
    p = 1.0
    for r in (first, second, upcard):
        p *= shoe[r] / n
        shoe[r] -= 1
        n -= 1
    return p if first == second else 2.0 * p


def is_natural(first: int, second: int) -> bool:
    return {first, second} == {ACE, TEN}


def two_card_hands() -> list[tuple[int, int]]:
    return [(a, b) for a in range(10) for b in range(a, 10)]


# --- exact: every card drawn without replacement ------------------------------------------


class ExactShoe:
    """A dealer's up-card and the shoe the player draws from, without replacement.

    `base` holds the cards not seen, *plus* those of the player's hand (counts by rank; the
    up-card is not in it). A hand is a multiset of ranks drawn from `base`; its later cards
    and the dealer's come from what is left. Shared by the exact recounts of the charts
    (`classic.exact_expected_return`, `blackjack.exact_expected_return`) and the decision
    review (`games.strategy.review`), each with its own play on top.
    """

    def __init__(self, rules: Rules, upcard: int, base: Sequence[int]) -> None:
        self.rules = rules
        self.base = tuple(base)
        self.graph = dealer_graph(upcard, rules.hits_soft_17)
        self.natural_rank = TEN if upcard == ACE else ACE if upcard == TEN else None
        self._dealer: dict[tuple[int, ...], list[float]] = {}

    def left(self, hand: tuple[int, ...]) -> list[int]:
        return [self.base[r] - hand[r] for r in range(10)]

    def dealer(self, hand: tuple[int, ...]) -> list[float]:
        """The dealer's outcomes, drawing from what `hand` leaves."""
        d = self._dealer.get(hand)
        if d is None:
            d = self._dealer[hand] = dealer_distribution(self.graph, self.left(hand))
        return d

    def p_natural(self, hand: tuple[int, ...]) -> float:
        if self.natural_rank is None:
            return 0.0
        left = self.left(hand)
        return left[self.natural_rank] / sum(left)

    def settle(self, state: int, hand: tuple[int, ...]) -> float:
        """Standing with `state`, holding `hand`. Peek: E[payoff and no dealer natural]
        (the hole card is exchangeable with the player's draws, so it may be drawn after
        them). No peek: the natural is one more dealer outcome, and it beats the hand."""
        peek = self.rules.dealer_peeks
        if state == BUST:
            return -(1.0 - self.p_natural(hand)) if peek else -1.0
        d = self.dealer(hand)
        total, _ = state_total(state)
        ev = d[DBUST] - (0.0 if peek else d[DNATURAL])
        for k in range(5):
            if 17 + k < total:
                ev += d[k]
            elif 17 + k > total:
                ev -= d[k]
        return ev

    def draws(self, hand: tuple[int, ...]) -> list[tuple[float, tuple[int, ...], int]]:
        """(probability, the hand with the card, rank) of each card the player may draw."""
        left = self.left(hand)
        n = sum(left)
        return [
            (left[r] / n, (*hand[:r], hand[r] + 1, *hand[r + 1 :]), r)
            for r in range(10)
            if left[r] > 0
        ]

    def double(self, state: int, hand: tuple[int, ...]) -> float:
        """One card, then stand, for two units."""
        return 2.0 * sum(p * self.settle(STEP[state][r], more) for p, more, r in self.draws(hand))
