"""Decision values for `salon` (docs/rules/salon.md), exact under a stated model.

In `salon` the bank is a player: nothing it does is automatic, and it decides blind. So a
decision's value needs a model of the other side. The model (docs/strategy.md, "salon"):

* **The banker, as a ponter sees him**, plays the rule of the AI banker (docs/rules/
  salon.md §7): he draws while his best total is below 17, at most three cards.
* **A ponter, as the banker sees him**, plays the coach's own best play against that
  banker (below); his hand is conditioned on how many cards he holds, and his stake
  weighs his result (the hand is not conditioned on the stake's size).
* **Cards.** A seat conditions on its own cards only: the shoe is the two full decks
  (104 cards) minus the seat's own. Other hands, the cards of earlier deals and how deep
  the shoe is are not counted (a card counter would gain a little from them).
* **The ponter's values are exact**: his draws and the banker's cards are drawn without
  replacement from that shoe. The deal's order (the banker's two cards come before the
  ponter's draws) changes nothing, because every order of unseen cards is equally likely;
  once bets are in, the ponter knows the banker has no natural, and the values of a draw
  are conditioned on that. A ponter's bust costs his stake, except that when he is the
  deal's only ponter with a bet and the banker busts too, all are quits (§4); with other
  ponters in the deal, the chance that every one of them busts as well is left out.
* **The banker's values** take each ponter's final hand as drawn on its own from the shoe
  the banker sees (104 minus the banker's cards), played by the coach's play, and
  conditioned on the number of cards the ponter holds. The ponters' hands are not
  re-conditioned on the cards the banker draws afterwards, nor on one another (the
  "initial removal" of the strategy engine's 52-card model); the all-bust rule is counted
  with the ponters' bust chances taken as independent.

Ranks are the 52-card indices of `games.strategy._twentyone`: 0 the ace, 1..8 the deuce to
the nine, 9 any ten-value card. A hand is its counts per rank. Values are per chip staked
(`ponter_values`, `bet_value`) or in chips (`banker_values`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from games.strategy._twentyone import ACE, TEN, DealerGraph, dealer_distribution

DECKS = 2
FULL_SHOE: tuple[int, ...] = (4 * DECKS,) * 9 + (16 * DECKS,)
MAX_CARDS = 5  # two dealt and at most three drawn
BANKER_STANDS_ON = 17  # the AI banker's rule: draws while below

Hand = tuple[int, ...]

# A banker's final outcome: an index 0..21 is that total; then a bust and a natural.
BUST = 22
NATURAL = 23
OUTCOMES = 24

EMPTY: Hand = (0,) * 10


def total(hand: Hand) -> int:
    """The best total of a hand: an ace counts 11 where that does not bust it."""
    hard = sum((rank + 1) * count for rank, count in enumerate(hand))
    return hard + 10 if hand[ACE] and hard + 10 <= 21 else hard


def is_natural(hand: Hand) -> bool:
    """An ace and a ten-value card as the first two cards."""
    return sum(hand) == 2 and hand[ACE] == 1 and hand[TEN] == 1


def closed(hand: Hand) -> bool:
    """A hand that draws no more: 21 or more, a natural, or its fifth card."""
    return sum(hand) >= MAX_CARDS or total(hand) >= 21


def add(hand: Hand, rank: int) -> Hand:
    return (*hand[:rank], hand[rank] + 1, *hand[rank + 1 :])


def left_of(seen: Hand) -> Hand:
    """The shoe a seat has not seen: the full shoe minus `seen`."""
    return tuple(full - held for full, held in zip(FULL_SHOE, seen, strict=True))


def hand_of(ranks: Sequence[int]) -> Hand:
    hand = [0] * 10
    for rank in ranks:
        hand[rank] += 1
    return tuple(hand)


# --- the rule banker ------------------------------------------------------------------------


@cache
def _banker_graph() -> DealerGraph:
    """The rule banker's open hands (card counts) in drawing order, and their transitions
    (`_twentyone.DealerGraph`: a target >= 0 is another open hand, ``-1 - k`` is final
    outcome ``k``). The first two cards are dealt whatever they make; a natural is an
    outcome of its own."""
    index = {EMPTY: 0}
    order = [EMPTY]
    rows: list[tuple[tuple[int, int, int], ...]] = []
    position = 0
    while position < len(order):
        hand = order[position]
        position += 1
        row = []
        for rank in range(10):
            more = add(hand, rank)
            size = sum(more)
            best = total(more)
            if size == 2 and is_natural(more):
                target = -1 - NATURAL
            elif best > 21:
                target = -1 - BUST
            elif size >= 2 and (best >= BANKER_STANDS_ON or size >= MAX_CARDS):
                target = -1 - best
            else:
                if more not in index:
                    index[more] = len(order)
                    order.append(more)
                target = index[more]
            row.append((rank, hand[rank], target))
        rows.append(tuple(row))
    return DealerGraph(tuple(sum(hand) for hand in order), tuple(rows))


@cache
def banker_outcomes(seen: Hand) -> tuple[float, ...]:
    """The rule banker's final outcome (totals, bust, natural), his cards drawn without
    replacement from the shoe minus `seen`."""
    return tuple(dealer_distribution(_banker_graph(), left_of(seen), OUTCOMES))


def _natural_chance(seen: Hand) -> float:
    """The chance that two cards from the shoe minus `seen` make a natural."""
    left = left_of(seen)
    n = sum(left)
    return 2 * left[ACE] * left[TEN] / (n * (n - 1))


# --- the ponter -----------------------------------------------------------------------------


def _ponter_result(hand: Hand, outcome: int, alone: bool) -> int:
    """A ponter's result per chip (§4) against a banker's outcome other than a natural."""
    mine = total(hand)
    if mine > 21:
        return 0 if alone and outcome == BUST else -1
    if outcome == BUST or is_natural(hand):
        return 2
    return (mine > outcome) - (mine < outcome)


@cache
def _stand(hand: Hand, alone: bool) -> float:
    """E[result × (the banker has no natural)] when the ponter stops with `hand`."""
    outcomes = banker_outcomes(hand)
    return sum(
        outcomes[outcome] * _ponter_result(hand, outcome, alone)
        for outcome in range(OUTCOMES)
        if outcome != NATURAL and outcomes[outcome]
    )


@cache
def _best(hand: Hand, alone: bool) -> float:
    if closed(hand):
        return _stand(hand, alone)
    return max(_stand(hand, alone), _hit(hand, alone))


@cache
def _hit(hand: Hand, alone: bool) -> float:
    left = left_of(hand)
    n = sum(left)
    return sum(left[rank] / n * _best(add(hand, rank), alone) for rank in range(10) if left[rank])


def ponter_draws(hand: Hand, alone: bool) -> bool:
    """The coach's play: whether a ponter holding `hand` should draw."""
    return not closed(hand) and _hit(hand, alone) > _stand(hand, alone)


