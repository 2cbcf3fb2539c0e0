"""Optimal draw/stand play and bet signal for a `banker36` duel (exact, 36-card deck).

The duel: the player holds one card, draws one card at a time and may stop at any
moment; exactly 21 (golden point: two aces as a two-card hand; five pictures: exactly five
cards all J/Q/K/A) wins at once, over 21 loses at once. If the player stops, the banker
draws from no cards while below 17; the banker's golden point and five pictures count 21;
a banker bust loses; otherwise the higher total wins and ties go to the banker. A won
duel pays +1 per chip bet, a lost one costs 1.

Everything is exact with fractions-free floats: the player's cards are tracked as a
multiset, and for every hand the player may stop with, the banker's outcome is computed
drawing without replacement from the 36 cards minus the player's own.

Assumption: the player conditions on his own cards only. Other players' cards, and the
cards of duels played before his, are not looked at; for such a player the deck minus
his own cards is exactly what the banker draws from (whatever was dealt or played before
under any stopping rule, the next unseen card is uniformly distributed over the cards
not accounted for). The stock running out (discards reshuffled) is not modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

RANKS = "6789TJQKA"
VALUES = (6, 7, 8, 9, 10, 2, 3, 4, 11)
PICTURES = frozenset((5, 6, 7, 8))  # J, Q, K, A
ACE = 8
COPIES = 4
DECK = (COPIES,) * 9

Multiset = tuple[int, ...]

DRAW, STAND = "draw", "stand"


def rank_index(text: str) -> int:
    """Index of a 36-card rank from a card or rank string ('AS', 'A', '10H', 't')."""
    raw = text.strip().upper()
    if raw.startswith("10"):
        raw = "T" + raw[2:]
    if not raw or raw[0] not in RANKS or len(raw) > 2 or (len(raw) == 2 and raw[1] not in "SHDC"):
        raise ValueError(f"{text!r} is not a 36-card rank or card")
    return RANKS.index(raw[0])


def hand_total(cards: Multiset, five_pictures: bool = True) -> int:
    """Total of a hand given as counts per rank; golden point (and, in `banker36`, five
    pictures) count 21."""
    n = sum(cards)
    if n == 2 and cards[ACE] == 2:
        return 21
    if five_pictures and n == 5 and all(cards[r] == 0 for r in range(9) if r not in PICTURES):
        return 21
    return sum(v * c for v, c in zip(VALUES, cards, strict=True))


def _add(cards: Multiset, rank: int) -> Multiset:
    return (*cards[:rank], cards[rank] + 1, *cards[rank + 1 :])


@cache
def _banker_graph(
    five_pictures: bool = True,
) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, int, int], ...], ...]]:
    """The banker's open hands (card multisets) in drawing order and their transitions.

    A transition is ``(rank, already_held_of_rank, target)``: a target >= 0 is another
    open hand, ``-1 - k`` is final outcome ``k`` (17, 18, 19, 20, 21, bust).
    """
    start: Multiset = (0,) * 9
    index = {start: 0}
    order = [start]
    rows: list[tuple[tuple[int, int, int], ...]] = []
    position = 0
    while position < len(order):
        hand = order[position]
        position += 1
        row = []
        for r in range(9):
            if hand[r] >= COPIES:
                continue
            nxt = _add(hand, r)
            total = hand_total(nxt, five_pictures)
            if total > 21:
                target = -1 - 5
            elif total >= 17:
                target = -1 - (total - 17)
            else:
                if nxt not in index:
                    index[nxt] = len(order)
                    order.append(nxt)
                target = index[nxt]
            row.append((r, hand[r], target))
        rows.append(tuple(row))
    return tuple(sum(h) for h in order), tuple(rows)


@cache
def banker_distribution(player: Multiset, five_pictures: bool = True) -> tuple[float, ...]:
    """The banker's final total: probabilities for 17, 18, 19, 20, 21 and bust.

    The banker draws from the deck minus the player's cards, from no cards, while below 17.
    """
    drawn, rows = _banker_graph(five_pictures)
    left = [DECK[r] - player[r] for r in range(9)]
    n_left = sum(left)
    reach = [0.0] * len(rows)
    reach[0] = 1.0
    out = [0.0] * 6
    for i, row in enumerate(rows):
        p = reach[i]
        if p == 0.0:
            continue
        scale = p / (n_left - drawn[i])
        for r, held, target in row:
            available = left[r] - held
            if available <= 0:
                continue
            if target >= 0:
                reach[target] += available * scale
            else:
                out[-1 - target] += available * scale
    return tuple(out)


def stand_ev(player: Multiset, five_pictures: bool = True) -> float:
    """EV (per chip) of stopping with `player` (a total below 21)."""
    total = hand_total(player, five_pictures)
    dist = banker_distribution(player, five_pictures)
    win = dist[5] + sum(dist[k] for k in range(5) if 17 + k < total)
    return 2.0 * win - 1.0


@cache
def _value(player: Multiset, five_pictures: bool = True) -> tuple[float, float, float]:
    """(best EV, stand EV, draw EV) of a hand that is still open."""
    stand = stand_ev(player, five_pictures)
    n_left = sum(DECK) - sum(player)
    draw = 0.0
    for r in range(9):
        available = DECK[r] - player[r]
        if available <= 0:
            continue
        nxt = _add(player, r)
        total = hand_total(nxt, five_pictures)
        if total == 21:
            v = 1.0
        elif total > 21:
            v = -1.0
        else:
            v = _value(nxt, five_pictures)[0]
        draw += available / n_left * v
    return max(stand, draw), stand, draw


def _cards(cards: Sequence[str]) -> Multiset:
    counts = [0] * 9
    for card in cards:
        counts[rank_index(card)] += 1
    for c in counts:
        if c > COPIES:
            raise ValueError("more than four cards of a rank")
    return tuple(counts)


def _ranks_text(cards: Multiset) -> str:
    return " ".join(RANKS[r] for r in range(9) for _ in range(cards[r]))


StateKey = tuple[int, int | None]


def state_key(cards: Multiset, five_pictures: bool = True) -> StateKey:
    """What the chart is keyed by: the total, and the number of cards while every card
    is a picture (J/Q/K/A; five of them make 21, two aces make golden point), else None."""
    n = sum(cards)
    all_pictures = all(cards[r] == 0 for r in range(9) if r not in PICTURES)
    return hand_total(cards, five_pictures), (n if all_pictures else None)


@dataclass(frozen=True)
class Banker36Strategy:
    """The optimal play for one duel, from a fresh 36-card deck (`five_pictures`: whether
    five pictures count 21, as in `banker36`; `solo` has golden point only)."""

    # (total, cards-if-all-pictures) -> "draw" | "stand"; only keys that occur.
    chart: Mapping[StateKey, str]
    chart_evs: Mapping[StateKey, tuple[float, float]]  # (stand, draw), reach-weighted
    first_card_evs: Mapping[str, float]  # rank -> EV per chip with optimal play
    expected_return: float  # per chip bet, first card random, optimal play
    chart_expected_return: float  # the same playing the chart instead of exact composition
    # Reachable hands whose exact best play differs from their chart cell: (ranks, action).
    exceptions: tuple[tuple[str, str], ...]
    five_pictures: bool = True

    def values(self, cards: Sequence[str]) -> tuple[float, float]:
        """Exact (stand, draw) EVs per chip of an open hand, from its own cards only."""
        hand = _cards(cards)
        if sum(hand) == 0:
            raise ValueError("a hand has at least one card")
        if hand_total(hand, self.five_pictures) >= 21:
            raise ValueError("the hand is already settled")
        _, stand, draw = _value(hand, self.five_pictures)
        return stand, draw

    def should_draw(self, cards: Sequence[str]) -> bool:
        """Exact optimal decision for a hand (its own cards only)."""
        stand, draw = self.values(cards)
        return draw > stand

    def decision(self, cards: Sequence[str]) -> str:
        """ "draw" or "stand" for a hand, by the exact optimum."""
        return DRAW if self.should_draw(cards) else STAND

    def chart_decision(self, total: int, pictures_only_cards: int | None = None) -> str:
        """The chart's decision by total (and card count while all cards are pictures)."""
        key = (total, pictures_only_cards)
        if key in self.chart:
            return self.chart[key]
        return STAND if total >= 17 else DRAW

    def first_card_ev(self, card_rank: str) -> float:
        return self.first_card_evs[RANKS[rank_index(card_rank)]]

    def bet_high(self, card_rank: str) -> bool:
        """The 'hard' AI's bet signal: the largest offer when the hand's EV is positive."""
        return self.first_card_ev(card_rank) > 0.0


