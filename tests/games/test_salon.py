"""`salon`: the historical salon game with a rotating bank (docs/rules/salon.md)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from games import engine
from games.cards import shoe as full_stock
from games.errors import RulesError
from games.record import replay
from games.shuffle import SeedStream, shuffled

State = dict[str, Any]


def _seats(**chips: int) -> list[dict[str, Any]]:
    return [{"id": seat, "chips": amount} for seat, amount in chips.items()]


def _new(
    seats: list[dict[str, Any]],
    deck: list[str] | None = None,
    *,
    first_banker: str | None = "ann",
    seed: str | None = None,
    **options: Any,
) -> tuple[State, list[dict[str, Any]]]:
    return engine.new_game(
        "salon", seats=seats, options=options, first_banker=first_banker, deck=deck, seed=seed
    )


def _play(state: State, *actions: tuple[str, str] | tuple[str, str, int]) -> State:
    for step in actions:
        action: dict[str, Any] = {"seat": step[0], "action": step[1]}
        if len(step) == 3:
            action["amount"] = step[2]
        state, _ = engine.apply(state, action)
    return state


def _error(state: State, action: dict[str, Any]) -> RulesError:
    with pytest.raises(RulesError) as caught:
        engine.apply(state, action)
    return caught.value


def _last_round(state: State) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = state["rounds"]
    return rounds[-1]


def _hand(unit: dict[str, Any], seat: str) -> dict[str, Any]:
    return next(hand for hand in unit["hands"] if hand["seat"] == seat)


# --- deal order and bets ---------------------------------------------------------------


def test_deal_goes_from_the_banker_left_two_cards_at_once_then_the_banker():
    deck = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    state, events = _new(_seats(ann=100, bob=100, cat=100, dan=100), deck, first_banker="cat")
    dealt = [(e["seat"], e["cards"]) for e in events if e["type"] == "deal"]
    assert dealt == [
        ("dan", ["2S", "3S"]),
        ("ann", ["4S", "5S"]),
        ("bob", ["6S", "7S"]),
        ("cat", ["8S", "9S"]),
    ]
    assert engine.legal_actions(state) == {
        "seat": "dan",
        "actions": [{"action": "bet", "min": 10, "max": 50}],
    }


def test_ponter_below_the_table_minimum_is_dealt_no_cards():
    state, events = _new(_seats(ann=100, bob=9, cat=100), ["2S", "3S", "4S", "5S"])
    assert [e["seat"] for e in events if e["type"] == "deal"] == ["cat", "ann"]
    assert engine.legal_actions(state)["seat"] == "cat"


def test_bet_limit_is_what_the_bank_can_still_pay_double():
    deck = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    state, _ = _new(_seats(ann=100, bob=500, cat=500, dan=500), deck)
    assert engine.legal_actions(state)["actions"] == [{"action": "bet", "min": 10, "max": 50}]
    state = _play(state, ("bob", "bet", 30))
    # (100 − 2×30) ÷ 2 = 20
    assert engine.legal_actions(state)["actions"] == [{"action": "bet", "min": 10, "max": 20}]
    state = _play(state, ("cat", "bet", 11))
    # (100 − 2×41) ÷ 2 = 9 < 10: dan cannot bet and is not asked; drawing starts
    assert engine.legal_actions(state) == {
        "seat": "bob",
        "actions": [{"action": "hit"}, {"action": "stand"}],
    }


def test_bet_is_capped_by_the_table_maximum_and_the_ponters_chips():
    state, _ = _new(_seats(ann=1000, bob=500, cat=35), ["2S", "3S", "4S", "5S", "6S", "7S"])
    assert engine.legal_actions(state)["actions"][0]["max"] == 100
    state = _play(state, ("bob", "bet", 100))
    assert engine.legal_actions(state)["actions"][0]["max"] == 35


@pytest.mark.parametrize("amount", [9, 51, 10.5, "20", True, None])
def test_bet_outside_the_allowed_range_is_bad_amount_naming_the_range(amount: object):
    state, _ = _new(_seats(ann=100, bob=100), ["2S", "3S", "4S", "5S"])
    error = _error(state, {"seat": "bob", "action": "bet", "amount": amount})
    assert error.code == "bad_amount"
    assert "from 10 to 50" in error.message


def test_a_bet_out_of_turn_is_not_your_turn():
    state, _ = _new(_seats(ann=100, bob=100, cat=100), ["2S", "3S", "4S", "5S", "6S", "7S"])
    error = _error(state, {"seat": "cat", "action": "bet", "amount": 10})
    assert error.code == "not_your_turn"
    assert "'bob'" in error.message


def test_drawing_before_every_bet_is_in_is_illegal():
    state, _ = _new(_seats(ann=100, bob=100), ["2S", "3S", "4S", "5S"])
    error = _error(state, {"seat": "bob", "action": "hit"})
    assert error.code == "illegal_action"
    assert "bet" in error.message


def test_timeout_on_a_bet_sits_the_deal_out():
    state, _ = _new(_seats(ann=100, bob=100, cat=100), ["2S", "3S", "TS", "8S", "TD", "7D"])
    state = _play(state, ("bob", "timeout"), ("cat", "bet", 10))
    assert engine.legal_actions(state)["seat"] == "cat"
    state = _play(state, ("cat", "stand"), ("ann", "stand"))
    assert [hand["seat"] for hand in _last_round(state)["hands"]] == ["cat", "ann"]


def test_a_deal_where_nobody_bets_still_counts_with_only_the_banker_hand():
    state, _ = _new(_seats(ann=100, bob=100), ["2S", "3S", "TD", "7D"])
    state = _play(state, ("bob", "timeout"))
    assert state["finished"]
    assert state["rounds"] == [
        {
            "hands": [{"seat": "ann", "role": "banker", "cards": ["TD", "7D"], "total": 17}],
        }
    ]
    assert state["deltas"] == {"ann": 0, "bob": 0}


# --- naturals, drawing, the banker -----------------------------------------------------


def test_banker_natural_takes_every_stake_naturals_included():
    deck = ["AS", "KH", "9C", "8D", "AD", "QS"]
    state, _ = _new(_seats(ann=300, bob=300, cat=300), deck)
    state, events = engine.apply(state, {"seat": "bob", "action": "bet", "amount": 50})
    state, events = engine.apply(state, {"seat": "cat", "action": "bet", "amount": 10})
    assert {"type": "reveal", "seat": "ann", "cards": ["AD", "QS"], "natural": True} in events
    assert state["deltas"] == {"ann": 60, "bob": -50, "cat": -10}
    assert _hand(_last_round(state), "bob")["outcome"] == "loss"


def test_ponter_natural_is_not_asked_to_draw_and_is_paid_double_against_a_drawn_21():
    state, _ = _new(_seats(ann=300, bob=300), ["AH", "TC", "5S", "6S", "TH"])
    state = _play(state, ("bob", "bet", 25))
    assert engine.legal_actions(state)["seat"] == "ann"  # the banker: bob's hand is over
    state = _play(state, ("ann", "hit"))
    assert state["finished"]
    assert _hand(_last_round(state), "bob") == {
        "seat": "bob",
        "cards": ["AH", "TC"],
        "total": 21,
        "outcome": "win",
        "delta": 50,
    }
    assert state["deltas"] == {"ann": -50, "bob": 50}


def test_three_card_21_does_not_count_as_a_natural():
    state, _ = _new(_seats(ann=300, bob=300), ["7D", "4D", "9S", "2S", "TD", "TH"])
    state = _play(state, ("bob", "bet", 10), ("bob", "hit"), ("ann", "hit"))
    assert _hand(_last_round(state), "bob")["delta"] == 0  # 21 against 21: a push


def test_hand_closes_by_itself_after_three_drawn_cards():
    deck = ["2S", "3S", "2D", "2C", "2H", "3H", "4S", "3D", "3C", "5D"]
    state, _ = _new(_seats(ann=200, bob=200), deck)
    state = _play(state, ("bob", "bet", 10), ("bob", "hit"), ("bob", "hit"))
    assert engine.legal_actions(state)["seat"] == "bob"
    state = _play(state, ("bob", "hit"))
    assert engine.legal_actions(state)["seat"] == "ann"
    state = _play(state, ("ann", "hit"), ("ann", "hit"), ("ann", "hit"))
    assert state["finished"]
    banker = _hand(_last_round(state), "ann")
    assert len(banker["cards"]) == 5 and banker["total"] == 15


def test_banker_is_a_player_and_may_stand_on_any_total():
    state, _ = _new(_seats(ann=200, bob=200), ["TS", "8S", "2D", "TC"])
    state = _play(state, ("bob", "bet", 10), ("bob", "stand"))
    assert engine.legal_actions(state) == {
        "seat": "ann",
        "actions": [{"action": "hit"}, {"action": "stand"}],
    }
    state = _play(state, ("ann", "stand"))  # stands on 12
    assert state["deltas"] == {"ann": -10, "bob": 10}


def test_banker_timeout_is_a_stand():
    state, _ = _new(_seats(ann=200, bob=200), ["TS", "8S", "TD", "7D"])
    state = _play(state, ("bob", "bet", 10), ("bob", "timeout"), ("ann", "timeout"))
    assert state["finished"] and state["deltas"] == {"ann": -10, "bob": 10}


def test_banker_and_every_ponter_bust_is_quits():
    deck = ["TS", "6S", "TH", "5H", "TC", "4C", "KS", "QH", "9C"]
    state, _ = _new(_seats(ann=300, bob=300, cat=300), deck)
    state = _play(
        state,
        ("bob", "bet", 30),
        ("cat", "bet", 40),
        ("bob", "hit"),
        ("cat", "hit"),
        ("ann", "hit"),
    )
    assert state["deltas"] == {"ann": 0, "bob": 0, "cat": 0}
    assert [hand.get("outcome") for hand in _last_round(state)["hands"]] == ["push", "push", None]


def test_banker_bust_pays_double_but_a_bust_ponter_still_loses():
    deck = ["TS", "6S", "9H", "8H", "TC", "5C", "KS", "8C"]
    state, _ = _new(_seats(ann=300, bob=300, cat=300), deck)
    state = _play(
        state,
        ("bob", "bet", 10),
        ("cat", "bet", 20),
        ("bob", "hit"),
        ("cat", "stand"),
        ("ann", "hit"),
    )
    assert state["deltas"] == {"ann": -30, "bob": -10, "cat": 40}


def test_settlement_changes_chips_and_so_later_bet_limits():
    deck = ["TS", "9S", "TC", "6C", "KC", "2S", "3S", "4S", "5S"]
    state, _ = _new(_seats(ann=60, bob=300), deck, deals=2)
    state = _play(state, ("bob", "bet", 30), ("bob", "stand"), ("ann", "hit"))
    assert state["seats"] == [{"id": "ann", "chips": 0}, {"id": "bob", "chips": 360}]
    # ann cannot hold the bank any more: it passes to bob, who has no ponter left
    assert state["finished"] and engine.result(state)["final"] == {"banker": "bob"}


# --- the bank and the shoe -------------------------------------------------------------


def test_bank_passes_on_from_a_lot_winner_without_twice_the_minimum():
    state, events = _new(_seats(ann=19, bob=20, cat=100), ["2S", "3S", "4S", "5S", "6S", "7S"])
    assert state["banker"] == "bob"
    assert {"type": "bank", "seat": "bob", "reason": "lot"} in events


def test_nobody_able_to_hold_the_bank_ends_the_record_without_a_banker():
    state, events = _new(_seats(ann=19, bob=5), [])
    assert state["finished"]
    assert engine.result(state)["final"] == {"banker": None}
    assert events[-1]["reason"] == "nobody_can_hold_the_bank"


def test_first_banker_comes_from_the_seed_lot_without_a_deck():
    state, _ = _new(_seats(ann=300, bob=300, cat=300), first_banker=None, seed="salon-lot")
    seats = ["ann", "bob", "cat"]
    assert state["banker"] == seats[SeedStream("salon-lot", "lot").below(3)]


def _shoe_trace(seed: str, deals: int) -> list[tuple[str, int, int, int]]:
    """(banker, shoe number, cards left before the deal, hands) at every deal."""
    seats = _seats(ann=5000, bob=5000, cat=5000, dan=5000, eve=5000)
    state, _ = _new(seats, first_banker="ann", seed=seed, deals=deals)
    trace: list[tuple[str, int, int, int]] = []
    rng = random.Random(seed)
    while True:
        if state["finished"]:
            return trace
        turn = engine.legal_actions(state)
        assert turn is not None
        if state["phase"] == "bet" and state["deal"]["index"] == 0:
            drawn = sum(len(cards) for cards in state["deal"]["hands"].values())
            hands = len(state["deal"]["hands"])
            remaining = len(state["shoe"]["cards"]) // 2 + drawn
            trace.append((state["banker"], state["shoe"]["shuffles"], remaining, hands))
        entry = turn["actions"][0]
        action: dict[str, Any] = {"seat": turn["seat"], "action": entry["action"]}
        if entry["action"] == "bet":
            action["amount"] = entry["min"]
        elif rng.random() < 0.5:
            action["action"] = "stand"
        state, _ = engine.apply(state, action)


def test_shoe_is_finished_when_fewer_than_five_cards_per_hand_remain():
    trace = _shoe_trace("shoe-end", 40)
    assert len(trace) == 40
    order = ["ann", "bob", "cat", "dan", "eve"]
    for before, after in itertools.pairwise(trace):
        if after[1] == before[1]:
            assert after[0] == before[0], "the same banker deals the whole shoe"
            assert after[2] >= 5 * after[3]
        else:
            assert after[1] == before[1] + 1 and after[2] == 104
            assert after[0] == order[(order.index(before[0]) + 1) % 5], "the bank passes left"
    assert trace[-1][1] >= 3, "several shoes were played"


def test_banker_running_short_passes_the_bank_and_starts_a_new_shoe():
    deck = ["TS", "9S", "2S", "3S", "TC", "6C", "KC", "AS", "AS", "9D", "8D"]
    state, events = _new(_seats(ann=60, bob=300, cat=300), deck, deals=2)
    state = _play(state, ("bob", "bet", 30), ("bob", "stand"))  # cat cannot be covered
    state, events = engine.apply(state, {"seat": "ann", "action": "hit"})  # bust: ann has 0
    assert {"type": "bank", "seat": "bob", "reason": "banker_short"} in events
    assert state["shoe"]["shuffles"] == 2 and state["banker"] == "bob"


# --- the cut ---------------------------------------------------------------------------


def test_cut_in_a_record_is_illegal_live_play_only_whoever_sends_it():
    state, _ = _new(_seats(ann=100, bob=100, cat=100), ["2S", "3S", "4S", "5S", "6S", "7S"])
    for seat in ("bob", "cat", None):
        error = _error(state, {"seat": seat, "action": "cut", "position": 5})
        assert error.code == "illegal_action"
        assert "live play only" in error.message


def test_live_cut_is_made_by_the_seat_on_the_banker_right():
    seed = "live-cut"
    state, events = _new(_seats(ann=100, bob=100, cat=100), first_banker="bob", seed=seed, cut=True)
    assert not any(e["type"] == "deal" for e in events)
    assert engine.legal_actions(state) == {
        "seat": "ann",
        "actions": [{"action": "cut", "min": 1, "max": 103}],
    }
    wrong = _error(state, {"seat": "cat", "action": "cut", "position": 5})
    assert wrong.code == "not_your_turn"
    too_far = _error(state, {"seat": "ann", "action": "cut", "position": 104})
    assert too_far.code == "bad_amount" and "1 to 103" in too_far.message
    state, events = engine.apply(state, {"seat": "ann", "action": "cut", "position": 30})
    order = shuffled(full_stock("standard52", 2), seed, 0)
    cut = order[30:] + order[:30]
    dealt = [card for e in events if e["type"] == "deal" for card in e["cards"]]
    assert dealt == cut[:6]
    assert engine.legal_actions(state)["seat"] == "cat"


def test_cut_timeout_lets_the_server_cut_where_the_seed_says():
    seed = "live-cut"
    state, _ = _new(_seats(ann=100, bob=100), first_banker="bob", seed=seed, cut=True)
    state, events = engine.apply(state, {"seat": "ann", "action": "timeout"})
    position = 1 + SeedStream(seed, "cut:0").below(103)
    assert events[0] == {"type": "cut", "seat": "ann", "position": position, "by": "server"}
    order = shuffled(full_stock("standard52", 2), seed, 0)
    cut = order[position:] + order[:position]
    assert [card for e in events if e["type"] == "deal" for card in e["cards"]] == cut[:4]


def test_a_live_record_with_cuts_replays_from_its_seed():
    record = {
        "variant": "salon",
        "options": {"cut": True, "deals": 2},
        "seats": _seats(ann=300, bob=300),
        "first_banker": "ann",
        "seed": "replay-cut",
        "actions": [
            {"seat": "bob", "action": "cut", "position": 17},
            {"seat": "bob", "action": "bet", "amount": 10},
            {"seat": "bob", "action": "stand"},
            {"seat": "ann", "action": "stand"},
            {"seat": "bob", "action": "bet", "amount": 10},
        ],
    }
    result = replay(record)["result"]
    assert len(result["rounds"]) == 1 and result["status"] == "awaiting_action"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"deck": ["2S"], "seed": "s"}, "no deck"),
        ({"deck": None, "seed": None}, "seed"),
    ],
)
def test_live_cut_needs_a_seed_and_no_stacked_deck(kwargs: dict[str, Any], fragment: str):
    with pytest.raises(RulesError) as caught:
        _new(_seats(ann=100, bob=100), cut=True, **kwargs)
    assert caught.value.code == "bad_record" and fragment in caught.value.message


# --- records and options ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "first_banker", "fragment"),
    [
        ([{"id": "ann", "chips": 100}], {}, "ann", "2 to 10"),
        ([{"id": f"p{i}", "chips": 100} for i in range(11)], {}, "p0", "2 to 10"),
        ([{"id": "ann", "chips": 100}, {"id": "bob"}], {}, "ann", "chips"),
        ([{"id": "ann", "chips": 100}, {"id": "bob", "chips": True}], {}, "ann", "chips"),
        (_seats(ann=100, bob=100), {"stake": 10}, "ann", "unknown"),
        (_seats(ann=100, bob=100), {"min_bet": 0}, "ann", "min_bet"),
        (_seats(ann=100, bob=100), {"min_bet": 20, "max_bet": 10}, "ann", "max_bet"),
        (_seats(ann=100, bob=100), {"deals": 0}, "ann", "deals"),
        (_seats(ann=100, bob=100), {"cut": "yes"}, "ann", "cut"),
        (_seats(ann=100, bob=100), {}, None, "first_banker"),
    ],
)
def test_bad_records_are_rejected_with_a_plain_message(
    seats: list[dict[str, Any]], options: dict[str, Any], first_banker: str | None, fragment: str
):
    with pytest.raises(RulesError) as caught:
        _new(seats, ["2S", "3S", "4S", "5S"], first_banker=first_banker, **options)
    assert caught.value.code == "bad_record"
    assert fragment in caught.value.message


def test_defaults_are_stored_in_the_options():
    state, _ = _new(_seats(ann=100, bob=100), ["2S", "3S", "4S", "5S"])
    assert state["options"] == {"min_bet": 10, "max_bet": 100, "deals": 1, "cut": False}


def test_a_third_copy_of_a_card_in_one_shoe_is_an_invalid_deck():
    state, _ = _new(_seats(ann=100, bob=100), ["AS", "AS", "5H", "6H", "AS"])
    state = _play(state, ("bob", "bet", 10))
    assert _error(state, {"seat": "bob", "action": "hit"}).code == "invalid_deck"


def test_running_out_of_stacked_cards_without_a_seed_is_deck_exhausted():
    state, _ = _new(_seats(ann=100, bob=100), ["9S", "9H", "TD", "7D"], deals=2)
    state = _play(state, ("bob", "bet", 10), ("bob", "stand"))
    assert _error(state, {"seat": "ann", "action": "stand"}).code == "deck_exhausted"


def test_an_action_after_the_record_is_finished_is_illegal():
    state, _ = _new(_seats(ann=100, bob=100), ["9S", "9H", "TD", "7D"])
    state = _play(state, ("bob", "bet", 10), ("bob", "stand"), ("ann", "stand"))
    assert state["finished"]
    assert _error(state, {"seat": "bob", "action": "bet", "amount": 10}).code == "illegal_action"


def test_result_while_waiting_names_the_bet_range():
    state, _ = _new(_seats(ann=1000, bob=15, cat=500), ["2S", "3S", "4S", "5S", "6S", "7S"])
    result = engine.result(state)
    assert result["status"] == "awaiting_action"
    assert result["next"] == {"seat": "bob", "legal": ["bet"]}
    assert engine.legal_actions(state)["actions"] == [{"action": "bet", "min": 10, "max": 15}]


# --- views, events, purity -------------------------------------------------------------


def _cards_in(data: Any) -> set[str]:
    text = json.dumps(data)
    return {card for card in full_stock("standard52") if f'"{card}"' in text}


def test_each_seat_sees_only_its_own_cards_and_the_public_bets():
    deck = ["2S", "3S", "4D", "5D", "6H", "7H"]
    state, _ = _new(_seats(ann=100, bob=100, cat=100), deck)
    state = _play(state, ("bob", "bet", 15))
    bob = engine.view(state, "bob")
    assert _cards_in(bob) == {"2S", "3S"}
    assert _cards_in(engine.view(state, "cat")) == {"4D", "5D"}
    assert _cards_in(engine.view(state, "ann")) == {"6H", "7H"}  # the banker: his own only
    assert _cards_in(engine.view(state, None)) == set()
    hands = {hand["seat"]: hand for hand in engine.view(state, "cat")["deal"]["hands"]}
    assert hands["bob"] == {"seat": "bob", "bet": 15, "sat_out": False, "cards": [], "hidden": 2}
    assert hands["ann"] == {"seat": "ann", "role": "banker", "cards": [], "hidden": 2}
    assert hands["cat"]["cards"] == ["4D", "5D"] and hands["cat"]["total"] == 9
    assert bob["actions"] == [] and engine.view(state, "cat")["actions"][0]["action"] == "bet"


def test_a_ponter_bust_is_not_shown_to_the_banker_before_settlement():
    state, _ = _new(_seats(ann=100, bob=100), ["TS", "6S", "TC", "4C", "KS", "9C"])
    state, events = engine.apply(state, {"seat": "bob", "action": "bet", "amount": 10})
    state, events = engine.apply(state, {"seat": "bob", "action": "hit"})
    seen_by_banker = engine.events_for(events, "ann")
    assert _cards_in(seen_by_banker) == set()
    assert "bust" not in json.dumps(seen_by_banker)
    assert _cards_in(engine.view(state, "ann")) == {"TC", "4C"}


def test_settlement_reveals_the_hands_that_bet_but_not_the_cards_set_aside():
    deck = ["2S", "3S", "TS", "8S", "TD", "7D"]
    state, _ = _new(_seats(ann=200, bob=200, cat=200), deck)
    state = _play(state, ("bob", "timeout"), ("cat", "bet", 10), ("cat", "stand"))
    state, events = engine.apply(state, {"seat": "ann", "action": "stand"})
    for viewer in ("ann", "bob", "cat", None):
        assert _cards_in(engine.events_for(events, viewer)) == {"TS", "8S", "TD", "7D"}
        assert _cards_in(engine.view(state, viewer)) == {"TS", "8S", "TD", "7D"}


def test_view_never_includes_the_stock_or_the_seed():
    state, _ = _new(_seats(ann=100, bob=100), first_banker="ann", seed="secret-seed")
    seen = json.dumps(engine.view(state, "bob"))
    assert "secret-seed" not in seen and "stacked" not in seen
    assert len(_cards_in(engine.view(state, "bob"))) <= 2


def test_deal_events_show_a_card_only_to_its_holder():
    _, events = _new(_seats(ann=100, bob=100), ["2S", "3S", "4S", "5S"])
    to_ann = [e for e in engine.events_for(events, "ann") if e["type"] == "deal"]
    assert to_ann == [
        {"type": "deal", "seat": "bob", "to": "bob"},
        {"type": "deal", "seat": "ann", "to": "ann", "cards": ["4S", "5S"]},
    ]


def test_apply_leaves_its_input_untouched_and_states_survive_json():
    state, _ = _new(_seats(ann=100, bob=100), ["TS", "6S", "TC", "4C", "KS", "9C"])
    for action in (
        {"seat": "bob", "action": "bet", "amount": 10},
        {"seat": "bob", "action": "hit"},
        {"seat": "ann", "action": "hit"},
    ):
        frozen = json.dumps(state, sort_keys=True)
        new_state, _ = engine.apply(state, action)
        assert json.dumps(state, sort_keys=True) == frozen
        assert json.loads(json.dumps(new_state)) == new_state
        state = new_state
    assert state["finished"]


@pytest.mark.parametrize("seed", [f"random-{i}" for i in range(25)])
def test_random_legal_play_with_timeouts_ends_zero_sum(seed: str):
    rng = random.Random(seed)
    seats = _seats(**{f"p{i}": rng.choice([15, 30, 100, 400]) for i in range(rng.randint(2, 10))})
    state, _ = _new(
        seats, first_banker=None, seed=seed, deals=rng.randint(1, 12), cut=rng.random() < 0.5
    )
    for _ in range(2000):
        if state["finished"]:
            break
        turn = engine.legal_actions(state)
        assert turn is not None
        entry = rng.choice(turn["actions"])
        action: dict[str, Any] = {"seat": turn["seat"], "action": entry["action"]}
        if rng.random() < 0.1:
            action["action"] = "timeout"
        elif entry["action"] == "bet":
            action["amount"] = rng.randint(entry["min"], entry["max"])
        elif entry["action"] == "cut":
            action["position"] = rng.randint(entry["min"], entry["max"])
        state, _ = engine.apply(state, action)
    assert state["finished"]
    assert sum(state["deltas"].values()) == 0
    assert all(seat["chips"] >= 0 for seat in state["seats"])
    for unit in state["rounds"]:
        assert unit["hands"][-1]["role"] == "banker"
        assert all(type(hand.get("delta", 0)) is int for hand in unit["hands"])


# --- banks: a tournament's sit-and-go ----------------------------------------------------


def _played_out(state: State) -> tuple[State, list[dict[str, Any]]]:
    """Every ponter bets the minimum and stands, the banker stands: to the record's end."""
    events: list[dict[str, Any]] = []
    while not state["finished"]:
        turn = engine.legal_actions(state)
        assert turn is not None
        names = [a["action"] for a in turn["actions"]]
        if "bet" in names:
            action = {"seat": turn["seat"], "action": "bet", "amount": turn["actions"][0]["min"]}
        else:
            action = {"seat": turn["seat"], "action": "stand"}
        state, step = engine.apply(state, action)
        events.extend(step)
    return state, events


