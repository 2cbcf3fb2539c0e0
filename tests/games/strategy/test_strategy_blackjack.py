"""The `blackjack` basic strategy is computed, and it is the published no-hole-card chart."""

from __future__ import annotations

from functools import cache

import pytest

from games.strategy import blackjack
from games.strategy._twentyone import (
    ACE,
    DNATURAL,
    TEN,
    Rules,
    Situation,
    dealer_distribution,
    dealer_graph,
    make_situation,
)

UPCARDS = "23456789TA"

# Wizard of Odds, "No Hole Card" basic strategy for 4-8 decks, dealer stands on soft 17,
# double after split (the chart for exactly these rules). Columns: dealer 2..9, T, A.
PUBLISHED_HARD = {
    4: "H  H  H  H  H  H  H  H  H  H",
    5: "H  H  H  H  H  H  H  H  H  H",
    6: "H  H  H  H  H  H  H  H  H  H",
    7: "H  H  H  H  H  H  H  H  H  H",
    8: "H  H  H  H  H  H  H  H  H  H",
    9: "H  Dh Dh Dh Dh H  H  H  H  H",
    10: "Dh Dh Dh Dh Dh Dh Dh Dh H  H",
    11: "Dh Dh Dh Dh Dh Dh Dh Dh H  H",
    12: "H  H  S  S  S  H  H  H  H  H",
    13: "S  S  S  S  S  H  H  H  H  H",
    14: "S  S  S  S  S  H  H  H  H  H",
    15: "S  S  S  S  S  H  H  H  H  H",
    16: "S  S  S  S  S  H  H  H  H  H",
    17: "S  S  S  S  S  S  S  S  S  S",
    18: "S  S  S  S  S  S  S  S  S  S",
    19: "S  S  S  S  S  S  S  S  S  S",
    20: "S  S  S  S  S  S  S  S  S  S",
    21: "S  S  S  S  S  S  S  S  S  S",
}
PUBLISHED_SOFT = {
    13: "H  H  H  Dh Dh H  H  H  H  H",
    14: "H  H  H  Dh Dh H  H  H  H  H",
    15: "H  H  Dh Dh Dh H  H  H  H  H",
    16: "H  H  Dh Dh Dh H  H  H  H  H",
    17: "H  Dh Dh Dh Dh H  H  H  H  H",
    18: "S  Ds Ds Ds Ds S  S  H  H  H",
    19: "S  S  S  S  S  S  S  S  S  S",
    20: "S  S  S  S  S  S  S  S  S  S",
    21: "S  S  S  S  S  S  S  S  S  S",
}
PUBLISHED_PAIRS = {
    "2": "P  P  P  P  P  P  H  H  H  H",
    "3": "P  P  P  P  P  P  H  H  H  H",
    "4": "H  H  H  P  P  H  H  H  H  H",
    "5": "Dh Dh Dh Dh Dh Dh Dh Dh H  H",
    "6": "P  P  P  P  P  H  H  H  H  H",
    "7": "P  P  P  P  P  P  H  H  H  H",
    "8": "P  P  P  P  P  P  P  P  H  H",
    "9": "P  P  P  P  P  S  P  P  S  S",
    "T": "S  S  S  S  S  S  S  S  S  S",
    "A": "P  P  P  P  P  P  P  P  P  H",
}

WIZARD_OF_ODDS_EURO_6DS17R4 = 0.0051417


@pytest.fixture(scope="module")
def strategy() -> blackjack.BlackjackStrategy:
    return blackjack.compute_strategy()


def _mismatches(strategy, kind, published):
    wrong = []
    for key, row in published.items():
        for upcard, expected in zip(UPCARDS, row.split(), strict=True):
            got = strategy.code(kind, key, upcard)
            if got != expected:
                wrong.append(f"{kind} {key} vs {upcard}: computed {got}, published {expected}")
    return wrong


def test_computed_hard_rows_equal_the_published_no_hole_card_chart(strategy):
    assert _mismatches(strategy, "hard", PUBLISHED_HARD) == []


def test_computed_soft_rows_equal_the_published_no_hole_card_chart(strategy):
    assert _mismatches(strategy, "soft", PUBLISHED_SOFT) == []


def test_computed_pair_rows_equal_the_published_no_hole_card_chart(strategy):
    assert _mismatches(strategy, "pair", PUBLISHED_PAIRS) == []


