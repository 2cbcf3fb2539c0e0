"""The `classic` hit/stand chart maximises expected points, and its points are right."""

from __future__ import annotations

import random
from functools import cache
from statistics import fmean, stdev

import pytest

from games.strategy import classic
from games.strategy._twentyone import ACE, TEN

UPCARDS = "23456789TA"


@pytest.fixture(scope="module")
def strategy() -> classic.ClassicStrategy:
    return classic.compute_strategy()


def test_hard_seventeen_and_above_always_stand(strategy):
    for total in range(17, 22):
        for up in UPCARDS:
            assert strategy.decision("hard", total, up) == "stand"


def test_hard_eleven_and_below_always_hit(strategy):
    for total in range(4, 12):
        for up in UPCARDS:
            assert strategy.decision("hard", total, up) == "hit"


def test_stiff_hands_stand_against_a_small_card_and_hit_against_a_big_one(strategy):
    for total in range(13, 17):
        assert [strategy.decision("hard", total, up) for up in UPCARDS] == (
            ["stand"] * 5 + ["hit"] * 5
        )
    assert strategy.decision("hard", 12, "4") == "stand"
    assert strategy.decision("hard", 12, "3") == "hit"


def test_soft_hands_hit_to_seventeen_and_stand_from_nineteen(strategy):
    for up in UPCARDS:
        for total in range(12, 18):
            assert strategy.decision("soft", total, up) == "hit"
        for total in range(19, 22):
            assert strategy.decision("soft", total, up) == "stand"
    assert strategy.decide(["AS", "7H"], "9") == "hit"
    assert strategy.decide(["AS", "7H"], "2") == "stand"


def test_decide_reads_cards_and_refuses_impossible_hands(strategy):
    assert strategy.decide(["TS", "6H"], "TD") == "hit"
    assert strategy.should_hit(["10S", "2H"], "3")
    assert not strategy.should_hit(["7S", "7H", "7D"], "A")
    with pytest.raises(ValueError):
        strategy.decide(["TS", "9H", "5D"], "T")


def test_expected_points_per_round_are_a_small_loss(strategy):
    assert -3.0 < strategy.expected_points < -1.0
    assert strategy.expected_points == pytest.approx(100 * strategy.chart.expected_return)


def test_the_total_chart_gives_up_little_to_best_play_per_two_card_hand(strategy):
    chart, best = strategy.chart.expected_return, strategy.chart.optimal_expected_return
    assert best - 0.001 < chart <= best + 1e-12


def _naive_stand_ev(player: tuple[int, int], upcard: int, total: int) -> float:
    """Standing on a two-card hand, single deck, by plain recursion over every card.

    Unconditional: a dealer natural (checked first) costs the hand one unit.
    """
    deck = [4] * 9 + [16]
    for r in (*player, upcard):
        deck[r] -= 1

    @cache
    def dealer(left: tuple[int, ...], hard: int, ace: bool, cards: int) -> float:
        best = hard + 10 if ace and hard + 10 <= 21 else hard
        if cards == 2 and best == 21:
            return -1.0
        if best > 21:
            return 1.0
        if best >= 17:
            return (best < total) - (best > total)
        n = sum(left)
        ev = 0.0
        for r in range(10):
            if left[r]:
                nxt = (*left[:r], left[r] - 1, *left[r + 1 :])
                ev += left[r] / n * dealer(nxt, hard + r + 1, ace or r == ACE, cards + 1)
        return ev

    return dealer(tuple(deck), upcard + 1, upcard == ACE, 1)


@pytest.mark.parametrize(
    ("player", "upcard", "total"),
    [((6, TEN), ACE, 17), ((7, TEN), TEN, 18), ((3, 8), 5, 13), ((ACE, 7), ACE, 19)],
)
def test_stand_values_equal_a_plain_enumeration_of_the_single_deck(strategy, player, upcard, total):
    a, b = sorted(player)
    engine = strategy.chart.hand_evs[(a, b, upcard)].stand
    assert engine == pytest.approx(_naive_stand_ev(player, upcard, total), abs=1e-12)


@pytest.mark.parametrize("upcard", ["6", "T"])
def test_model_return_is_close_to_the_exact_no_approximation_computation(strategy, upcard):
    # The exact computation draws every card without replacement (the model keeps the
    # dealer at the two-card shoe); per up-card they agree to a tenth of a point.
    exact = classic.exact_expected_return(strategy, [upcard])
    model = strategy.chart.return_by_upcard["A23456789T".index(upcard)]
    assert abs(exact - model) < 0.0015


def _simulate_round(rng: random.Random, hits: dict[tuple[bool, int, int], bool]) -> int:
    deck = [r for r in range(10) for _ in range(16 if r == TEN else 4)]

    def draw() -> int:
        i = rng.randrange(len(deck))
        deck[i], deck[-1] = deck[-1], deck[i]
        return deck.pop()

    player = [draw(), draw()]
    up, hole = draw(), draw()

    def best(cards: list[int]) -> int:
        hard = sum(c + 1 for c in cards)
        return hard + 10 if ACE in cards and hard + 10 <= 21 else hard

    player_natural = sorted(player) == [ACE, TEN]
    if sorted([up, hole]) == [ACE, TEN]:
        return 0 if player_natural else -100
    if player_natural:
        return 150
    while best(player) < 21:
        hard = sum(c + 1 for c in player)
        soft = ACE in player and hard + 10 <= 21
        if not hits[(soft, best(player), up)]:
            break
        player.append(draw())
    mine = best(player)
    if mine > 21:
        return -100
    dealer = [up, hole]
    while best(dealer) < 17:
        dealer.append(draw())
    theirs = best(dealer)
    if theirs > 21 or mine > theirs:
        return 100
    return 0 if mine == theirs else -100


def test_seeded_simulation_of_rounds_agrees_with_the_expected_points(strategy):
    hits = {
        (soft, total, up): strategy.decision("soft" if soft else "hard", total, "A23456789T"[up])
        == "hit"
        for soft in (False, True)
        for total in range(12 if soft else 4, 21)
        for up in range(10)
    }
    rng = random.Random(20240611)
    points = [_simulate_round(rng, hits) for _ in range(25_000)]
    error = stdev(points) / len(points) ** 0.5
    assert abs(fmean(points) - strategy.expected_points) < 4 * error
