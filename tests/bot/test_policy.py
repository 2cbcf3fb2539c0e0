"""The bot's decisions in known positions, from views shaped as the server sends them
(docs/protocol.md §12): the strongest AI level's play at `classic`, `salon` and
`banker36`, the coach's best option at `blackjack` and `solo`."""

from __future__ import annotations

from typing import Any

import pytest

from bot import policy
from games import ai, engine


def classic_view(cards: list[str], total: int, soft: bool, up: str) -> dict[str, Any]:
    return {
        "variant": "classic",
        "version": 3,
        "finished": False,
        "turn": "ann",
        "actions": [{"action": "hit"}, {"action": "stand"}],
        "round": {
            "number": 1,
            "first": "ann",
            "order": ["ann", "ai:2"],
            "hands": [
                {"seat": "ann", "count": len(cards), "cards": cards, "total": total, "soft": soft},
                {"seat": "ai:2", "count": 2},
            ],
            "dealer": {"cards": [up], "hidden": 1},
        },
    }


@pytest.mark.parametrize(
    ("cards", "total", "soft", "up", "move"),
    [
        (["TS", "6H"], 16, False, "KD", "hit"),  # 16 against a ten: hit
        (["TS", "2H"], 12, False, "4C", "stand"),  # 12 against a four: stand
        (["TS", "2H"], 12, False, "2C", "hit"),  # 12 against a two: hit
        (["AS", "7H"], 18, True, "9C", "hit"),  # soft 18 against a nine: hit
        (["AS", "7H"], 18, True, "7C", "stand"),  # soft 18 against a seven: stand
        (["TS", "7H"], 17, False, "AC", "stand"),
    ],
)
def test_classic_plays_the_computed_points_maximising_chart(
    cards: list[str], total: int, soft: bool, up: str, move: str
) -> None:
    assert policy.decide("classic", classic_view(cards, total, soft, up)) == {"action": move}


def salon_view(actions: list[dict[str, Any]], own: dict[str, Any], banker: str) -> dict[str, Any]:
    return {
        "variant": "salon",
        "version": 5,
        "finished": False,
        "turn": "ann",
        "actions": actions,
        "banker": banker,
        "phase": "ponters",
        "deal": {"number": 1, "hands": [own, {"seat": "bob", "cards": [], "hidden": 2}]},
    }


def test_salon_cuts_in_the_middle_bets_the_minimum_and_draws_by_its_role() -> None:
    cut = salon_view([{"action": "cut", "min": 1, "max": 103}], {"seat": "ann"}, "bob")
    assert policy.decide("salon", cut) == {"action": "cut", "position": 52}
    bet = salon_view([{"action": "bet", "min": 10, "max": 40}], {"seat": "ann"}, "bob")
    assert policy.decide("salon", bet) == {"action": "bet", "amount": 10}
    draw = [{"action": "hit"}, {"action": "stand"}]
    sixteen = {"seat": "ann", "cards": ["TS", "6H"], "total": 16}
    # A ponter stands on 16; the banker draws below 17.
    assert policy.decide("salon", salon_view(draw, sixteen, "bob")) == {"action": "stand"}
    assert policy.decide("salon", salon_view(draw, sixteen, "ann")) == {"action": "hit"}


def banker36_view(cards: list[str], actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "variant": "banker36",
        "version": 2,
        "finished": False,
        "turn": "ann",
        "actions": actions,
        "banker": "bob",
        "bank": 50,
        "circle": {
            "number": 1,
            "hands": [{"seat": "ann", "status": "playing", "cards": cards, "total": 0}],
            "duel": None,
        },
    }


@pytest.mark.parametrize(("first", "amount"), [("AS", 50), ("TH", 50), ("KS", 10), ("9D", 10)])
def test_banker36_bets_the_largest_offer_only_on_a_first_card_worth_it(
    first: str, amount: int
) -> None:
    offer = [{"action": "bet", "amounts": [10, 20, 50]}]
    assert policy.decide("banker36", banker36_view([first], offer)) == {
        "action": "bet",
        "amount": amount,
    }