def test_house_edge_is_within_three_hundredths_of_a_point_of_the_published_0_514_percent():
    edge = blackjack.house_edge()
    assert abs(edge - WIZARD_OF_ODDS_EURO_6DS17R4) <= 0.0003, f"{100 * edge:.4f}%"


def test_best_play_per_two_card_hand_reproduces_appendix_9_to_a_thousandth_of_a_point(strategy):
    # Appendix 9 plays each two-card hand its best way, as `optimal_house_edge` does.
    assert abs(strategy.optimal_house_edge - WIZARD_OF_ODDS_EURO_6DS17R4) <= 0.00002
    assert strategy.optimal_house_edge <= strategy.house_edge


@pytest.mark.parametrize(
    ("cards", "upcard", "action"),
    [
        (["TS", "6H"], "T", "hit"),  # hard 16 vs 10
        (["9D", "7C"], "TH", "hit"),
        (["AS", "7H"], "9", "hit"),  # soft 18 vs 9
        (["AS", "7H"], "2", "stand"),  # soft 18 vs 2, S17
        (["AS", "7H"], "3", "double"),
        (["8S", "8H"], "A", "hit"),  # ENHC: no split of 8s vs an ace
        (["8S", "8H"], "T", "hit"),  # ENHC: no split of 8s vs a ten
        (["8S", "8H"], "9", "split"),
        (["6S", "5H"], "T", "hit"),  # ENHC: 11 vs 10 hits
        (["6S", "5H"], "A", "hit"),
        (["6S", "5H"], "6", "double"),
        (["AS", "AH"], "6", "split"),
        (["AS", "AH"], "T", "split"),
        (["AS", "AH"], "A", "hit"),  # ENHC: no split of aces vs an ace
        (["TS", "2H"], "4", "stand"),
        (["TS", "2H"], "3", "hit"),
        (["5S", "5H"], "9", "double"),  # fives are a ten, never split
        (["KS", "QH"], "6", "stand"),  # a pair of tens stands
        (["9S", "9H"], "7", "stand"),
        (["4S", "4H"], "5", "split"),
        (["5S", "4H"], "2", "hit"),
    ],
)
def test_textbook_hands_get_the_textbook_action(strategy, cards, upcard, action):
    assert strategy.decide(cards, upcard) == action


def test_doubling_cells_fall_back_to_hit_or_stand_when_double_is_not_allowed(strategy):
    assert strategy.decide(["6S", "5H"], "6", can_double=False) == "hit"
    assert strategy.decide(["2S", "3H", "6D"], "6") == "hit"  # three-card 11
    assert strategy.decide(["AS", "7H"], "4", can_double=False) == "stand"
    assert strategy.decide(["AS", "2H", "5D"], "4") == "stand"  # three-card soft 18
    assert strategy.decision("soft", 18, "4") == "double"
    assert strategy.decision("soft", 18, "4", can_double=False) == "stand"


def test_a_pair_that_may_not_be_split_is_played_as_its_total(strategy):
    assert strategy.decide(["8S", "8H"], "6", can_split=False) == "stand"  # hard 16 vs 6
    assert strategy.decide(["AS", "AH"], "6", can_split=False) == "double"  # soft 12 vs 6
    assert strategy.decision("hard", 16, "6", pair="8") == "split"


def test_twenty_one_stands_and_impossible_hands_are_refused(strategy):
    assert strategy.decide(["7S", "7H", "7D"], "T") == "stand"
    with pytest.raises(ValueError):
        strategy.decide(["TS", "9H", "5D"], "T")
    with pytest.raises(ValueError):
        strategy.decide(["TS"], "T")
    with pytest.raises(ValueError):
        strategy.hand_evs("A", "K", "T")


def test_hand_evs_order_the_textbook_plays(strategy):
    eleven = strategy.hand_evs("6", "5", "6")
    assert eleven.double > eleven.hit > eleven.stand
    eights = strategy.hand_evs("8", "8", "T")
    assert eights.hit > eights.stand > eights.split  # ENHC: a dealer natural takes both hands
    cell = strategy.evs("hard", 11, "T")
    assert cell["hit"] > cell["double"]