@dataclass(frozen=True)
class PonterValues:
    stand: float
    hit: float


def ponter_values(hand: Hand, alone: bool) -> PonterValues:
    """A ponter's values per chip of standing and of drawing one card (then playing on
    best), knowing that the banker has no natural."""
    keep = 1.0 - _natural_chance(hand)
    return PonterValues(stand=_stand(hand, alone) / keep, hit=_hit(hand, alone) / keep)


def bet_value(hand: Hand, alone: bool) -> float:
    """The value per chip of a bet on a ponter's two cards, before the banker looks: the
    banker's natural takes the stake; otherwise the ponter plays on best."""
    return _best(hand, alone) - _natural_chance(hand)


# --- the banker -----------------------------------------------------------------------------

# A ponter's final hand as the banker weighs it: its total 0..21, or these.
P_BUST = 22
P_NATURAL = 23


@cache
def _ponter_finals(seen: Hand, alone: bool) -> tuple[tuple[float, ...], ...]:
    """For 2..5 cards held: the distribution of a ponter's final hand (total, bust or
    natural) when he plays the coach's play from two cards dealt from the shoe minus
    `seen`, conditioned on his holding that many cards. Index 0 is two cards."""
    left = left_of(seen)
    by_size = [[0.0] * OUTCOMES for _ in range(MAX_CARDS - 1)]
    frontier: dict[Hand, float] = {EMPTY: 1.0}
    while frontier:
        following: dict[Hand, float] = {}
        for hand, p in frontier.items():
            size = sum(hand)
            if size >= 2 and not ponter_draws(hand, alone):
                if is_natural(hand):
                    key = P_NATURAL
                else:
                    best = total(hand)
                    key = P_BUST if best > 21 else best
                by_size[size - 2][key] += p
                continue
            remaining = sum(left) - size
            for rank in range(10):
                available = left[rank] - hand[rank]
                if available > 0:
                    more = add(hand, rank)
                    following[more] = following.get(more, 0.0) + p * available / remaining
        frontier = following
    out = []
    for row in by_size:
        mass = sum(row)
        out.append(tuple(x / mass for x in row) if mass else tuple(row))
    return tuple(out)


def _banker_settles(final: Hand, ponters: Sequence[tuple[int, tuple[float, ...]]]) -> float:
    """The banker's expected chips when he stops with `final`, against each ponter's
    (stake, distribution of his final hand)."""
    mine = total(final)
    if mine > 21:
        value = 0.0
        every_bust = 1.0
        staked = 0
        for stake, finals in ponters:
            bust = finals[P_BUST]
            value += stake * (bust - 2 * (1.0 - bust))
            every_bust *= bust
            staked += stake
        return value - every_bust * staked  # all bust: all are quits
    value = 0.0
    for stake, finals in ponters:
        per_chip = finals[P_BUST] - 2 * finals[P_NATURAL]
        for theirs in range(22):
            p = finals[theirs]
            if p:
                per_chip += p * ((mine > theirs) - (mine < theirs))
        value += stake * per_chip
    return value


