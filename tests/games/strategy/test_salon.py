"""games.strategy.salon: the rule banker's outcomes against a plain recursion, the coach's
ponter play as docs/strategy.md states it, and special hands' values by hand. The values
against simulations of the engine itself are in test_review.py."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from games.strategy import salon
from games.strategy._twentyone import ACE, TEN


@cache
def _plain_banker(left: tuple[int, ...], hand: tuple[int, ...]) -> tuple[float, ...]:
    """The rule banker's outcomes by plain recursion over his next card."""
    size, best = sum(hand), salon.total(hand)
    out = [0.0] * salon.OUTCOMES
    if size == 2 and hand[ACE] == 1 and hand[TEN] == 1:
        out[salon.NATURAL] = 1.0
        return tuple(out)
    if best > 21:
        out[salon.BUST] = 1.0
        return tuple(out)
    if size >= 2 and (best >= 17 or size >= 5):
        out[best] = 1.0
        return tuple(out)
    n = sum(left)
    for rank in range(10):
        if left[rank]:
            fewer = tuple(c - (r == rank) for r, c in enumerate(left))
            below = _plain_banker(fewer, salon.add(hand, rank))
            for k in range(salon.OUTCOMES):
                out[k] += left[rank] / n * below[k]
    return tuple(out)


@pytest.mark.parametrize("seen", [(), (9, 5), (0, 9), (1, 1, 2, 3, 4)])
def test_the_rule_bankers_outcomes_equal_a_plain_recursion(seen):
    hand = salon.hand_of(seen)
    fast = salon.banker_outcomes(hand)
    plain = _plain_banker(salon.left_of(hand), salon.EMPTY)
    assert sum(fast) == pytest.approx(1.0, abs=1e-12)
    assert fast == pytest.approx(plain, abs=1e-12)


def _open_hands() -> list[tuple[int, ...]]:
    """Every ponter hand of two to four cards that may still draw."""
    found: set[tuple[int, ...]] = set()

    def walk(hand: tuple[int, ...]) -> None:
        if hand in found:
            return
        if sum(hand) >= 2:
            if salon.closed(hand):
                return
            found.add(hand)
        for rank in range(10):
            if hand[rank] < salon.FULL_SHOE[rank]:
                walk(salon.add(hand, rank))

    walk(salon.EMPTY)
    return sorted(found)


def _soft(hand: tuple[int, ...]) -> bool:
    return salon.total(hand) != sum((rank + 1) * count for rank, count in enumerate(hand))


def test_the_coachs_ponter_play_is_the_one_docs_strategy_states():
    draws: dict[tuple[bool, bool, int], Counter[bool]] = {}
    for hand in _open_hands():
        for alone in (False, True):
            key = (alone, _soft(hand), salon.total(hand))
            draws.setdefault(key, Counter())[salon.ponter_draws(hand, alone)] += 1
    for (alone, soft, points), counted in draws.items():
        if soft:
            assert counted == Counter({points <= 17: counted.total()}), (alone, points)
        elif points <= 11 or (alone and points == 13):
            assert not counted[False], (alone, points)
        elif points >= 15 or (not alone and points >= 13):
            assert not counted[True], (alone, points)
    assert draws[(False, False, 12)] == Counter({True: 29, False: 3})
    assert draws[(True, False, 12)] == Counter({True: 32})
    assert draws[(True, False, 14)] == Counter({True: 23, False: 17})


def test_a_natural_is_bet_at_twice_the_stake_but_for_the_bankers_natural():
    natural = salon.hand_of([ACE, TEN])
    left = salon.left_of(natural)
    n = sum(left)
    bankers = 2 * left[ACE] * left[TEN] / (n * (n - 1))
    assert salon.bet_value(natural, False) == pytest.approx(2 * (1 - bankers) - bankers)


def test_a_lone_ponters_bust_is_quits_when_the_banker_busts_too():
    bust = salon.hand_of([TEN, TEN, 5])
    banker_busts = salon.banker_outcomes(bust)[salon.BUST]
    natural = salon.banker_outcomes(bust)[salon.NATURAL]
    # per chip, times "the banker has no natural" (the review divides that out)
    assert salon._stand(bust, False) == pytest.approx(-(1 - natural))
    assert salon._stand(bust, True) == pytest.approx(-(1 - natural - banker_busts))


def test_the_bankers_values_weigh_each_ponter_by_stake():
    one = salon.banker_values(salon.hand_of([TEN, 3]), [(10, 2)])
    ten = salon.banker_values(salon.hand_of([TEN, 3]), [(100, 2)])
    assert ten.stand == pytest.approx(10 * one.stand) and ten.hit == pytest.approx(10 * one.hit)
    # Standing on 20 beats drawing to it against a ponter who stood on two cards.
    twenty = salon.banker_values(salon.hand_of([TEN, TEN]), [(10, 2)])
    assert twenty.stand > twenty.hit