def test_the_peek_game_chart_differs_from_no_hole_card_exactly_in_the_known_cells():
    peek = blackjack.compute_strategy(Rules(dealer_peeks=True))
    enhc = blackjack.compute_strategy()
    differences = set()
    for kind, rows in (("hard", range(4, 22)), ("soft", range(13, 22)), ("pair", "23456789TA")):
        for key in rows:
            for up in UPCARDS:
                if peek.code(kind, key, up) != enhc.code(kind, key, up):
                    differences.add((kind, key, up, peek.code(kind, key, up)))
    assert differences == {
        ("hard", 11, "T", "Dh"),
        ("pair", "8", "T", "P"),
        ("pair", "8", "A", "P"),
        ("pair", "A", "A", "P"),
    }


@pytest.mark.parametrize(
    ("rules", "published"),
    [
        # Wizard of Odds Appendix 9: euro-6dh17r4 and 5ds17r4 (American peek game).
        (Rules(hits_soft_17=True), -0.0072705),
        (Rules(decks=5, dealer_peeks=True), -0.003804),
    ],
)
def test_other_published_rule_sets_are_reproduced_too(rules, published):
    computed = blackjack.compute_strategy(rules).chart.optimal_expected_return
    assert abs(computed - published) <= 0.0001


def _naive_dealer(shoe: list[int], upcard: int, hits_soft_17: bool) -> list[float]:
    """Dealer outcomes by plain recursion over ordered draws (independent of the engine)."""

    @cache
    def go(left: tuple[int, ...], hard: int, ace: bool, cards: int) -> tuple[float, ...]:
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        soft = ace and hard + 10 <= 21
        out = [0.0] * 7
        if cards == 2 and total == 21:
            out[DNATURAL] = 1.0
            return tuple(out)
        if total > 21:
            out[5] = 1.0
            return tuple(out)
        if total > 17 or (total == 17 and not (soft and hits_soft_17)):
            out[total - 17] = 1.0
            return tuple(out)
        n = sum(left)
        for r in range(10):
            if left[r]:
                nxt = (*left[:r], left[r] - 1, *left[r + 1 :])
                sub = go(nxt, hard + r + 1, ace or r == ACE, cards + 1)
                out = [a + left[r] / n * b for a, b in zip(out, sub, strict=True)]
        return tuple(out)

    return list(go(tuple(shoe), upcard + 1, upcard == ACE, 1))


@pytest.mark.parametrize("upcard", range(10))
@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_dealer_outcomes_match_a_plain_recursion_over_a_single_deck(upcard, hits_soft_17):
    shoe = [4] * 9 + [16]
    shoe[upcard] -= 1
    shoe[TEN] -= 1  # a player's card or two out of the deck, as in play
    shoe[3] -= 1
    engine = dealer_distribution(dealer_graph(upcard, hits_soft_17), shoe)
    naive = _naive_dealer(shoe, upcard, hits_soft_17)
    assert engine == pytest.approx(naive, abs=1e-12)
    assert sum(engine) == pytest.approx(1.0, abs=1e-12)


def test_split_hand_counts_follow_the_resplit_limit():
    situation: Situation = make_situation(blackjack.BLACKJACK_RULES, 5, (7, 7))
    p = situation.draw[7]
    non_pair, unsplittable = situation.split_counts(7)
    # Two hands; each card that pairs again adds a hand until there are four.
    hands = non_pair + unsplittable
    assert 2.0 < hands < 4.0
    assert hands == pytest.approx(2 + 2 * p + 2 * p * p * (1 + (1 - p)), rel=0.2)
    no_resplit = make_situation(Rules(max_hands=2), 5, (7, 7)).split_counts(7)
    assert no_resplit == pytest.approx((2 * (1 - p), 2 * p))


def test_the_exact_recount_of_the_chart_is_within_a_hundredth_of_a_point_of_the_model():
    # Without replacement the player's hits change the dealer's shoe; with six decks that
    # moves the house edge by a few thousandths of a percentage point (a split keeps the
    # model's value in both).
    strategy = blackjack.compute_strategy()
    exact = blackjack.exact_expected_return(strategy)
    model = strategy.chart.expected_return
    assert exact != model
    assert abs(exact - model) < 1e-4
    by_upcard = [blackjack.exact_expected_return(strategy, [u]) for u in "23456789TA"]
    assert sum(by_upcard) == pytest.approx(exact, abs=1e-12)
    for u, part in zip("23456789TA", by_upcard, strict=True):
        assert abs(part - strategy.chart.return_by_upcard[blackjack.rank_index(u)]) < 1e-4
