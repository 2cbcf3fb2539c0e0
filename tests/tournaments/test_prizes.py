"""The prize table (docs/tournaments.md, «Prizes»): pure arithmetic."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tournaments.prizes import FIXED_ROWS, PRIZE_TABLE, payouts, place_prizes, shares


def test_a_small_field_is_winner_takes_all_and_larger_ones_pay_more_places():
    assert shares(2) == (100,)
    assert shares(5) == (100,)
    assert shares(6) == (50, 30, 20)
    assert shares(16) == (40, 25, 15, 10, 10)
    assert shares(41) == (30, 20, 14, 10, 8, 7, 6, 5)


def test_a_fixed_prize_table_pays_its_places_whatever_the_field_but_never_more_than_it():
    assert shares(40, "winner") == (100,)
    assert shares(3, "top3") == (50, 30, 20)
    assert shares(2, "top3") == (50, 30)
    assert shares(100, "top5") == (40, 25, 15, 10, 10)
    assert place_prizes(1000, 2, "top3") == [625, 375]  # the two shares, of the whole pool
    assert all(sum(row) == 100 for row in FIXED_ROWS.values())


def test_every_row_of_the_table_shares_the_whole_pool():
    assert all(sum(row) == 100 for _limit, row in PRIZE_TABLE)


def test_the_chips_rounding_leaves_go_to_first_place():
    assert place_prizes(1001, 6) == [501, 300, 200]


def test_tied_entrants_split_the_prizes_of_the_places_they_hold_together():
    # Places 2 and 3 tied: (300 + 200) / 2 each; first place alone.
    assert payouts(1000, [["ann"], ["bob", "cat"], ["dan", "eve", "fay"]]) == {
        "ann": 500,
        "bob": 250,
        "cat": 250,
        "dan": 0,
        "eve": 0,
        "fay": 0,
    }


def test_a_split_that_leaves_chips_gives_them_one_each_in_order_of_registration():
    # Three tied for first of three: 1000 / 3 = 333, one chip left, to the first.
    assert payouts(1000, [["ann", "bob", "cat"]]) == {"ann": 334, "bob": 333, "cat": 333}


@given(
    pool=st.integers(min_value=0, max_value=10**9),
    groups=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=40),
)
def test_payouts_pay_exactly_the_pool_and_never_more_to_a_lower_place(pool, groups):
    names = iter(range(10_000))
    ranking = [[next(names) for _ in range(size)] for size in groups]
    paid = payouts(pool, ranking)
    assert sum(paid.values()) == pool
    best_of_each = [max(paid[k] for k in group) for group in ranking]
    worst_of_each = [min(paid[k] for k in group) for group in ranking]
    assert all(worst_of_each[i] >= best_of_each[i + 1] - 1 for i in range(len(groups) - 1))
