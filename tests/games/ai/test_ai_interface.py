"""The AI decides from a seat's view and legal actions only: hidden cards cannot move it."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from games import engine
from games.ai import LEVELS, choose_action


def _decide(variant: str, level: str, state: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    turn = engine.legal_actions(state)
    assert turn is not None
    seen = engine.view(state, turn["seat"])
    return seen, choose_action(variant, level, seen, turn["actions"])


def test_choose_action_takes_a_view_and_legal_actions_and_no_state():
    parameters = list(inspect.signature(choose_action).parameters)
    assert parameters == ["variant", "level", "view", "legal"]


def test_every_variant_has_its_rules_ai_levels():
    assert LEVELS["blackjack"] == ("easy", "medium", "hard")
    assert LEVELS["classic"] == ("easy", "medium", "hard")
    assert LEVELS["salon"] == ("ponter", "banker")
    assert LEVELS["banker36"] == ("easy", "hard")
    assert LEVELS["solo"] == ("player",)


def test_an_unknown_level_or_variant_is_refused():
    state, _ = engine.new_game("blackjack", seats=[{"id": "p"}], seed="x")
    seen = engine.view(state, "p")
    with pytest.raises(ValueError, match="levels are: easy, medium, hard"):
        choose_action("blackjack", "expert", seen, seen["actions"])
    with pytest.raises(ValueError, match="no AI for variant"):
        choose_action("poker", "easy", seen, seen["actions"])


def test_the_ai_is_asked_only_for_the_seat_on_turn():
    state, _ = engine.new_game("classic", seats=[{"id": "a"}, {"id": "b"}], seed="turn")
    turn = engine.legal_actions(state)
    assert turn is not None
    other = "b" if turn["seat"] == "a" else "a"
    with pytest.raises(ValueError, match="seat on turn"):
        choose_action("classic", "easy", engine.view(state, other), [])


# Blackjack deals seat, dealer up-card, seat, hole card; then the stock. The two games
# below share the seat's cards and the up-card and differ in the hole card and in every
# later card (a different seed shuffles the rest of the shoe).
BLACKJACK_HANDS = [
    ("TS", "6H", "TD"),  # hard 16 vs T
    ("AS", "7H", "9D"),  # soft 18 vs 9
    ("8S", "8H", "AD"),  # 8,8 vs A
    ("6S", "5H", "TD"),  # 11 vs T
    ("6S", "5H", "6D"),  # 11 vs 6
    ("AS", "AH", "6D"),  # A,A vs 6
    ("TS", "2H", "4D"),  # 12 vs 4
    ("TS", "7H", "7D"),  # 17 vs 7
]


@pytest.mark.parametrize("level", LEVELS["blackjack"])
@pytest.mark.parametrize(("first", "second", "up"), BLACKJACK_HANDS)
def test_blackjack_same_view_with_another_hole_card_and_stock_gives_the_same_action(
    level: str, first: str, second: str, up: str
):
    a, _ = engine.new_game(
        "blackjack", seats=[{"id": "p"}], deck=[first, up, second, "KC"], seed="stock-a"
    )
    b, _ = engine.new_game(
        "blackjack", seats=[{"id": "p"}], deck=[first, up, second, "5C"], seed="stock-b"
    )
    assert a["dealer"] != b["dealer"]  # the hole cards really differ
    view_a, action_a = _decide("blackjack", level, a)
    view_b, action_b = _decide("blackjack", level, b)
    assert view_a == view_b
    assert action_a == action_b


# Classic deals both players, then the dealer, in two passes. Here the games differ in the
# other player's private cards, the hole card and the rest of the deck.
CLASSIC_HANDS = [("TS", "6H", "TD"), ("AS", "7H", "AD"), ("TS", "2H", "3D"), ("9S", "8H", "6D")]


@pytest.mark.parametrize("level", LEVELS["classic"])
@pytest.mark.parametrize(("first", "second", "up"), CLASSIC_HANDS)
def test_classic_same_view_with_other_hidden_cards_gives_the_same_action(
    level: str, first: str, second: str, up: str
):
    seats = [{"id": "a"}, {"id": "b"}]
    # a's first card, b's, the up-card; a's second, b's, the hole card (no natural with
    # any of these up-cards: 2, 4 and 5 cannot make one).
    a, _ = engine.new_game(
        "classic", seats=seats, deck=[first, "2C", up, second, "9C", "4S"], seed="deck-a"
    )
    b, _ = engine.new_game(
        "classic", seats=seats, deck=[first, "KC", up, second, "3C", "5S"], seed="deck-b"
    )
    view_a, action_a = _decide("classic", level, a)
    view_b, action_b = _decide("classic", level, b)
    assert view_a["turn"] == "a"
    assert view_a == view_b
    assert action_a == action_b


@pytest.mark.parametrize("level", LEVELS["banker36"])
def test_banker36_same_view_with_other_players_cards_and_stock_gives_the_same_action(level: str):
    seats = [{"id": s, "chips": 1000} for s in ("x", "y", "z")]
    # Banker x; y and z get one card each; y's duel comes first.
    a, _ = engine.new_game(
        "banker36", seats=seats, first_banker="x", deck=["AS", "6H"], seed="stock-a"
    )
    b, _ = engine.new_game(
        "banker36", seats=seats, first_banker="x", deck=["AS", "KD"], seed="stock-b"
    )
    for _ in range(2):  # the bet, then the first draw decision
        view_a, action_a = _decide("banker36", level, a)
        view_b, action_b = _decide("banker36", level, b)
        assert view_a == view_b
        assert action_a == action_b
        a, _ = engine.apply(a, action_a)
        b, _ = engine.apply(b, action_b)