def test_banks_ends_the_record_when_the_bank_would_pass_once_more():
    seats = _seats(ann=1000, bob=1000, cat=1000)
    state, events = _new(seats, seed="ab" * 32, first_banker=None, banks=6, deals=1_000_000)
    state, more = _played_out(state)
    events += more
    finished = next(e for e in events if e["type"] == "finished")
    assert finished["reason"] == "banks_played"
    assert state["shoe"]["shuffles"] == 6
    holders = [e["banker"] for e in events if e["type"] == "shuffle"]
    # The bank goes round the table to the left: each of the three seats holds it twice.
    assert set(holders[:3]) == {"ann", "bob", "cat"} and holders[3:] == holders[:3]
    assert sum(s["chips"] for s in state["seats"]) == 3000


def test_one_bank_is_one_shoe_and_banks_is_kept_in_the_options():
    seats = _seats(ann=500, bob=500)
    state, _ = _new(seats, seed="cd" * 32, first_banker=None, banks=1, deals=10**6)
    assert state["options"]["banks"] == 1
    state, events = _played_out(state)
    assert state["shoe"]["shuffles"] == 1
    assert events[-1] == {"type": "finished", "reason": "banks_played", "banker": state["banker"]}


@pytest.mark.parametrize("banks", [0, -1, "2", 1.5])
def test_banks_must_be_a_whole_number_of_one_or_more(banks: Any):
    with pytest.raises(RulesError) as caught:
        _new(_seats(ann=100, bob=100), seed="ef" * 32, banks=banks)
    assert caught.value.code == "bad_record"


def test_without_banks_the_options_are_as_before():
    state, _ = _new(_seats(ann=100, bob=100), ["2S", "3S", "4S", "5S"])
    assert "banks" not in state["options"]
