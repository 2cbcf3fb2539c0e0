"""`solo`: one player against the computer banker (docs/rules/solo.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games import engine
from games.errors import RulesError

State = dict[str, Any]


def start(
    deck: list[str] | None = None,
    *,
    options: dict[str, Any] | None = None,
    seed: str | None = None,
) -> tuple[State, list[dict[str, Any]]]:
    return engine.new_game("solo", seats=[{"id": "ann"}], options=options, deck=deck, seed=seed)


def play(state: State, *actions: str | tuple[str, int]) -> State:
    for entry in actions:
        if isinstance(entry, tuple):
            action = {"seat": "ann", "action": entry[0], "amount": entry[1]}
        else:
            action = {"seat": "ann", "action": entry}
        state, _ = engine.apply(state, action)
    return state


def error_of(state: State, action: dict[str, Any]) -> RulesError:
    with pytest.raises(RulesError) as caught:
        engine.apply(state, action)
    return caught.value


def last(state: State) -> dict[str, Any]:
    unit: dict[str, Any] = state["rounds"][-1]
    return unit


# --- deal and bet ------------------------------------------------------------------------


def test_deal_gives_the_player_a_card_then_the_banker_one_face_down():
    state, events = start(["9H", "TS"])
    assert events[-2] == {"type": "deal", "seat": "ann", "card": "9H", "total": 9}
    assert events[-1] == {"type": "deal", "seat": "banker", "face_down": True}
    assert state["hand"] == ["9H"] and state["banker_cards"] == ["TS"]


def test_a_new_game_has_1000_coins_against_a_bank_of_300():
    state, _ = start(["9H", "TS"])
    assert (state["coins"], state["bank"]) == (1000, 300)
    assert state["deltas"] == {"ann": 0, "bank": 0}


def test_bet_range_is_1_to_the_smaller_of_coins_and_bank():
    state, _ = start(["9H", "TS"])
    assert engine.legal_actions(state) == {
        "seat": "ann",
        "actions": [
            {"action": "bet", "min": 1, "max": 300},
            {"action": "restart"},
            {"action": "new_game"},
        ],
    }
    state, _ = start(["9H", "TS"], options={"start_coins": 80})
    assert engine.legal_actions(state)["actions"][0] == {"action": "bet", "min": 1, "max": 80}


@pytest.mark.parametrize("amount", [0, 301, -5, 10.0, True, "10", None])
def test_a_bet_outside_the_range_is_bad_amount_saying_the_range(amount: object):
    state, _ = start(["9H", "TS"])
    error = error_of(state, {"seat": "ann", "action": "bet", "amount": amount})
    assert error.code == "bad_amount"
    assert "from 1 to 300" in error.message


def test_a_confirmed_bet_is_taken_from_the_coins_at_once():
    state, _ = start(["9H", "TS"])
    state = play(state, ("bet", 100))
    assert state["coins"] == 900 and state["bet"] == 100
    assert engine.view(state, "ann")["bet"] == 100


# --- draw and the banker -----------------------------------------------------------------


def test_the_ace_stays_11_so_ace_seven_six_is_a_bust():
    state, _ = start(["AH", "9S", "7H", "6C"])
    state = play(state, ("bet", 50), "hit", "hit")
    assert last(state)["hands"][0]["total"] == 24
    assert last(state)["hands"][0]["outcome"] == "loss"
    assert last(state)["hands"][1]["cards"] == ["9S"]  # the banker did not play


def test_golden_point_wins_at_once():
    state, _ = start(["AS", "KD", "AD", "TC"])
    state = play(state, ("bet", 10), "hit")
    assert last(state)["hands"][0] == {
        "seat": "ann",
        "cards": ["AS", "AD"],
        "total": 21,
        "outcome": "win",
        "delta": 10,
    }
    assert last(state)["hands"][1] == {
        "seat": "banker",
        "role": "banker",
        "cards": ["KD"],
        "total": 4,
    }


def test_the_player_may_stop_on_the_first_card():
    state, _ = start(["6H", "TD", "7S"])
    state = play(state, ("bet", 10))
    assert {"action": "stand"} in engine.legal_actions(state)["actions"]
    state = play(state, "stand")
    assert last(state)["hands"][0]["cards"] == ["6H"]


def test_the_banker_stops_at_17_and_draws_below_it():
    state, _ = start(["TH", "9S", "8H", "7S", "AC"])
    state = play(state, ("bet", 10), "hit", "stand")  # 18 against 9 + 7 = 16, then AC
    assert last(state)["hands"][1]["cards"] == ["9S", "7S", "AC"]
    assert last(state)["hands"][0]["outcome"] == "win"  # 27: the banker is bust


def test_the_banker_has_the_golden_point_too():
    state, _ = start(["TH", "AS", "QH", "7D", "AD"])
    state = play(state, ("bet", 20), "hit", "hit", "stand")
    assert last(state)["hands"][1]["total"] == 21
    assert last(state)["hands"][0]["outcome"] == "loss"


def test_equal_totals_go_to_the_banker():
    state, _ = start(["TH", "9C", "8S", "9D"])
    state = play(state, ("bet", 40), "hit", "stand")
    assert last(state)["hands"][0]["outcome"] == "loss"
    assert (state["coins"], state["bank"]) == (960, 340)


def test_a_win_pays_the_bet_back_plus_the_same_from_the_bank():
    state, _ = start(["9H", "TS", "9D", "7C"])
    state = play(state, ("bet", 100), "hit", "stand")
    assert (state["coins"], state["bank"]) == (1100, 200)
    assert state["deltas"] == {"ann": 100, "bank": -100}


# --- rounds and the end of the game ------------------------------------------------------


def test_the_next_round_waits_for_the_player_and_reshuffles():
    state, _ = start(["9H", "TS", "9D", "7C", "9H", "TS"])
    state = play(state, ("bet", 100), "hit", "stand")
    assert engine.legal_actions(state)["actions"] == [
        {"action": "next_round"},
        {"action": "new_game"},
    ]
    shuffles = state["shoe"]["shuffles"]
    state = play(state, "next_round")
    assert state["shoe"]["shuffles"] == shuffles + 1
    assert state["hand"] == ["9H"] and state["phase"] == "bet"


def test_restart_deals_the_same_card_order_before_a_bet():
    state, _ = start(seed="restart")
    hand, banker = list(state["hand"]), list(state["banker_cards"])
    state = play(state, "restart", "restart")
    assert state["hand"] == hand and state["banker_cards"] == banker
    assert state["shoe"]["shuffles"] == 1


def test_restart_and_new_game_are_refused_while_a_bet_is_in_play():
    state, _ = start(["9H", "TS"])
    state = play(state, ("bet", 10))
    for name in ("restart", "new_game", "next_round"):
        error = error_of(state, {"seat": "ann", "action": name})
        assert error.code == "illegal_action"
        assert "may: hit, stand" in error.message


def test_new_game_resets_coins_bank_and_stuk_and_deals_afresh():
    state, _ = start(seed="new-game")
    state["coins"], state["bank"], state["stuk"] = 10, 950, True
    state = play(state, "new_game")
    assert (state["coins"], state["bank"], state["stuk"]) == (1000, 300, False)
    assert state["phase"] == "bet" and len(state["hand"]) == 1
    assert state["shoe"]["shuffles"] == 2


def test_a_broken_bank_ends_the_game():
    state, _ = start(["AS", "KD", "AD"])
    state = play(state, ("bet", 300), "hit")
    assert state["finished"] and state["game_over"] == "bank_broken"


def test_a_broke_player_ends_the_game():
    state, _ = start(["6C", "TC", "7C"], options={"start_coins": 50})
    state = play(state, ("bet", 50), "stand")
    assert state["finished"] and state["game_over"] == "player_broke"
    assert engine.result(state)["final"] == {
        "coins": 0,
        "bank": 350,
        "stuk": False,
        "game_over": "player_broke",
    }


def test_stuk_at_three_times_the_start_bank_allows_exactly_one_more_round():
    state, _ = start(["6C", "TC", "7C"] * 3, options={"start_bank": 100})
    state = play(state, ("bet", 100), "stand")
    assert not state["stuk"]
    state = play(state, "next_round", ("bet", 100))
    state, events = engine.apply(state, {"seat": "ann", "action": "stand"})
    assert state["bank"] == 300 and state["stuk"]
    assert {"type": "stuk", "bank": 300} in events and not state["finished"]
    state = play(state, "next_round", ("bet", 10), "stand")
    assert state["finished"] and state["game_over"] == "bank_closed"


def test_timeout_is_not_an_action_of_solo():
    state, _ = start(["9H", "TS"])
    error = error_of(state, {"seat": "ann", "action": "timeout"})
    assert error.code == "illegal_action"
    assert "not an action of solo" in error.message


def test_random_play_keeps_coins_plus_bank_constant():
    for number in range(60):
        rng = random.Random(number)
        state, _ = start(seed=f"solo-{number}", options={"start_bank": rng.choice([50, 300])})
        total = state["coins"] + state["bank"]
        for _ in range(300):
            if state["finished"]:
                break
            turn = engine.legal_actions(state)
            entry = rng.choice(turn["actions"])
            action: dict[str, Any] = {"seat": "ann", "action": entry["action"]}
            if entry["action"] == "bet":
                action["amount"] = rng.randint(entry["min"], entry["max"])
            state, _ = engine.apply(state, action)
            assert state["coins"] + (state["bet"] or 0) + state["bank"] == total
            assert sum(state["deltas"].values()) == 0


# --- setup -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        ([{"id": "ann"}, {"id": "bob"}], {}),
        ([{"id": "banker"}], {}),
        ([{"id": "bank"}], {}),
        ([{"id": "ann"}], {"start_coins": 0}),
        ([{"id": "ann"}], {"start_bank": 1.5}),
        ([{"id": "ann"}], {"stake": 10}),
    ],
)
def test_bad_tables_are_bad_records(seats: list[dict[str, Any]], options: dict[str, Any]):
    with pytest.raises(RulesError) as caught:
        engine.new_game("solo", seats=seats, options=options, deck=["9H", "TS"])
    assert caught.value.code == "bad_record" and caught.value.message


# --- views, purity, JSON -----------------------------------------------------------------


def test_the_banker_card_is_absent_until_turned_up():
    state, events = start(["9H", "TS", "9D", "7C"])
    for viewer in ("ann", None):
        seen = engine.view(state, viewer)
        assert seen["banker"] == {"cards": [], "hidden": 1}
        assert "TS" not in json.dumps(seen)
        assert "TS" not in json.dumps(engine.events_for(events, viewer))
    state = play(state, ("bet", 100), "hit")
    assert "TS" not in json.dumps(engine.view(state, "ann"))
    state, events = engine.apply(state, {"seat": "ann", "action": "stand"})
    assert {"type": "reveal", "seat": "banker", "card": "TS", "total": 10} in events
    assert engine.view(state, None)["banker"] == {"cards": ["TS", "7C"], "total": 17}


def test_the_banker_card_is_shown_after_a_bust_settles_the_round():
    state, _ = start(["AH", "9S", "7H", "6C"])
    state = play(state, ("bet", 50), "hit")
    state, events = engine.apply(state, {"seat": "ann", "action": "hit"})
    assert any(e["type"] == "reveal" and e["card"] == "9S" for e in events)
    assert engine.view(state, "ann")["banker"]["cards"] == ["9S"]


def test_coins_bank_and_bet_are_on_display():
    state, _ = start(["9H", "TS"])
    state = play(state, ("bet", 70))
    seen = engine.view(state, None)
    assert (seen["coins"], seen["bank"], seen["bet"]) == (930, 300, 70)
    assert seen["hand"] == {"cards": ["9H"], "total": 9}


def test_the_view_never_includes_the_stock_or_the_seed():
    state, _ = start(seed="secret-seed")
    seen = json.dumps(engine.view(state, "ann"))
    assert "secret-seed" not in seen and "shoe" not in seen and "source" not in seen


def test_apply_does_not_change_its_input_and_the_state_survives_json():
    state, _ = start(["9H", "TS", "9D", "7C", "8C", "8D", "6S", "6D"])
    for entry in (("bet", 100), "hit", "stand", "next_round", "restart", "new_game"):
        frozen = json.dumps(state, sort_keys=True)
        new_state = play(state, entry)
        assert json.dumps(state, sort_keys=True) == frozen
        assert json.loads(json.dumps(new_state)) == new_state
        state = new_state


# --- rounds: a tournament's duplicate heat -------------------------------------------------


def _stand_round(state: State) -> State:
    return play(state, ("bet", 1), "stand")


def test_with_rounds_the_game_ends_once_that_many_rounds_are_played():
    state, _ = start(seed="heat", options={"rounds": 3})
    assert state["options"] == {"start_coins": 1000, "start_bank": 300, "rounds": 3}
    for played in range(1, 4):
        state = _stand_round(state)
        assert engine.view(state, "ann")["rounds_played"] == played
        if played < 3:
            state = play(state, "next_round")
    assert state["finished"] and state["game_over"] == "rounds_played"
    assert engine.view(state, "ann")["rounds_total"] == 3


def test_with_rounds_a_new_game_is_not_offered_and_is_refused():
    state, _ = start(seed="heat", options={"rounds": 2})
    assert "new_game" not in [a["action"] for a in engine.legal_actions(state)["actions"]]
    error = error_of(state, {"seat": "ann", "action": "new_game"})
    assert error.code == "illegal_action" and "rounds" in error.message
    state = _stand_round(state)
    assert [a["action"] for a in engine.legal_actions(state)["actions"]] == ["next_round"]


def test_with_rounds_round_r_opens_with_shuffle_r_whatever_was_played_before():
    def openings(bet: int, restart: bool) -> list[str]:
        state, _ = start(seed="same", options={"rounds": 4})
        seen = []
        while not state["finished"]:
            if restart:
                state = play(state, "restart")
            seen.append(state["hand"][0])
            state = play(state, ("bet", min(bet, engine.view(state, "ann")["bank"])), "hit")
            if not state["finished"] and state["phase"] == "draw":
                state = play(state, "stand")
            if not state["finished"]:
                state = play(state, "next_round")
        return seen

    first = openings(1, False)
    assert len(first) == 4 and first == openings(5, True)


def test_a_bank_broken_before_the_last_round_still_ends_the_game():
    state, _ = start(["AH", "9S", "AD"], options={"rounds": 5})
    state = play(state, ("bet", 300), "hit")
    assert state["finished"] and state["game_over"] == "bank_broken"


@pytest.mark.parametrize("rounds", [0, -1, 1.0, True, "3", None])
def test_rounds_is_a_whole_number_of_one_or_more(rounds: Any):
    with pytest.raises(RulesError) as caught:
        start(["9H", "TS"], options={"rounds": rounds})
    assert caught.value.code == "bad_record" and "rounds" in caught.value.message


def test_without_rounds_the_options_and_the_view_say_no_limit():
    state, _ = start(["9H", "TS"])
    assert state["options"] == {"start_coins": 1000, "start_bank": 300}
    assert engine.view(state, "ann")["rounds_total"] is None
