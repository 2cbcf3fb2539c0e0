"""Multi-table seating and placement points (tournaments/multitable.py), by their
properties over many fields: everyone seated once at even tables of two to four, the
leaders together, and no two players of last round's table together again wherever the
field allows."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.multitable import (
    placement_points,
    repeated_pairs,
    seat_round,
    table_sizes,
)

fields = st.integers(min_value=2, max_value=40)


@given(fields)
def test_tables_hold_two_to_four_and_differ_by_at_most_one(players):
    sizes = table_sizes(players)
    assert sum(sizes) == players
    assert all(2 <= size <= 4 for size in sizes) or players < 2
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    assert len(sizes) == -(-players // 4)  # as few tables as hold them


@given(fields)
def test_the_first_round_seats_the_standings_in_order_leaders_first(players):
    order = list(range(players))
    tables = seat_round(order)
    assert [p for table in tables for p in table] == order


def _previous(players: int, rng: random.Random) -> list[list[int]]:
    """A round before: the same field shuffled into tables of the usual sizes."""
    field = list(range(players))
    rng.shuffle(field)
    tables, at = [], 0
    for size in table_sizes(players):
        tables.append(field[at : at + size])
        at += size
    return tables


@settings(max_examples=60, deadline=None)
@given(fields, st.randoms(use_true_random=False))
def test_every_player_is_seated_once_at_even_tables(players, rng):
    order = list(range(players))
    rng.shuffle(order)
    tables = seat_round(order, _previous(players, rng))
    assert sorted(p for table in tables for p in table) == list(range(players))
    assert [len(t) for t in tables] == table_sizes(players)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=13, max_value=40), st.randoms(use_true_random=False))
def test_no_two_players_of_a_table_meet_again_when_the_field_allows(players, rng):
    # At least four tables, the largest table before held four: a seating exists.
    order = list(range(players))
    rng.shuffle(order)
    previous = _previous(players, rng)
    assert repeated_pairs(seat_round(order, previous), previous) == 0


@settings(max_examples=60, deadline=None)
@given(fields, st.randoms(use_true_random=False))
def test_swaps_never_seat_more_old_tablemates_together_than_the_standings_order(players, rng):
    order = list(range(players))
    rng.shuffle(order)
    previous = _previous(players, rng)
    plain = [order[sum(table_sizes(players)[:i]) :][:n] for i, n in enumerate(table_sizes(players))]
    assert repeated_pairs(seat_round(order, previous), previous) <= repeated_pairs(plain, previous)


def test_the_leaders_sit_together_when_they_did_not_meet_before():
    previous = [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]
    tables = seat_round(list(range(16)), previous)
    assert tables[0] == [0, 1, 2, 3] and repeated_pairs(tables, previous) == 0


def test_a_player_listed_twice_or_a_field_of_one_is_refused():
    with pytest.raises(ValueError):
        seat_round([1, 2, 2])
    with pytest.raises(ValueError):
        table_sizes(1)


@pytest.mark.parametrize(
    ("stacks", "points"),
    [
        ({"a": 400, "b": 300, "c": 200, "d": 100}, {"a": 6, "b": 4, "c": 2, "d": 0}),
        ({"a": 300, "b": 200, "c": 100}, {"a": 6, "b": 3, "c": 0}),
        ({"a": 10, "b": 390}, {"a": 0, "b": 6}),
        ({"a": 300, "b": 300, "c": 200, "d": 0}, {"a": 6, "b": 6, "c": 2, "d": 0}),
    ],
)
def test_placement_points_go_six_to_zero_by_place_ties_sharing_the_better(stacks, points):
    assert placement_points(stacks) == points


@given(st.dictionaries(st.integers(), st.integers(0, 1000), min_size=2, max_size=4))
def test_more_chips_never_earn_fewer_points(stacks):
    points = placement_points(stacks)
    for a in stacks:
        for b in stacks:
            if stacks[a] > stacks[b]:
                assert points[a] >= points[b]
    assert max(points.values()) == 6 and all(0 <= v <= 6 for v in points.values())


def test_leaders_who_just_met_are_parted_but_stay_near_the_top():
    previous = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
    tables = seat_round(list(range(16)), previous)
    assert repeated_pairs(tables, previous) == 0
    assert 0 in tables[0]  # the leader still sits at the first table
    assert sorted(p for p in tables[0]) == [0, 4, 8, 12]  # the next best who may join him