@pytest.mark.parametrize(
    ("cards", "move"), [(["7S"], "hit"), (["JS", "QH"], "hit"), (["TS", "7H"], "stand")]
)
def test_banker36_draws_by_the_exact_optimum_for_its_own_cards(cards: list[str], move: str) -> None:
    view = banker36_view(cards, [{"action": "hit"}, {"action": "stand"}])
    assert policy.decide("banker36", view) == {"action": move}


def option(action: str, value: float, best: bool, **extra: Any) -> dict[str, Any]:
    return {
        "action": action,
        "value": value,
        "label": action,
        "chosen": False,
        "best": best,
        **extra,
    }


def hint(*options: dict[str, Any]) -> dict[str, Any]:
    return {"situation": "hard11:6", "label": "", "options": list(options), "best": ""}


def test_blackjack_plays_the_coachs_best_option() -> None:
    view = {
        "variant": "blackjack",
        "turn": "ann",
        "actions": [{"action": "hit"}, {"action": "stand"}, {"action": "double"}],
    }
    valued = hint(
        option("hit", 0.2, False), option("stand", -0.1, False), option("double", 0.4, True)
    )
    assert policy.decide("blackjack", view, valued) == {"action": "double"}


def test_solo_bets_the_best_end_of_the_range_the_coach_names() -> None:
    view = {
        "variant": "solo",
        "turn": "ann",
        "phase": "bet",
        "actions": [
            {"action": "bet", "min": 1, "max": 300},
            {"action": "restart"},
            {"action": "new_game"},
        ],
    }
    low = hint(option("bet", -0.149, True, amount=1), option("bet", -44.7, False, amount=300))
    assert policy.decide("solo", view, low) == {"action": "bet", "amount": 1}
    high = hint(option("bet", 0.1, False, amount=1), option("bet", 30.2, True, amount=300))
    assert policy.decide("solo", view, high) == {"action": "bet", "amount": 300}


def test_where_the_coach_values_nothing_the_bot_goes_on_to_the_next_round() -> None:
    view = {
        "variant": "solo",
        "turn": "ann",
        "phase": "over",
        "actions": [{"action": "next_round"}, {"action": "new_game"}],
    }
    assert policy.decide("solo", view, None) == {"action": "next_round"}


def test_where_the_coach_is_silent_on_a_real_choice_the_variants_ai_decides() -> None:
    # A tournament heat: the coach gives no hint until the event ends (null `hint`), and
    # the bot plays the variant's computed chart, from the same view, instead of stopping.
    state, _ = engine.new_game("blackjack", seats=[{"id": "ann"}], seed="policy-heat")
    while engine.view(state, "ann").get("turn") != "ann" or not any(
        a["action"] in ("hit", "stand") for a in engine.view(state, "ann")["actions"]
    ):
        state = next_state(state)
    view = engine.view(state, "ann")
    expected = ai.choose_action("blackjack", "hard", view, view["actions"])
    expected.pop("seat", None)
    assert policy.decide("blackjack", view, None) == expected


def next_state(state: dict[str, Any]) -> dict[str, Any]:
    """The game one plain step on (a bet, or the next round) towards a hit-or-stand choice."""
    view = engine.view(state, "ann")
    action = view["actions"][0]
    move = {"seat": "ann", "action": action["action"]}
    if action["action"] == "bet":
        move["amount"] = action.get("min", 1)
    return engine.apply(state, move)[0]


def test_a_choice_the_coach_valued_but_cannot_be_played_is_no_decision() -> None:
    view = {
        "variant": "blackjack",
        "turn": "ann",
        "actions": [{"action": "hit"}, {"action": "stand"}],
    }
    valued = hint(option("split", 0.3, True), option("hit", 0.1, False))
    with pytest.raises(policy.NoDecision):
        policy.decide("blackjack", view, valued)
