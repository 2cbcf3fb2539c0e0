"""`classic`: Twenty-One against an automated dealer (docs/rules/classic.md)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

from games import engine
from games.errors import RulesError
from games.record import replay

Event = dict[str, Any]
CARD = re.compile(r'"([2-9TJQKA][SHDC])"')

# A deal of two players (ann, bob) that asks ann to act: ann TS 2S, bob TH 7H, dealer TD 8D.
TWO = ["TS", "TH", "TD", "2S", "7H", "8D"]
# The same cards for three players (ann, bob, cat): the dealer has 2S 8H; ann is to act.
THREE = [*TWO, "9H", "8H"]
# Every player loses at the deal: the dealer has AS KS (2 players, 6 cards).
DEALER_NATURAL_2 = ["2C", "3C", "AS", "4C", "5C", "KS"]


def _ids(*names: str) -> list[dict[str, Any]]:
    return [{"id": name} for name in names]


def new(
    names: list[str] | tuple[str, ...] = ("ann", "bob"),
    deck: list[str] | None = None,
    *,
    rounds: int = 5,
    seed: str | None = None,
) -> tuple[dict[str, Any], list[Event]]:
    return engine.new_game(
        "classic", seats=_ids(*names), options={"rounds": rounds}, deck=deck, seed=seed
    )


def run(state: dict[str, Any], *actions: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    events: list[Event] = []
    for action in actions:
        state, new_events = engine.apply(state, action)
        events += new_events
    return state, events


def act(seat: str, name: str) -> dict[str, Any]:
    return {"seat": seat, "action": name}


def remove(target: Any) -> dict[str, Any]:
    return {"action": "remove", "target": target}


def code_of(state: dict[str, Any], action: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(RulesError) as caught:
        engine.apply(state, action)
    return caught.value.code, caught.value.message


def last_hands(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {hand["seat"]: hand for hand in state["rounds"][-1]["hands"]}


# --- setup and options -------------------------------------------------------------------


def test_rounds_default_to_five():
    state, _ = engine.new_game("classic", seats=_ids("ann", "bob"), seed="s")
    assert state["options"] == {"rounds": 5}


@pytest.mark.parametrize("rounds", [5, 7, 10])
def test_a_match_is_5_7_or_10_rounds(rounds: int):
    state, _ = new(rounds=rounds, seed="s")
    assert state["options"]["rounds"] == rounds


@pytest.mark.parametrize("rounds", [0, 1, 6, 11, "5", 5.0, True, None])
def test_other_round_counts_are_a_bad_record_that_names_the_choices(rounds: Any):
    with pytest.raises(RulesError) as caught:
        engine.new_game("classic", seats=_ids("ann", "bob"), options={"rounds": rounds}, seed="s")
    assert caught.value.code == "bad_record"
    assert "5, 7 or 10" in caught.value.message


def test_an_unknown_option_is_a_bad_record():
    with pytest.raises(RulesError) as caught:
        engine.new_game("classic", seats=_ids("ann", "bob"), options={"deals": 2}, seed="s")
    assert caught.value.code == "bad_record"
    assert "rounds" in caught.value.message


@pytest.mark.parametrize("count", [0, 1, 11, 12])
def test_classic_seats_two_to_ten_players(count: int):
    with pytest.raises(RulesError) as caught:
        new([f"p{i}" for i in range(count)], seed="s")
    assert caught.value.code == "bad_record"
    assert "2 to 10" in caught.value.message


def test_a_seat_called_dealer_is_a_bad_record():
    with pytest.raises(RulesError) as caught:
        new(["ann", "dealer"], seed="s")
    assert caught.value.code == "bad_record"


@pytest.mark.parametrize("count", [2, 10])
def test_two_and_ten_players_can_play(count: int):
    state, _ = new([f"p{i}" for i in range(count)], seed="s")
    assert len(state["order"]) == count


def test_everyone_starts_at_zero_points():
    state, _ = new(["ann", "bob", "cat"], seed="s")
    assert engine.result(state)["final"] == {
        "scores": {"ann": 0, "bob": 0, "cat": 0},
        "winners": None,
    }


# --- the deal ------------------------------------------------------------------------------


def test_deal_is_two_passes_each_player_in_turn_order_then_the_dealer():
    deck = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    state, events = new(["ann", "bob", "cat"], deck)
    deals = [(e["seat"], e.get("card")) for e in events if e["type"] == "deal"]
    assert deals == [
        ("ann", "2S"),
        ("bob", "3S"),
        ("cat", "4S"),
        ("dealer", "5S"),
        ("ann", "6S"),
        ("bob", "7S"),
        ("cat", "8S"),
        ("dealer", None),
    ]
    assert state["hands"] == {"ann": ["2S", "6S"], "bob": ["3S", "7S"], "cat": ["4S", "8S"]}
    assert state["dealer"] == ["5S", "9S"]


def test_the_hole_card_is_dealt_without_a_card_and_players_cards_are_private():
    _, events = new(deck=TWO)
    hole = [e for e in events if e["type"] == "deal" and e["seat"] == "dealer"][1]
    assert hole == {"type": "deal", "seat": "dealer", "hole": True}
    for event in engine.events_for(events, "bob"):
        if event["type"] == "deal" and event["seat"] == "ann":
            assert "card" not in event
    assert "8D" not in json.dumps(engine.events_for(events, None))


def test_every_round_is_dealt_from_a_fresh_standard52_deck():
    # The same cards are dealt in round 1 and in round 2: each round has its own deck.
    state, _ = new(deck=TWO + TWO)
    state, _ = run(state, act("ann", "stand"), act("bob", "stand"))
    assert state["round_no"] == 2
    assert state["shoe"]["shuffles"] == 2
    assert state["hands"] == {"bob": ["TS", "2S"], "ann": ["TH", "7H"]}


def test_turn_order_rotates_by_one_seat_every_round_and_wraps():
    state, events = new(["ann", "bob", "cat"], seed="rotation")
    starts = [e["order"] for e in events if e["type"] == "round_start"]
    while not state["finished"]:
        turn = engine.legal_actions(state)
        assert turn is not None
        state, events = engine.apply(state, act(turn["seat"], "stand"))
        starts += [e["order"] for e in events if e["type"] == "round_start"]
    assert [order[0] for order in starts] == ["ann", "bob", "cat", "ann", "bob"]
    assert starts[1] == ["bob", "cat", "ann"]
    assert starts[2] == ["cat", "ann", "bob"]


# --- players' turns -------------------------------------------------------------------------


def test_legal_offers_hit_and_stand_never_timeout():
    state, _ = new(deck=TWO)
    assert engine.legal_actions(state) == {
        "seat": "ann",
        "actions": [{"action": "hit"}, {"action": "stand"}],
    }


def test_a_player_may_hit_several_times():
    state, _ = new(deck=[*TWO, "2C", "2D", "3C"])
    state, _ = run(state, act("ann", "hit"), act("ann", "hit"), act("ann", "hit"))
    assert state["hands"]["ann"] == ["TS", "2S", "2C", "2D", "3C"]
    assert engine.legal_actions(state)["seat"] == "ann"


def test_a_natural_has_nothing_to_do():
    state, _ = new(["ann", "bob"], ["AS", "TH", "TD", "KS", "7H", "8D"])
    assert engine.legal_actions(state)["seat"] == "bob"


def test_21_ends_the_hand_automatically():
    state, events = run(new(deck=[*TWO, "9C"])[0], act("ann", "hit"))
    assert state["hands"]["ann"] == ["TS", "2S", "9C"]
    assert engine.legal_actions(state)["seat"] == "bob"
    assert {"type": "hand_over", "seat": "ann"} in events


def test_a_bust_ends_the_hand_and_loses_even_if_the_dealer_busts():
    deck = ["TS", "TH", "TD", "6S", "7H", "6D", "8S", "9C", *TWO]
    state, _ = run(new(deck=deck)[0], act("ann", "hit"), act("bob", "stand"))
    hands = last_hands(state)
    assert hands["ann"] == {
        "seat": "ann",
        "cards": ["TS", "6S", "8S"],
        "total": 24,
        "outcome": "loss",
        "delta": -100,
    }
    assert hands["dealer"]["total"] == 25
    assert hands["bob"]["outcome"] == "win"


def test_timeout_acts_as_stand():
    state, events = run(new(deck=TWO)[0], {"seat": "ann", "action": "timeout"})
    assert engine.legal_actions(state)["seat"] == "bob"
    assert state["hands"]["ann"] == ["TS", "2S"]
    assert {"type": "stand", "seat": "ann", "timeout": True} in events


def test_timeout_from_a_seat_not_on_turn_is_not_your_turn():
    state, _ = new(deck=TWO)
    code, message = code_of(state, {"seat": "bob", "action": "timeout"})
    assert code == "not_your_turn"
    assert "ann" in message


def test_acting_out_of_turn_is_not_your_turn_and_says_whose_turn_it_is():
    code, message = code_of(new(deck=TWO)[0], act("bob", "hit"))
    assert code == "not_your_turn"
    assert "'ann'" in message and "hit, stand" in message


@pytest.mark.parametrize("name", ["double", "split", "bet", "cut", "next_round"])
def test_actions_classic_does_not_have_are_illegal_and_the_message_lists_hit_and_stand(name: str):
    code, message = code_of(new(deck=TWO)[0], act("ann", name))
    assert code == "illegal_action"
    assert "hit, stand" in message


# --- the dealer ----------------------------------------------------------------------------


def test_dealer_natural_shows_the_hole_card_and_ends_the_round_at_once():
    deck = ["AS", "5H", "AH", "KS", "6H", "JD", *TWO]
    state, events = new(deck=deck)
    assert {"type": "reveal", "seat": "dealer", "card": "JD", "total": 21} in events
    hands = last_hands(state)
    assert hands["ann"]["outcome"] == "push" and hands["ann"]["delta"] == 0
    assert hands["bob"]["outcome"] == "loss" and hands["bob"]["delta"] == -100
    assert hands["dealer"] == {"seat": "dealer", "cards": ["AH", "JD"], "total": 21}


def test_dealer_natural_with_ten_up_and_ace_in_the_hole():
    state, _ = new(deck=["2C", "3C", "KD", "4C", "5C", "AS", *TWO])
    assert last_hands(state)["dealer"]["cards"] == ["KD", "AS"]
    assert state["round_no"] == 2


def test_dealer_stands_on_soft_17():
    deck = ["TS", "9S", "AD", "7S", "8S", "6D", *TWO]
    state, _ = run(new(deck=deck)[0], act("ann", "stand"), act("bob", "stand"))
    assert last_hands(state)["dealer"] == {"seat": "dealer", "cards": ["AD", "6D"], "total": 17}


def test_dealer_draws_below_17_and_an_ace_drops_to_one():
    deck = ["TS", "9S", "AC", "8S", "8H", "5C", "TD", "4D", *TWO]
    state, events = run(new(deck=deck)[0], act("ann", "stand"), act("bob", "stand"))
    assert last_hands(state)["dealer"]["cards"] == ["AC", "5C", "TD", "4D"]
    assert last_hands(state)["dealer"]["total"] == 20
    assert [e["card"] for e in events if e["type"] == "dealer_draw"] == ["TD", "4D"]


def test_dealer_only_reveals_when_every_hand_is_bust_or_a_natural():
    deck = ["AS", "TH", "2D", "KS", "5H", "3D", "9H", *TWO]
    state, events = run(new(deck=deck)[0], act("bob", "hit"))
    assert last_hands(state)["dealer"] == {"seat": "dealer", "cards": ["2D", "3D"], "total": 5}
    assert not [e for e in events if e["type"] == "dealer_draw"]


# --- results and points --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ann", "dealer", "draw", "outcome", "delta"),
    [
        (["TS", "9S"], ["TD", "8D"], [], "win", 100),  # higher total
        (["TS", "8S"], ["TD", "8D"], [], "push", 0),  # equal totals
        (["TS", "7S"], ["TD", "8D"], [], "loss", -100),  # lower total
        (["TS", "2S"], ["TD", "6D"], ["KD"], "win", 100),  # dealer busts
        (["AS", "KS"], ["TD", "8D"], [], "win", 150),  # natural
        (["AS", "KS"], ["6D", "5D"], ["TD"], "win", 150),  # natural beats a 3-card 21
        (["AS", "KS"], ["AD", "QD"], [], "push", 0),  # two naturals
        (["TS", "QS"], ["AD", "QD"], [], "loss", -100),  # dealer natural beats 20
    ],
)
def test_results_and_points(
    ann: list[str], dealer: list[str], draw: list[str], outcome: str, delta: int
):
    # bob stands on 2H 3H whenever he has to act; the dealer's draws follow.
    deck = [ann[0], "2H", dealer[0], ann[1], "3H", dealer[1], *draw, *TWO]
    state, _ = new(deck=deck)
    while state["round_no"] == 1:
        seat = engine.legal_actions(state)["seat"]
        state, _ = engine.apply(state, act(seat, "stand"))
    hand = state["rounds"][0]["hands"][0]
    assert (hand["seat"], hand["outcome"], hand["delta"]) == ("ann", outcome, delta)
    assert state["deltas"]["ann"] == delta


def test_a_player_21_of_three_cards_pushes_a_dealer_21_of_three_cards():
    deck = ["7H", "9C", "6D", "7C", "TC", "5D", "7S", "TD", *TWO]
    state, _ = run(new(deck=deck)[0], act("ann", "hit"), act("bob", "stand"))
    hands = last_hands(state)
    assert hands["ann"]["total"] == 21 and hands["ann"]["outcome"] == "push"
    assert hands["dealer"]["total"] == 21


def test_points_go_negative_and_nobody_is_eliminated():
    state, _ = new(deck=DEALER_NATURAL_2 * 5)
    assert state["finished"]
    assert engine.result(state)["final"] == {
        "scores": {"ann": -500, "bob": -500},
        "winners": ["ann", "bob"],
    }
    assert all(len(unit["hands"]) == 3 for unit in state["rounds"])


def test_the_match_ends_after_its_last_round_and_the_leaders_win():
    deck = [*DEALER_NATURAL_2 * 4, "AC", "2H", "AS", "KC", "3H", "KS"]
    state, _ = new(deck=deck)
    assert state["finished"] and len(state["rounds"]) == 5
    # round 5 (ann, bob): ann's AC KC pushes the dealer's natural, bob loses
    assert engine.result(state)["final"]["winners"] == ["ann"]
    code, message = code_of(state, act("ann", "stand"))
    assert code == "illegal_action" and "over" in message


@pytest.mark.parametrize("rounds", [7, 10])
def test_longer_matches_play_their_rounds(rounds: int):
    state, _ = new(deck=DEALER_NATURAL_2 * rounds, rounds=rounds)
    assert state["finished"] and len(state["rounds"]) == rounds


def test_winners_stay_null_while_the_match_runs():
    state, _ = new(deck=DEALER_NATURAL_2 + TWO)
    assert engine.result(state)["final"] == {"scores": {"ann": -100, "bob": -100}, "winners": None}


# --- the host removes a player -------------------------------------------------------------


def test_removing_the_player_on_turn_discards_the_hand_and_moves_play_on():
    deck = ["TS", "TH", "TC", "TD", "9S", "7H", "8C", "8D", *TWO]
    state, events = new(["ann", "bob", "cat"], deck)
    state, events = run(state, remove("ann"))
    assert events[0] == {"type": "remove", "target": "ann"}
    assert engine.legal_actions(state)["seat"] == "bob"
    assert "ann" not in state["hands"]
    state, _ = run(state, act("bob", "stand"), act("cat", "stand"))
    assert [hand["seat"] for hand in state["rounds"][0]["hands"]] == ["bob", "cat", "dealer"]


def test_removing_a_player_who_already_stood_keeps_the_turn_where_it_is():
    deck = ["TS", "TH", "TC", "TD", "9S", "7H", "8C", "8D"]
    state, _ = run(new(["ann", "bob", "cat"], deck)[0], act("ann", "stand"), remove("ann"))
    assert engine.legal_actions(state)["seat"] == "bob"
    assert state["order"] == ["bob", "cat"]


def test_removing_a_player_still_to_act_skips_them():
    deck = ["TS", "TH", "TC", "TD", "9S", "7H", "8C", "8D", *TWO]
    state, _ = run(new(["ann", "bob", "cat"], deck)[0], remove("cat"), act("ann", "stand"))
    state, _ = run(state, act("bob", "stand"))
    assert [hand["seat"] for hand in state["rounds"][0]["hands"]] == ["ann", "bob", "dealer"]


def test_removing_the_last_to_act_makes_the_dealer_play_and_settle():
    deck = ["TS", "TH", "TC", "9D", "9S", "6H", "8C", "7D", "2C", *TWO]
    state, _ = run(new(["ann", "bob", "cat"], deck)[0], act("ann", "stand"), act("bob", "stand"))
    state, events = run(state, remove("cat"))
    assert [e["type"] for e in events][:3] == ["remove", "reveal", "dealer_draw"]
    assert last_hands(state)["dealer"]["cards"] == ["9D", "7D", "2C"]
    assert state["round_no"] == 2


def test_a_removed_player_keeps_their_points_but_cannot_win():
    deck = ["TS", "TH", "TC", "TD", "9S", "2H", "3C", "8D"] + DEALER_NATURAL_2 * 4
    state, _ = run(new(["ann", "bob", "cat"], deck)[0], remove("ann"))
    state, _ = run(state, act("bob", "stand"), act("cat", "stand"))
    assert state["finished"]
    assert engine.result(state)["final"] == {
        "scores": {"ann": 0, "bob": -500, "cat": -500},
        "winners": ["bob", "cat"],
    }


def test_fewer_than_two_players_ends_the_match_without_a_winner_and_voids_the_round():
    deck = ["TS", "TH", "TD", "9S", "7H", "8D", "5S", "6S", "7S", "8S", "9S", "TS", "2H"]
    state, _ = new(deck=deck)
    state, _ = run(state, act("ann", "stand"), act("bob", "stand"), act("bob", "hit"))
    state, events = run(state, remove("ann"))
    assert state["finished"]
    assert events[-1]["type"] == "finished" and events[-1]["winners"] is None
    result = engine.result(state)
    assert result["status"] == "finished" and result["next"] is None
    assert len(result["rounds"]) == 1
    assert result["final"] == {"scores": {"ann": 100, "bob": -100}, "winners": None}


def test_the_next_first_player_follows_the_previous_first_even_when_removed():
    # ann, bob, cat, dan: round 2 starts at bob, who is removed; round 3 starts at cat
    # (not at the third of the remaining ann, cat, dan).
    all_18 = ["TS", "TH", "TC", "TD", "9S", "8S", "8H", "8C", "8D", "9H"]
    deck = [*all_18, *all_18, "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    state, _ = new(["ann", "bob", "cat", "dan"], deck)
    assert state["order"] == ["ann", "bob", "cat", "dan"]
    state, _ = run(state, *(act(s, "stand") for s in ("ann", "bob", "cat", "dan")))
    assert state["order"] == ["bob", "cat", "dan", "ann"]
    state, _ = run(state, remove("bob"), *(act(s, "stand") for s in ("cat", "dan", "ann")))
    assert state["round_no"] == 3
    assert state["first"] == "cat"
    assert state["order"] == ["cat", "dan", "ann"]


@pytest.mark.parametrize(
    ("target", "said"),
    [("zed", "not a seat"), (None, "needs a target"), (7, "not a seat"), ("", "not a seat")],
)
def test_removing_an_unknown_seat_is_illegal_and_names_who_may_be_removed(target: Any, said: str):
    code, message = code_of(new(["ann", "bob", "cat"], deck=THREE)[0], remove(target))
    assert code == "illegal_action"
    assert said in message and "'ann', 'bob', 'cat'" in message


def test_removing_a_seat_twice_is_illegal():
    state, _ = run(new(["ann", "bob", "cat"], deck=THREE)[0], remove("cat"))
    code, message = code_of(state, remove("cat"))
    assert code == "illegal_action"
    assert "already been removed" in message and "'ann', 'bob'" in message


def test_remove_needs_no_seat_and_skips_the_turn_check():
    state, _ = new(["ann", "bob", "cat"], deck=THREE)
    state, _ = engine.apply(state, {"seat": "cat", "action": "remove", "target": "bob"})
    assert state["players"] == ["ann", "cat"]
    assert [seat["id"] for seat in state["seats"]] == ["ann", "cat"]


# --- views ---------------------------------------------------------------------------------


def _cards(data: Any) -> set[str]:
    return set(CARD.findall(json.dumps(data)))


def test_a_player_sees_own_cards_and_total_and_only_counts_of_others():
    state, _ = new(["ann", "bob"], TWO)
    seen = engine.view(state, "ann")
    hands = {hand["seat"]: hand for hand in seen["round"]["hands"]}
    assert hands["ann"] == {
        "seat": "ann",
        "count": 2,
        "cards": ["TS", "2S"],
        "total": 12,
        "soft": False,
        "natural": False,
    }
    assert hands["bob"] == {"seat": "bob", "count": 2}
    assert seen["round"]["dealer"] == {"cards": ["TD"], "hidden": 1}
    assert _cards(seen) == {"TS", "2S", "TD"}
    assert seen["actions"] == [{"action": "hit"}, {"action": "stand"}]
    assert engine.view(state, "bob")["actions"] == []


def test_a_spectator_sees_no_private_card():
    state, _ = new(["ann", "bob"], TWO)
    seen = engine.view(state, None)
    assert _cards(seen) == {"TD"}
    assert all(set(hand) == {"seat", "count"} for hand in seen["round"]["hands"])


def test_a_view_never_holds_the_stock_the_source_or_the_seed():
    state, _ = new(["ann", "bob"], seed="secret-seed")
    text = json.dumps(engine.view(state, "ann"))
    assert "secret-seed" not in text
    for key in ("shoe", "source", "stacked"):
        assert f'"{key}"' not in text


def test_the_settled_round_is_revealed_to_everyone():
    deck = ["TS", "TH", "TD", "9S", "7H", "8D", "2C", "3C", "4C", "5C", "6C", "7C"]
    state, _ = run(new(deck=deck)[0], act("ann", "stand"), act("bob", "stand"))
    for viewer in ("ann", "bob", None):
        seen = engine.view(state, viewer)
        assert seen["last_round"] == state["rounds"][0]
        assert {"TS", "9S", "TH", "7H", "TD", "8D"} <= _cards(seen)
    assert "7C" not in _cards(engine.view(state, None))  # round 2's hole card


def test_a_removed_player_sees_no_private_card():
    state, _ = run(new(["ann", "bob", "cat"], THREE)[0], remove("ann"))
    assert _cards(engine.view(state, "ann")) == {"2S"}


def test_a_finished_match_shows_scores_winners_and_the_last_round():
    state, _ = new(deck=DEALER_NATURAL_2 * 5)
    seen = engine.view(state, None)
    assert seen["finished"] and seen["round"] is None
    assert seen["winners"] == ["ann", "bob"]
    assert seen["rounds_played"] == 5 and seen["rounds_total"] == 5


def test_settle_events_tell_everyone_the_hands_and_scores():
    deck = ["TS", "TH", "TD", "9S", "7H", "8D", *TWO]
    state, events = run(new(deck=deck)[0], act("ann", "stand"), act("bob", "stand"))
    settle = next(e for e in engine.events_for(events, None) if e["type"] == "settle")
    assert settle["hands"] == state["rounds"][0]["hands"]
    assert settle["scores"] == {"ann": 100, "bob": -100}


# --- engine contract -----------------------------------------------------------------------


def test_apply_does_not_change_the_state_it_is_given():
    state, _ = new(["ann", "bob", "cat"], seed="immutable")
    frozen = json.dumps(state, sort_keys=True)
    engine.apply(state, act("ann", "hit"))
    engine.apply(state, remove("bob"))
    assert json.dumps(state, sort_keys=True) == frozen


def test_state_survives_a_json_round_trip():
    state, _ = new(["ann", "bob", "cat"], seed="json")
    state, _ = run(state, act("ann", "hit"), remove("cat"))
    assert json.loads(json.dumps(state)) == state


def _random_match(rng: random.Random, *, check_views: bool) -> None:
    names = [f"p{i}" for i in range(rng.randint(2, 10))]
    options = {"rounds": rng.choice([5, 7, 10])}
    seed = f"classic-{rng.getrandbits(48):x}"
    state, events = engine.new_game("classic", seats=_ids(*names), options=options, seed=seed)
    seen: dict[str | None, Counter[str]] = {
        v: Counter(CARD.findall(json.dumps(engine.events_for(events, v)))) for v in [*names, None]
    }
    actions: list[dict[str, Any]] = []
    for _ in range(2_000):
        if state["finished"]:
            break
        turn = engine.legal_actions(state)
        assert turn is not None
        roll = rng.random()
        if roll < 0.02:
            action = remove(rng.choice(state["players"]))
        elif roll < 0.07:
            action = act(turn["seat"], "timeout")
        else:
            action = act(turn["seat"], rng.choice(turn["actions"])["action"])
        state, events = engine.apply(state, action)
        actions.append(action)
        if check_views:
            settled = Counter(CARD.findall(json.dumps(state["rounds"])))
            for viewer in seen:
                seen[viewer] |= Counter(CARD.findall(json.dumps(engine.events_for(events, viewer))))
                shown = Counter(CARD.findall(json.dumps(engine.view(state, viewer)))) - settled
                assert not shown - seen[viewer], f"{viewer!r} sees a card nobody showed"
    assert state["finished"]
    final = engine.result(state)["final"]
    if final["winners"] is not None:
        assert len(state["rounds"]) == options["rounds"]
    for unit in state["rounds"]:
        assert all(type(hand.get("delta", 0)) is int for hand in unit["hands"])
        cards = [card for hand in unit["hands"] for card in hand["cards"]]
        assert len(cards) == len(set(cards))
    assert sum(state["deltas"].values()) == sum(
        hand["delta"] for unit in state["rounds"] for hand in unit["hands"] if "delta" in hand
    )
    record = {"variant": "classic", "options": options, "seats": _ids(*names), "seed": seed}
    assert replay({**record, "actions": actions})["result"] == engine.result(state)


@pytest.mark.parametrize("number", range(40))
def test_random_play_with_removals_always_ends_and_replays(number: int):
    _random_match(random.Random(number), check_views=False)


@pytest.mark.parametrize("number", range(8))
def test_random_play_never_shows_a_viewer_a_card_nobody_showed_them(number: int):
    _random_match(random.Random(1000 + number), check_views=True)


# --- one_player: a tournament's duplicate heat ---------------------------------------------


def test_one_player_plays_a_match_alone_against_the_dealer_to_its_length():
    state, _ = engine.new_game(
        "classic", seats=_ids("ann"), options={"rounds": 7, "one_player": True}, seed="heat"
    )
    assert state["options"] == {"rounds": 7, "one_player": True}
    actions: list[dict[str, Any]] = []
    while not state["finished"]:
        action = act("ann", "stand")
        state, _ = engine.apply(state, action)
        actions.append(action)
    assert len(state["rounds"]) == 7
    assert engine.result(state)["final"]["winners"] == ["ann"]
    record = {
        "variant": "classic",
        "options": {"rounds": 7, "one_player": True},
        "seats": _ids("ann"),
        "seed": "heat",
        "actions": actions,
    }
    assert replay(record)["result"] == engine.result(state)


def test_one_player_rounds_open_with_the_cards_of_that_rounds_shuffle_whatever_came_before():
    # Round r is shuffle r - 1 of the seed: two players of the same seed see the same
    # opening cards every round, however differently they played the rounds before.
    def openings(decide: str) -> list[tuple[str, ...]]:
        state, _ = engine.new_game(
            "classic", seats=_ids("ann"), options={"one_player": True}, seed="same"
        )
        seen = []
        while not state["finished"]:
            seen.append((*state["hands"]["ann"][:2], state["dealer"][0]))
            state = _play_round(state, decide)
        return seen

    assert openings("hit") == openings("stand")


def _play_round(state: dict[str, Any], decide: str) -> dict[str, Any]:
    number = state["round_no"]
    while not state["finished"] and state["round_no"] == number:
        state, _ = engine.apply(state, act("ann", decide))
    return state


@pytest.mark.parametrize("names", [(), ("ann", "bob")])
def test_one_player_needs_exactly_one_seat(names: tuple[str, ...]):
    with pytest.raises(RulesError) as caught:
        engine.new_game("classic", seats=_ids(*names), options={"one_player": True}, seed="s")
    assert caught.value.code == "bad_record" and "exactly one seat" in caught.value.message


@pytest.mark.parametrize("value", [1, "yes", None])
def test_one_player_is_true_or_false(value: Any):
    with pytest.raises(RulesError) as caught:
        engine.new_game("classic", seats=_ids("ann"), options={"one_player": value}, seed="s")
    assert caught.value.code == "bad_record" and "one_player" in caught.value.message


def test_without_one_player_the_options_stay_as_they_were():
    state, _ = engine.new_game(
        "classic", seats=_ids("ann", "bob"), options={"one_player": False}, seed="s"
    )
    assert state["options"] == {"rounds": 5}


def test_removing_the_one_player_ends_the_match_without_a_winner():
    state, _ = engine.new_game("classic", seats=_ids("ann"), options={"one_player": True}, seed="s")
    state, events = engine.apply(state, remove("ann"))
    assert state["finished"] and engine.result(state)["final"]["winners"] is None
    assert events[-1]["type"] == "finished"
