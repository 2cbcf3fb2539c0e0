"""`banker36`: the player-held bank, duels, stuk and rotation (docs/rules/banker36.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from games import engine
from games.cards import RUSSIAN36
from games.errors import RulesError
from games.shoe import split_cards
from games.variants import banker36

State = dict[str, Any]
GOLDEN = Path(__file__).with_name("golden") / "banker36"

ANN_BOB_CAT = [
    {"id": "ann", "chips": 200},
    {"id": "bob", "chips": 200},
    {"id": "cat", "chips": 200},
]


def start(
    deck: list[str] | None = None,
    *,
    seats: list[dict[str, Any]] | None = None,
    options: dict[str, Any] | None = None,
    first_banker: str | None = "bob",
    seed: str | None = None,
) -> tuple[State, list[dict[str, Any]]]:
    return engine.new_game(
        "banker36",
        seats=seats or ANN_BOB_CAT,
        options=options,
        first_banker=first_banker,
        deck=deck,
        seed=seed,
    )


def play(state: State, *actions: tuple[str, str] | tuple[str, str, int]) -> State:
    for entry in actions:
        action: dict[str, Any] = {"seat": entry[0], "action": entry[1]}
        if len(entry) == 3:
            action["amount"] = entry[2]
        state, _ = engine.apply(state, action)
    return state


def error_of(state: State, action: dict[str, Any]) -> RulesError:
    with pytest.raises(RulesError) as caught:
        engine.apply(state, action)
    return caught.value


# --- deal and offers ---------------------------------------------------------------------


def test_deal_gives_one_card_to_each_other_player_from_the_bankers_left():
    state, events = start(["9H", "7D"])
    deals = [(e["seat"], e["card"]) for e in events if e["type"] == "deal"]
    assert deals == [("cat", "9H"), ("ann", "7D")]
    assert state["circle"]["hands"] == {"cat": ["9H"], "ann": ["7D"]}
    assert state["circle"]["banker_cards"] == []


def test_banker_puts_the_stake_into_the_bank():
    state, _ = start(["9H", "7D"])
    assert state["bank"] == 10
    assert state["chips"] == {"ann": 200, "bob": 190, "cat": 200}
    assert state["deltas"] == {"ann": 0, "bob": 0, "cat": 0}


def test_first_bet_against_a_stake_sized_bank_offers_only_the_stake():
    state, _ = start(["9H", "7D"])
    assert engine.legal_actions(state) == {
        "seat": "cat",
        "actions": [{"action": "bet", "amounts": [10]}],
    }


def test_offers_are_one_two_five_stakes_and_the_bank_within_chips_and_bank():
    state, _ = start(["9H", "7D"])
    state["bank"] = 70
    assert banker36._offers(state, "cat") == [10, 20, 50, 70]
    state["chips"]["cat"] = 60
    assert banker36._offers(state, "cat") == [10, 20, 50]
    state["bank"] = 20  # 2x and ва-банк are the same amount: listed once
    assert banker36._offers(state, "cat") == [10, 20]


def test_bet_outside_the_offers_is_bad_amount_listing_them():
    state, _ = start(["9H", "7D"])
    for amount in (20, 5, 10.0, True, "10", None):
        error = error_of(state, {"seat": "cat", "action": "bet", "amount": amount})
        assert error.code == "bad_amount"
        assert "may bet 10" in error.message


def test_seat_without_chips_sits_out_and_is_not_recorded():
    path = GOLDEN / "rotation_skips_a_seat_without_the_stake_and_a_broke_player_sits_out.json"
    with open(path, encoding="utf-8") as handle:
        record = json.load(handle)
    state, events = start(
        record["deck"],
        seats=record["seats"],
        options=record["options"],
        first_banker=record["first_banker"],
    )
    all_events = list(events)
    for action in record["actions"]:
        state, events = engine.apply(state, action)
        all_events += events
    assert {"type": "sit_out", "seat": "bob", "reason": "cannot_afford"} in all_events
    assert all(unit["hands"][0]["seat"] != "bob" for unit in state["rounds"][1:])
    assert state["finished"]


# --- the draw and the banker -------------------------------------------------------------


def test_exactly_21_wins_at_once_and_the_banker_does_not_draw():
    state, _ = start(["TH", "7D", "AS"])
    state = play(state, ("cat", "bet", 10), ("cat", "hit"))
    duel = state["rounds"][-1]
    assert duel["hands"][0]["outcome"] == "win" and duel["hands"][0]["total"] == 21
    assert duel["hands"][1] == {"seat": "bob", "role": "banker", "cards": [], "total": 0}


def test_over_21_loses_at_once():
    state, _ = start(["TH", "7D", "KS", "9S"])
    state = play(state, ("cat", "bet", 10), ("cat", "hit"), ("cat", "hit"))
    assert state["rounds"][-1]["hands"][0] == {
        "seat": "cat",
        "cards": ["TH", "KS", "9S"],
        "total": 23,
        "outcome": "loss",
        "delta": -10,
    }
    assert state["bank"] == 20


def test_banker_draws_while_below_17_and_stops_at_17():
    state, _ = start(["9H", "7D", "TC", "6C", "AC"])
    state = play(state, ("cat", "bet", 10), ("cat", "stand"))
    banker = state["rounds"][-1]["hands"][1]
    assert banker["cards"] == ["TC", "6C", "AC"] and banker["total"] == 27
    assert state["rounds"][-1]["hands"][0]["outcome"] == "win"  # the banker is bust


def test_banker_two_aces_is_golden_point_and_he_stops():
    state, _ = start(["9H", "7D", "AC", "AD"])
    state = play(state, ("cat", "bet", 10), ("cat", "stand"))
    assert state["rounds"][-1]["hands"][1]["total"] == 21
    assert state["rounds"][-1]["hands"][0]["outcome"] == "loss"


def test_banker_five_pictures_counts_21():
    state, _ = start(["9H", "7D", "JC", "QC", "JD", "QD", "KD"])
    state = play(state, ("cat", "bet", 10), ("cat", "stand"))
    assert state["rounds"][-1]["hands"][1] == {
        "seat": "bob",
        "role": "banker",
        "cards": ["JC", "QC", "JD", "QD", "KD"],
        "total": 21,
    }


def test_player_five_pictures_wins_at_once_although_the_sum_is_22():
    state, _ = start(["JS", "7D", "QS", "KS", "JH", "AS"])
    state = play(state, ("cat", "bet", 10), *[("cat", "hit")] * 4)
    assert state["rounds"][-1]["hands"][0]["total"] == 21
    assert state["rounds"][-1]["hands"][0]["outcome"] == "win"


def test_equal_totals_go_to_the_banker():
    state, _ = start(["9H", "7D", "9C", "TC", "8C"])
    state = play(state, ("cat", "bet", 10), ("cat", "hit"), ("cat", "stand"))
    assert state["rounds"][-1]["hands"][0]["total"] == 18
    assert state["rounds"][-1]["hands"][1]["total"] == 18
    assert state["rounds"][-1]["hands"][0]["outcome"] == "loss"


def test_timeout_while_drawing_is_a_stand():
    state, _ = start(["9H", "7D", "TC", "8C"])
    state = play(state, ("cat", "bet", 10), ("cat", "timeout"))
    assert state["rounds"][-1]["hands"][1]["cards"] == ["TC", "8C"]


def test_timeout_on_the_bet_sits_the_duel_out():
    state, _ = start(["9H", "7D"])
    state, events = engine.apply(state, {"seat": "cat", "action": "timeout"})
    assert {"type": "sit_out", "seat": "cat", "reason": "timeout"} in events
    assert state["rounds"] == []
    assert engine.legal_actions(state)["seat"] == "ann"


def test_the_banker_has_no_choices():
    state, _ = start(["9H", "7D"])
    error = error_of(state, {"seat": "bob", "action": "hit"})
    assert error.code == "not_your_turn"
    assert "'cat'" in error.message and "bet" in error.message


def test_unknown_action_is_illegal_and_says_what_is_allowed():
    state, _ = start(["9H", "7D"])
    error = error_of(state, {"seat": "cat", "action": "double"})
    assert error.code == "illegal_action"
    assert "may: bet" in error.message


# --- the stock ---------------------------------------------------------------------------


def test_an_empty_stock_is_rebuilt_from_the_discards_only():
    state, _ = start(seed="reshuffle")
    state = play(state, ("cat", "bet", 10))
    held = set(state["circle"]["hands"]["cat"] + state["circle"]["hands"]["ann"])
    pile = [card for card in RUSSIAN36 if card not in held][:20]
    state["discards"] = "".join(pile)
    state["shoe"]["cards"] = ""  # as if the stock were used up
    state, events = engine.apply(state, {"seat": "cat", "action": "hit"})
    assert {"type": "reshuffle", "count": 20} in events
    drawn = state["circle"]["hands"]["cat"][-1]  # the hit took one card of the new stock
    new_stock = [*split_cards(state["shoe"]["cards"]), drawn]
    assert sorted(new_stock) == sorted(pile)
    assert not held & set(new_stock)


def test_finished_duels_feed_the_discards_but_players_to_come_keep_their_cards():
    state, _ = start(["9H", "7D", "TS", "8C", "6D", "7H"])
    state = play(state, ("cat", "bet", 10), ("cat", "hit"), ("cat", "stand"))
    assert split_cards(state["discards"]) == ["9H", "TS", "8C", "6D", "7H"]
    assert "7D" not in state["discards"]


# --- bank, stuk, rotation ----------------------------------------------------------------


def test_stuk_is_called_once_per_bank_then_the_banker_collects():
    path = GOLDEN / "stuk_plays_a_second_circle_with_the_same_bank.json"
    with open(path, encoding="utf-8") as handle:
        record = json.load(handle)
    state, _ = start(record["deck"], seats=record["seats"], first_banker="ann")
    kinds: list[str] = []
    for action in record["actions"]:
        state, events = engine.apply(state, action)
        kinds += [e["type"] for e in events]
    assert kinds.count("stuk") == 1 and kinds.count("collect") == 1
    assert state["chips"]["ann"] == 100 - 10 + 60
    assert banker36.final(state) == {"bank": 0, "stuk_called": True}


def test_a_broken_bank_ends_the_circle_at_once():
    state, _ = start(["9H", "7D", "TS", "8C", "9C"])
    state = play(
        state, ("cat", "bet", 10), ("cat", "hit"), ("cat", "stand")
    )  # 19 against 17: cat wins the bank
    assert state["finished"] and state["bank"] == 0
    assert [unit["hands"][0]["seat"] for unit in state["rounds"]] == ["cat"]


def test_the_next_bank_goes_to_the_next_seat_on_the_left():
    state, _ = start(["9H", "7D", "TS", "8C", "9C", "6S", "6D"], options={"banks": 2})
    state = play(state, ("cat", "bet", 10), ("cat", "hit"), ("cat", "stand"))
    assert state["banker"] == "cat" and state["bank"] == 10
    assert state["circle"]["order"] == ["ann", "bob"]
    assert state["shoe"]["shuffles"] == 2  # a fresh deck for the new bank's circle


def test_nobody_able_to_put_up_the_stake_ends_the_record():
    state, _ = start(["9H", "7D"])
    state["circle"] = None
    state["bank"] = 0
    state["banks_played"] = 1
    state["options"]["banks"] = 3
    state["chips"] = {"ann": 5, "bob": 5, "cat": 5}
    events: list[dict[str, Any]] = []
    banker36._advance(state, events)
    assert state["finished"] and events[-1]["reason"] == "no_banker"


def test_deltas_move_only_on_duels_and_always_sum_to_zero():
    for number in range(40):
        rng = random.Random(number)
        seats = [{"id": f"p{i}", "chips": rng.choice([100, 150, 400])} for i in range(4)]
        state, _ = start(
            seats=seats, options={"banks": 4}, first_banker="p2", seed=f"zero-sum-{number}"
        )
        start_chips = {seat["id"]: seat["chips"] for seat in seats}
        for _ in range(500):
            if state["finished"]:
                break
            turn = engine.legal_actions(state)
            entry = rng.choice(turn["actions"])
            action = {"seat": turn["seat"], "action": entry["action"]}
            if "amounts" in entry:
                action["amount"] = rng.choice(entry["amounts"])
            state, _ = engine.apply(state, action)
            assert sum(state["deltas"].values()) == 0
            for seat, chips in state["chips"].items():
                in_bank = state["bank"] if seat == state["banker"] else 0
                assert chips + in_bank - start_chips[seat] == state["deltas"][seat]
        assert state["finished"]


# --- setup -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "options", "first_banker"),
    [
        ([{"id": "a", "chips": 100}], {}, "a"),
        ([{"id": c, "chips": 100} for c in "abcde"], {}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b"}], {}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b", "chips": 99}], {}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b", "chips": 100.0}], {}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b", "chips": 100}], {"stake": 0}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b", "chips": 100}], {"banks": "2"}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b", "chips": 100}], {"rounds": 5}, "a"),
        ([{"id": "a", "chips": 100}, {"id": "b", "chips": 100}], {}, None),
    ],
)
def test_bad_tables_are_bad_records(seats, options, first_banker):
    with pytest.raises(RulesError) as caught:
        engine.new_game(
            "banker36", seats=seats, options=options, first_banker=first_banker, deck=["9H"]
        )
    assert caught.value.code == "bad_record"
    assert caught.value.message


def test_an_entry_limit_below_the_stake_is_a_table_where_nobody_may_bank():
    # docs/rules/banker36.md §2.1 ties the entry limit to sitting down only: the record is
    # valid; with nobody able to put up the stake (A bank 1) no bank opens at all.
    seats = [{"id": "a", "chips": 40}, {"id": "b", "chips": 49}]
    state, _ = engine.new_game(
        "banker36", seats=seats, options={"stake": 50, "entry_limit": 40}, first_banker="a"
    )
    result = engine.result(state)
    assert result["status"] == "finished" and result["rounds"] == []
    assert result["final"] == {"bank": 0, "stuk_called": False}
    assert result["deltas"] == {"a": 0, "b": 0}


def test_options_default_to_stake_10_entry_100_one_bank():
    state, _ = start(["9H", "7D"])
    assert state["options"] == {"stake": 10, "entry_limit": 100, "banks": 1}


def test_the_first_banker_is_drawn_by_lot_from_the_seed():
    bankers = set()
    for number in range(30):
        state, _ = start(first_banker=None, seed=f"lot-{number}")
        bankers.add(state["banker"])
    assert bankers == {"ann", "bob", "cat"}


# --- views, purity, JSON -----------------------------------------------------------------


def test_a_player_sees_his_own_card_but_not_another_players():
    state, _ = start(["9H", "7D"])
    hands = {h["seat"]: h for h in engine.view(state, "ann")["circle"]["hands"]}
    assert hands["ann"]["cards"] == ["7D"]
    assert hands["cat"]["cards"] == [] and hands["cat"]["hidden"] == 1
    assert "9H" not in json.dumps(engine.view(state, "ann"))


def test_the_banker_and_a_spectator_see_no_players_card():
    state, _ = start(["9H", "7D"])
    for viewer in ("bob", None):
        seen = json.dumps(engine.view(state, viewer))
        assert "9H" not in seen and "7D" not in seen


def test_private_cards_are_dealt_to_their_holder_only():
    _, events = start(["9H", "7D"])
    for_ann = engine.events_for(events, "ann")
    assert "9H" not in json.dumps(for_ann) and "7D" in json.dumps(for_ann)
    assert "9H" not in json.dumps(engine.events_for(events, None))


def test_a_hit_tells_the_other_seats_neither_the_card_nor_the_total():
    # Hidden information (docs/rules/banker36.md §4): cat's 9H + TS = 19 stays his until the duel
    # settles, so the copy of his hit event for anyone else carries no total either.
    state, _ = start(["9H", "7D", "TS"])
    state = play(state, ("cat", "bet", 10))
    state, events = engine.apply(state, {"seat": "cat", "action": "hit"})
    for viewer in ("ann", "bob", None):
        hits = [e for e in engine.events_for(events, viewer) if e["type"] == "hit"]
        assert hits == [{"type": "hit", "seat": "cat", "to": "cat"}]
    own = [e for e in engine.events_for(events, "cat") if e["type"] == "hit"]
    assert own[0]["card"] == "TS"
    hands = {h["seat"]: h for h in engine.view(state, "cat")["circle"]["hands"]}
    assert hands["cat"]["total"] == 19


def test_a_players_cards_show_once_his_duel_settles_and_the_banker_draws_in_public():
    state, _ = start(["9H", "7D", "TS", "8C", "6D", "7H"])
    state = play(state, ("cat", "bet", 10), ("cat", "hit"))
    assert "TS" not in json.dumps(engine.view(state, "ann"))
    state, events = engine.apply(state, {"seat": "cat", "action": "stand"})
    spectator = engine.events_for(events, None)
    assert [e["card"] for e in spectator if e["type"] == "banker_draw"] == ["8C", "6D", "7H"]
    hands = {h["seat"]: h for h in engine.view(state, None)["circle"]["hands"]}
    assert hands["cat"]["cards"] == ["9H", "TS"] and hands["cat"]["status"] == "settled"
    assert hands["ann"]["cards"] == []


def test_a_sat_out_card_is_never_shown():
    state, _ = start(["9H", "7D"])
    state, _ = engine.apply(state, {"seat": "cat", "action": "timeout"})
    for viewer in ("ann", "bob", None):
        assert "9H" not in json.dumps(engine.view(state, viewer))


def test_the_view_never_includes_the_stock_or_the_seed():
    state, _ = start(seed="secret-seed")
    seen = json.dumps(engine.view(state, "ann"))
    assert "secret-seed" not in seen and "stock" not in seen and "shoe" not in seen


def test_apply_does_not_change_its_input_and_the_state_survives_json():
    state, _ = start(["9H", "7D", "TS", "8C", "6D", "7H"])
    for action in (
        {"seat": "cat", "action": "bet", "amount": 10},
        {"seat": "cat", "action": "hit"},
        {"seat": "cat", "action": "stand"},
    ):
        frozen = json.dumps(state, sort_keys=True)
        new_state, _ = engine.apply(state, action)
        assert json.dumps(state, sort_keys=True) == frozen
        assert json.loads(json.dumps(new_state)) == new_state
        state = new_state


def test_legal_actions_never_list_timeout():
    state, _ = start(["9H", "7D"])
    state = play(state, ("cat", "bet", 10))
    assert engine.legal_actions(state) == {
        "seat": "cat",
        "actions": [{"action": "hit"}, {"action": "stand"}],
    }