@dataclass(frozen=True)
class BankerValues:
    stand: float
    hit: float


def banker_values(hand: Hand, ponters: Sequence[tuple[int, int]]) -> BankerValues:
    """The banker's values in chips of standing and of drawing one card (then playing on
    best) with `hand` (no natural), against `ponters`: each (stake, cards held)."""
    alone = len(ponters) == 1
    finals = _ponter_finals(hand, alone)
    weighed = [(stake, finals[min(max(held, 2), MAX_CARDS) - 2]) for stake, held in ponters]
    memo: dict[Hand, float] = {}

    def best(current: Hand) -> float:
        if closed(current):
            return _banker_settles(current, weighed)
        value = memo.get(current)
        if value is None:
            value = memo[current] = max(_banker_settles(current, weighed), hit(current))
        return value

    def hit(current: Hand) -> float:
        left = left_of(current)
        n = sum(left)
        return sum(left[rank] / n * best(add(current, rank)) for rank in range(10) if left[rank])

    return BankerValues(stand=_banker_settles(hand, weighed), hit=hit(hand))


def prepare() -> None:
    """Every ponter value from every two-card hand, both ways of the all-bust rule (the
    memo that later reviews use; a few seconds once per process)."""
    for first in range(10):
        for second in range(first, 10):
            hand = add(add(EMPTY, first), second)
            for alone in (False, True):
                bet_value(hand, alone)


__all__ = [
    "BUST",
    "FULL_SHOE",
    "NATURAL",
    "BankerValues",
    "PonterValues",
    "banker_outcomes",
    "banker_values",
    "bet_value",
    "hand_of",
    "ponter_draws",
    "ponter_values",
    "prepare",
    "total",
]


# --- the printed chart (`python -m games strategy --variant salon`) --------------------------


def _two_card_hands() -> list[tuple[Hand, float]]:
    """Every two-card hand with its chance from the full shoe."""
    n = sum(FULL_SHOE)
    out = []
    for first in range(10):
        for second in range(first, 10):
            ways = FULL_SHOE[first] * (FULL_SHOE[second] - (first == second))
            chance = ways / (n * (n - 1)) * (1 if first == second else 2)
            out.append((add(add(EMPTY, first), second), chance))
    return out


def expected_return(alone: bool = False) -> float:
    """A ponter's expected result per chip with a flat bet and the coach's play."""
    return sum(chance * bet_value(hand, alone) for hand, chance in _two_card_hands())


def format_chart() -> str:
    """The coach's ponter play and the value of a bet, by the two cards' total."""
    rows: dict[tuple[bool, int], list[tuple[Hand, float]]] = {}
    for hand, chance in _two_card_hands():
        if is_natural(hand):
            continue
        hard = sum((rank + 1) * count for rank, count in enumerate(hand))
        rows.setdefault((total(hand) != hard, total(hand)), []).append((hand, chance))

    def play(hands: list[tuple[Hand, float]], alone: bool) -> str:
        draws = {ponter_draws(hand, alone) for hand, _ in hands}
        return "D/S" if len(draws) > 1 else ("D" if draws == {True} else "S")

    def per_chip(hands: list[tuple[Hand, float]]) -> float:
        mass = sum(chance for _, chance in hands)
        return sum(chance * bet_value(hand, False) for hand, chance in hands) / mass

    lines = [
        "salon ponter: draw or stand after two cards, against a banker who draws below 17 "
        "(two 52-card decks; the banker's natural takes every stake; docs/strategy.md)",
        "D draw   S stand   D/S depends on the cards   "
        "(with others: other ponters bet too; alone: the only ponter with a bet)",
        "",
        f"{'Total':<10}{'with others':>12}{'alone':>8}{'bet EV per chip':>18}",
    ]
    for soft in (False, True):
        for points in sorted(t for s, t in rows if s == soft):
            hands = rows[(soft, points)]
            label = f"{'soft' if soft else 'hard'} {points}"
            lines.append(
                f"{label:<10}{play(hands, False):>12}{play(hands, True):>8}"
                f"{per_chip(hands):>+18.4f}"
            )
    natural = add(add(EMPTY, ACE), TEN)
    lines += [
        f"{'natural':<10}{'-':>12}{'-':>8}{bet_value(natural, False):>+18.4f}",
        "",
        "Expected return per chip bet, a flat bet and this play (exact under the model): "
        f"{expected_return():+.5f} (alone: {expected_return(True):+.5f})",
    ]
    return "\n".join(lines)
