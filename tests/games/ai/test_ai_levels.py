"""Each AI level plays the textbook hands the way its rules file says."""

from __future__ import annotations

from typing import Any

import pytest

from games import engine
from games.ai import charts as ai_charts
from games.ai import choose_action

# --- blackjack --------------------------------------------------------------------------


def _blackjack(
    first: str, second: str, up: str, *, hits: tuple[str, ...] = ()
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The seat's view and legal actions with these cards (after hitting `hits`)."""
    deck = [first, up, second, "9C", *hits]
    state, _ = engine.new_game("blackjack", seats=[{"id": "p"}], deck=deck, seed="levels")
    for _ in hits:
        state, _ = engine.apply(state, {"seat": "p", "action": "hit"})
    seen = engine.view(state, "p")
    return seen, seen["actions"]


def _blackjack_move(
    level: str, first: str, second: str, up: str, *, hits: tuple[str, ...] = (), split: bool = True
) -> str:
    seen, legal = _blackjack(first, second, up, hits=hits)
    if not split:
        legal = [entry for entry in legal if entry["action"] != "split"]
    action = choose_action("blackjack", level, seen, legal)
    assert action["seat"] == "p"
    move: str = action["action"]
    return move


@pytest.mark.parametrize(
    ("first", "second", "up", "move"),
    [
        ("TS", "6H", "TD", "hit"),  # hard 16 vs T
        ("AS", "7H", "9D", "hit"),  # soft 18 vs 9
        ("8S", "8H", "AD", "hit"),  # 8,8 vs A: no hole card, the natural takes the split
        ("6S", "5H", "TD", "hit"),  # 11 vs T: no hole card, do not double
        ("6S", "5H", "6D", "double"),  # 11 vs 6
        ("AS", "AH", "6D", "split"),  # A,A vs 6
        ("TS", "2H", "4D", "stand"),  # 12 vs 4
        ("9S", "9H", "7D", "stand"),  # 9,9 vs 7
        ("KS", "QH", "6D", "stand"),  # a pair of tens stands
        ("AS", "7H", "4D", "double"),  # soft 18 vs 4
    ],
)
def test_blackjack_hard_plays_the_computed_no_hole_card_chart(first, second, up, move):
    assert _blackjack_move("hard", first, second, up) == move


@pytest.mark.parametrize(
    ("first", "second", "up", "move"),
    [
        ("6S", "5H", "TD", "double"),  # 11 vs T: the peek chart doubles
        ("8S", "8H", "AD", "split"),  # 8,8 vs A: the peek chart splits
        ("8S", "8H", "TD", "split"),
        ("AS", "AH", "AD", "split"),
        ("TS", "6H", "TD", "hit"),  # hard 16 vs T
        ("TS", "2H", "3D", "hit"),  # 12 vs 3
        ("TS", "2H", "4D", "stand"),
        ("6S", "3H", "3D", "double"),  # 9 vs 3
        ("6S", "3H", "2D", "hit"),  # 9 vs 2
        ("AS", "7H", "2D", "stand"),  # soft 18 vs 2
        ("AS", "7H", "TD", "hit"),  # soft 18 vs T
        ("5S", "5H", "9D", "double"),  # 5,5 is a 10
        ("9S", "9H", "7D", "stand"),
        ("9S", "9H", "8D", "split"),
    ],
)
def test_blackjack_medium_plays_the_published_4_to_8_deck_s17_das_chart(first, second, up, move):
    assert _blackjack_move("medium", first, second, up) == move


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_blackjack_doubles_fall_back_when_doubling_is_not_offered(level):
    # 2,4 then a 5: hard 11 vs 6 with three cards: Dh → hit
    assert _blackjack_move(level, "2S", "4H", "6D", hits=("5C",)) == "hit"
    # A,2 then a 5: soft 18 vs 4 with three cards: Ds → stand
    assert _blackjack_move(level, "AS", "2H", "4D", hits=("5C",)) == "stand"


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_blackjack_splits_only_when_splitting_is_offered(level):
    # 8,8 vs 6 without the split on offer: hard 16 vs 6 stands
    assert _blackjack_move(level, "8S", "8H", "6D", split=False) == "stand"
    # A,A vs 6 without the split: soft 12 — the medium chart hits, the computed one doubles
    expected = {"medium": "hit", "hard": "double"}[level]
    assert _blackjack_move(level, "AS", "AH", "6D", split=False) == expected


@pytest.mark.parametrize(
    ("first", "second", "up", "move"),
    [
        ("TS", "6H", "TD", "hit"),
        ("TS", "6H", "5D", "hit"),  # easy ignores the up-card
        ("TS", "7H", "TD", "stand"),
        ("AS", "6H", "TD", "stand"),  # soft 17 is 17
        ("6S", "5H", "6D", "hit"),  # never doubles
        ("8S", "8H", "6D", "hit"),  # never splits
    ],
)
def test_blackjack_easy_hits_below_17_else_stands(first, second, up, move):
    assert _blackjack_move("easy", first, second, up) == move


def test_blackjack_medium_chart_is_the_published_one_in_its_known_cells():
    hard, soft, pairs = (
        ai_charts.BLACKJACK_HARD,
        ai_charts.BLACKJACK_SOFT,
        ai_charts.BLACKJACK_PAIRS,
    )
    assert hard[("11", "A")] == "H"  # S17: 11 vs A hits
    assert hard[("11", "T")] == "Dh"
    assert [hard[("12", u)] for u in "23456789TA"] == list("HHSSSHHHHH")
    soft_18 = ["S", "Ds", "Ds", "Ds", "Ds", "S", "S", "H", "H", "H"]
    assert [soft[("18", u)] for u in "23456789TA"] == soft_18
    assert soft[("19", "6")] == "S"  # S17: A,8 never doubles
    assert all(pairs[("8", u)] == "Y" for u in "23456789TA")
    assert all(pairs[("T", u)] == "N" for u in "23456789TA")


# --- classic ----------------------------------------------------------------------------


def _classic_move(level: str, first: str, second: str, up: str) -> str:
    # a's first, b's first, the up-card, a's second, b's second, the hole card (a 4 or 5 next
    # to 2..9 or T: no dealer natural, so the round is played).
    hole = "5S" if up[0] == "A" else "4S"
    deck = [first, "2C", up, second, "9C", hole]
    state, _ = engine.new_game("classic", seats=[{"id": "a"}, {"id": "b"}], deck=deck, seed="c")
    turn = engine.legal_actions(state)
    assert turn is not None and turn["seat"] == "a"
    action = choose_action("classic", level, engine.view(state, "a"), turn["actions"])
    assert action["seat"] == "a"
    move: str = action["action"]
    return move


@pytest.mark.parametrize(
    ("first", "second", "up", "move"),
    [
        ("TS", "2H", "2D", "hit"),  # hard 12 vs 2
        ("TS", "2H", "3D", "hit"),  # hard 12 vs 3
        ("TS", "2H", "4D", "stand"),  # hard 12 vs 4
        ("TS", "3H", "2D", "stand"),  # hard 13 vs 2
        ("TS", "6H", "TD", "hit"),  # hard 16 vs T
        ("TS", "6H", "6D", "stand"),
        ("TS", "7H", "TD", "stand"),  # 17 stands
        ("TS", "7H", "AD", "stand"),
        ("AS", "6H", "6D", "hit"),  # soft 17 hits
        ("AS", "7H", "9D", "hit"),  # soft 18 vs 9
        ("AS", "7H", "AD", "stand"),  # soft 18 vs A: single deck, dealer peeks
        ("6S", "5H", "TD", "hit"),  # 11: no doubling here
    ],
)
def test_classic_hard_plays_the_computed_points_chart(first, second, up, move):
    assert _classic_move("hard", first, second, up) == move


@pytest.mark.parametrize(
    ("first", "second", "up", "move"),
    [
        ("TS", "2H", "3D", "hit"),
        ("TS", "2H", "4D", "stand"),
        ("TS", "6H", "TD", "hit"),
        ("TS", "6H", "6D", "stand"),
        ("AS", "7H", "2D", "stand"),
        ("AS", "7H", "AD", "hit"),  # the multi-deck habit: soft 18 vs A hits
        ("TS", "7H", "AD", "stand"),
    ],
)
def test_classic_medium_plays_its_fixed_chart(first, second, up, move):
    assert _classic_move("medium", first, second, up) == move


@pytest.mark.parametrize(
    ("first", "second", "up", "move"),
    [("TS", "6H", "6D", "hit"), ("TS", "7H", "TD", "stand"), ("AS", "6H", "TD", "stand")],
)
def test_classic_easy_hits_below_17_else_stands(first, second, up, move):
    assert _classic_move("easy", first, second, up) == move


# --- banker36 ---------------------------------------------------------------------------


def _banker36_with_offers(card: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """z to bet holding `card`, with a bank of 20 (y lost his 10 first): offers 10 and 20."""
    seats = [{"id": s, "chips": 1000} for s in ("x", "y", "z")]
    # y gets 6, z gets `card`; y stands on 6; the banker draws T, 7 (17) and wins.
    deck = ["6H", card, "TS", "7S"]
    state, _ = engine.new_game("banker36", seats=seats, first_banker="x", deck=deck, seed="b36")
    state, _ = engine.apply(state, {"seat": "y", "action": "bet", "amount": 10})
    state, _ = engine.apply(state, {"seat": "y", "action": "stand"})
    turn = engine.legal_actions(state)
    assert turn is not None and turn["seat"] == "z"
    assert turn["actions"] == [{"action": "bet", "amounts": [10, 20]}]
    return engine.view(state, "z"), turn["actions"]


def test_banker36_hard_bets_the_largest_offer_on_an_ace_and_a_ten():
    for card in ("AD", "TD"):
        seen, legal = _banker36_with_offers(card)
        assert choose_action("banker36", "hard", seen, legal) == {
            "seat": "z",
            "action": "bet",
            "amount": 20,
        }


@pytest.mark.parametrize("card", ["6D", "9D", "KD"])
def test_banker36_hard_bets_the_smallest_offer_on_a_negative_first_card(card):
    seen, legal = _banker36_with_offers(card)
    assert choose_action("banker36", "hard", seen, legal)["amount"] == 10


def test_banker36_easy_always_bets_the_smallest_offer():
    seen, legal = _banker36_with_offers("AD")
    assert choose_action("banker36", "easy", seen, legal)["amount"] == 10


def _banker36_draw(cards: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """y's draw decision holding `cards` (the first dealt, the rest drawn)."""
    seats = [{"id": "x", "chips": 1000}, {"id": "y", "chips": 1000}]
    state, _ = engine.new_game("banker36", seats=seats, first_banker="x", deck=cards, seed="draw")
    state, _ = engine.apply(state, {"seat": "y", "action": "bet", "amount": 10})
    for _ in cards[1:]:
        state, _ = engine.apply(state, {"seat": "y", "action": "hit"})
    seen = engine.view(state, "y")
    return seen, seen["actions"]


@pytest.mark.parametrize(
    ("cards", "easy", "hard"),
    [
        (["TS", "6H"], "hit", "stand"),  # 16 with a 6-10 in the hand: stand
        (["7S", "7H"], "hit", "stand"),  # 14 mixed: the chart stands
        (["TS", "KH"], "hit", "hit"),  # T K, 14: the exact composition draws
        (["AS", "JH", "JD", "JC"], "stand", "hit"),  # four pictures at 17: a fifth makes 21
        (["JS", "QH", "KH", "AD"], "stand", "stand"),  # four pictures at 20
        (["9S", "9H"], "stand", "stand"),
    ],
)
def test_banker36_levels_draw_by_their_rules(cards, easy, hard):
    seen, legal = _banker36_draw(cards)
    assert choose_action("banker36", "easy", seen, legal)["action"] == easy
    assert choose_action("banker36", "hard", seen, legal)["action"] == hard


# --- salon ------------------------------------------------------------------------------


def _salon(ponter_cards: list[str], banker_cards: list[str]) -> dict[str, Any]:
    seats = [{"id": "bank", "chips": 1000}, {"id": "pon", "chips": 1000}]
    deck = [*ponter_cards, *banker_cards]
    options = {"min_bet": 10, "max_bet": 100, "deals": 1}
    state, _ = engine.new_game(
        "salon", seats=seats, options=options, first_banker="bank", deck=deck, seed="salon"
    )
    return state


def _salon_choose(state: dict[str, Any], level: str = "ponter") -> dict[str, Any]:
    turn = engine.legal_actions(state)
    assert turn is not None
    return choose_action("salon", level, engine.view(state, turn["seat"]), turn["actions"])


@pytest.mark.parametrize("level", ["ponter", "banker"])
def test_salon_ponter_bets_the_table_minimum_and_stands_on_16(level):
    state = _salon(["TS", "6H"], ["9S", "7H"])
    bet = _salon_choose(state, level)
    assert bet == {"seat": "pon", "action": "bet", "amount": 10}
    state, _ = engine.apply(state, bet)
    assert _salon_choose(state, level) == {"seat": "pon", "action": "stand"}


def test_salon_ponter_draws_on_15():
    state = _salon(["TS", "5H"], ["9S", "7H"])
    state, _ = engine.apply(state, _salon_choose(state))
    assert _salon_choose(state) == {"seat": "pon", "action": "hit"}


@pytest.mark.parametrize(("banker_cards", "move"), [(["9S", "7H"], "hit"), (["TS", "7H"], "stand")])
def test_salon_banker_draws_while_below_17(banker_cards, move):
    state = _salon(["TS", "6H"], banker_cards)
    state, _ = engine.apply(state, _salon_choose(state))  # the bet
    state, _ = engine.apply(state, _salon_choose(state))  # the ponter stands on 16
    turn = engine.legal_actions(state)
    assert turn is not None and turn["seat"] == "bank"
    assert _salon_choose(state, "ponter") == {"seat": "bank", "action": move}


# --- solo -------------------------------------------------------------------------------


def test_solo_player_bets_25_draws_below_17_and_asks_for_the_next_round():
    state, _ = engine.new_game("solo", seats=[{"id": "me"}], deck=["TS", "9H", "6D"], seed="s")
    seen = engine.view(state, "me")
    bet = choose_action("solo", "player", seen, seen["actions"])
    assert bet == {"seat": "me", "action": "bet", "amount": 25}
    state, _ = engine.apply(state, bet)
    seen = engine.view(state, "me")
    assert choose_action("solo", "player", seen, seen["actions"])["action"] == "hit"
    state, _ = engine.apply(state, {"seat": "me", "action": "hit"})  # T 6: 16
    seen = engine.view(state, "me")
    assert choose_action("solo", "player", seen, seen["actions"])["action"] == "hit"