def _reach(draws: Callable[[Multiset], bool], five_pictures: bool) -> dict[Multiset, float]:
    """Probability of meeting each open hand (first card random) when drawing per `draws`."""
    reach: dict[Multiset, float] = {}
    layer = {_add((0,) * 9, r): DECK[r] / sum(DECK) for r in range(9)}
    while layer:
        following: dict[Multiset, float] = {}
        for hand, p in layer.items():
            reach[hand] = reach.get(hand, 0.0) + p
            if not draws(hand):
                continue
            n_left = sum(DECK) - sum(hand)
            for r in range(9):
                available = DECK[r] - hand[r]
                if available <= 0:
                    continue
                nxt = _add(hand, r)
                if hand_total(nxt, five_pictures) < 21:
                    following[nxt] = following.get(nxt, 0.0) + p * available / n_left
        layer = following
    return reach


def _key_sums(reach: Mapping[Multiset, float], five_pictures: bool) -> dict[StateKey, list[float]]:
    """Per chart key: [weight, weighted stand EV, weighted draw EV]."""
    sums: dict[StateKey, list[float]] = {}
    for hand, p in reach.items():
        _, stand, draw = _value(hand, five_pictures)
        acc = sums.setdefault(state_key(hand, five_pictures), [0.0, 0.0, 0.0])
        acc[0] += p
        acc[1] += p * stand
        acc[2] += p * draw
    return sums


