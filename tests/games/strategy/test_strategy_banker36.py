"""The `banker36` duel: optimal draw/stand play, its return and the first-card bet signal."""

from __future__ import annotations

import random
from functools import cache
from statistics import fmean, stdev

import pytest

from games.strategy import banker36

RANKS = "6789TJQKA"
VALUE = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 2, "Q": 3, "K": 4, "A": 11}
PICTURES = set("JQKA")


@pytest.fixture(scope="module")
def strategy() -> banker36.Banker36Strategy:
    return banker36.compute_strategy()


def _total(hand: tuple[str, ...]) -> int:
    if len(hand) == 2 and hand == ("A", "A"):
        return 21
    if len(hand) == 5 and all(c in PICTURES for c in hand):
        return 21
    return sum(VALUE[c] for c in hand)


def _naive_first_card_evs(first_cards: str) -> dict[str, float]:
    """Optimal play by plain recursion over every card drawn (independent of the engine)."""

    def take(left: tuple[int, ...], rank: str) -> tuple[int, ...]:
        i = RANKS.index(rank)
        return (*left[:i], left[i] - 1, *left[i + 1 :])

    @cache
    def banker_wins(left: tuple[int, ...], hand: tuple[str, ...], player_total: int) -> float:
        """Probability that the banker, holding `hand`, beats the standing player."""
        total = _total(hand)
        if hand and total > 21:
            return 0.0
        if hand and total >= 17:
            return 1.0 if total >= player_total else 0.0
        n = sum(left)
        p = 0.0
        for i, rank in enumerate(RANKS):
            if left[i]:
                nxt = tuple(sorted((*hand, rank)))
                p += left[i] / n * banker_wins(take(left, rank), nxt, player_total)
        return p

    @cache
    def value(left: tuple[int, ...], hand: tuple[str, ...]) -> float:
        total = _total(hand)
        if total == 21:
            return 1.0
        if total > 21:
            return -1.0
        stand = 1.0 - 2.0 * banker_wins(left, (), total)
        n = sum(left)
        draw = 0.0
        for i, rank in enumerate(RANKS):
            if left[i]:
                nxt = (*hand, rank)
                # golden point needs the aces to be the first two cards; order of the rest
                # does not matter, so keep the first card and sort the others.
                key = nxt if len(nxt) <= 2 else (nxt[0], *sorted(nxt[1:]))
                draw += left[i] / n * value(take(left, rank), key)
        return max(stand, draw)

    full = (4,) * 9
    return {r: value(take(full, r), (r,)) for r in first_cards}


@pytest.mark.parametrize("first_card", ["A", "T", "K"])
def test_first_card_value_equals_an_independent_exact_enumeration(strategy, first_card):
    naive = _naive_first_card_evs(first_card)
    assert strategy.first_card_ev(first_card) == pytest.approx(naive[first_card], abs=1e-12)


def test_expected_return_averages_the_nine_equally_likely_first_cards(strategy):
    evs = [strategy.first_card_ev(r) for r in RANKS]
    assert strategy.expected_return == pytest.approx(fmean(evs), abs=1e-15)


def _simulate_duel(rng: random.Random, draws: dict[tuple[str, ...], bool]) -> int:
    deck = [r for r in RANKS for _ in range(4)]

    def draw() -> str:
        i = rng.randrange(len(deck))
        deck[i], deck[-1] = deck[-1], deck[i]
        return deck.pop()

    hand = [draw()]
    while draws[(hand[0], *sorted(hand[1:]))]:
        hand.append(draw())
        total = _total(tuple(hand))
        if total == 21:
            return 1
        if total > 21:
            return -1
    mine = _total(tuple(hand))
    banker: list[str] = []
    while not banker or _total(tuple(banker)) < 17:
        banker.append(draw())
    theirs = _total(tuple(banker))
    return 1 if theirs > 21 or mine > theirs else -1


def test_seeded_simulation_of_duels_agrees_with_the_expected_return(strategy):
    class Policy(dict[tuple[str, ...], bool]):
        def __missing__(self, key: tuple[str, ...]) -> bool:
            self[key] = strategy.should_draw(list(key))
            return self[key]

    rng = random.Random(36)
    draws = Policy()
    results = [_simulate_duel(rng, draws) for _ in range(25_000)]
    error = stdev(results) / len(results) ** 0.5
    assert abs(fmean(results) - strategy.expected_return) < 4 * error


def test_the_duel_favours_the_banker_by_about_twelve_percent(strategy):
    assert -0.13 < strategy.expected_return < -0.11
    assert strategy.chart_expected_return <= strategy.expected_return


def test_only_an_ace_or_a_ten_as_first_card_is_worth_the_largest_bet(strategy):
    positive = {r for r in RANKS if strategy.first_card_ev(r) > 0}
    assert positive == {"A", "T"}
    assert strategy.first_card_ev("A") > strategy.first_card_ev("T")
    assert strategy.bet_high("AS") and strategy.bet_high("10H")
    assert not strategy.bet_high("6D")
    assert banker36.first_card_ev("A") == strategy.first_card_ev("A")


def test_low_totals_draw_and_high_totals_stand(strategy):
    for total in range(6, 14):
        assert strategy.chart_decision(total) == "draw"
    for total in range(15, 21):
        assert strategy.chart_decision(total) == "stand"
    assert strategy.decision(["TS", "9H"]) == "stand"
    assert strategy.decision(["6S", "6H"]) == "draw"
    assert strategy.decision(["AS"]) == "draw"  # golden point or a ten make 21


def test_four_pictures_keep_drawing_for_five_pictures(strategy):
    # J, Q, K, A = 20 with four cards: any fifth picture makes 21.
    assert strategy.chart_decision(17, 4) == "draw"
    assert strategy.decision(["JS", "JH", "QD", "AS"]) == "stand"  # 18: banker must beat it
    assert strategy.decision(["JS", "QH", "QD", "KS"]) == "draw"  # 12 and four pictures


def test_special_hands_count_twenty_one():
    assert banker36.hand_total((0, 0, 0, 0, 0, 0, 0, 0, 2)) == 21  # golden point
    assert banker36.hand_total((0, 0, 0, 0, 0, 2, 1, 1, 1)) == 21  # five pictures (24)
    assert banker36.hand_total((0, 0, 0, 0, 1, 0, 0, 0, 1)) == 21  # ten and ace
    assert banker36.hand_total((1, 0, 0, 0, 0, 0, 0, 0, 2)) == 28  # three cards: bust


def test_settled_hands_have_no_decision(strategy):
    with pytest.raises(ValueError):
        strategy.decision(["AS", "AH"])
    with pytest.raises(ValueError):
        strategy.decision(["TS", "TH", "6D"])
    with pytest.raises(ValueError):
        strategy.decision([])


def test_exceptions_to_the_chart_are_hands_whose_exact_play_differs(strategy):
    assert strategy.exceptions
    for cards, action in strategy.exceptions:
        ranks = cards.split()
        assert strategy.decision(ranks) == action
        total = _total(tuple(ranks))
        pictures = len(ranks) if all(r in PICTURES for r in ranks) else None
        assert strategy.chart_decision(total, pictures) != action