def _compute(five_pictures: bool) -> Banker36Strategy:
    fp = five_pictures

    # Reach probabilities of every open hand under the optimal play, for the chart.
    first_evs = {RANKS[r]: _value(_add((0,) * 9, r), fp)[0] for r in range(9)}
    expected = sum(DECK[r] / sum(DECK) * first_evs[RANKS[r]] for r in range(9))

    # The chart weighs each hand by how often optimal play meets it; keys optimal play
    # never meets (it stood earlier) are weighed by how often drawing on meets them.
    reach = _reach(lambda hand: _value(hand, fp)[2] > _value(hand, fp)[1], fp)
    sums = _key_sums(reach, fp)
    for key, acc in _key_sums(_reach(lambda hand: True, fp), fp).items():
        sums.setdefault(key, acc)
    chart = {k: (DRAW if a[2] > a[1] else STAND) for k, a in sums.items()}
    chart_evs = {k: (a[1] / a[0], a[2] / a[0]) for k, a in sums.items()}
    exceptions = []
    for hand in reach:
        _, stand, draw = _value(hand, fp)
        exact = DRAW if draw > stand else STAND
        if exact != chart[state_key(hand, fp)]:
            exceptions.append((_ranks_text(hand), exact))
    exceptions.sort(key=lambda item: (hand_total(_cards(item[0].split()), fp), item[0]))

    @cache
    def chart_value(hand: Multiset) -> float:
        total, pictures = state_key(hand, fp)
        action = chart.get((total, pictures), STAND if total >= 17 else DRAW)
        if action == STAND:
            return stand_ev(hand, fp)
        n_left = sum(DECK) - sum(hand)
        ev = 0.0
        for r in range(9):
            available = DECK[r] - hand[r]
            if available <= 0:
                continue
            nxt = _add(hand, r)
            t = hand_total(nxt, fp)
            ev += available / n_left * (1.0 if t == 21 else -1.0 if t > 21 else chart_value(nxt))
        return ev

    chart_expected = sum(DECK[r] / sum(DECK) * chart_value(_add((0,) * 9, r)) for r in range(9))
    return Banker36Strategy(
        chart=chart,
        chart_evs=chart_evs,
        first_card_evs=first_evs,
        expected_return=expected,
        chart_expected_return=chart_expected,
        exceptions=tuple(exceptions),
        five_pictures=fp,
    )


@cache
def compute_strategy(five_pictures: bool = True) -> Banker36Strategy:
    """The optimal duel play and its figures (memoised); `five_pictures=False` is the
    `solo` duel (games.strategy.solo)."""
    return _compute(five_pictures)


def first_card_ev(card_rank: str) -> float:
    """EV per chip of a duel given only the player's first card, with optimal play."""
    return compute_strategy().first_card_ev(card_rank)


def expected_return() -> float:
    """Expected return per chip bet of a duel from a fresh deck, with optimal play."""
    return compute_strategy().expected_return
