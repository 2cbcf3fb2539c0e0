"""`blackjack` (docs/rules/blackjack.md): deal, player actions, dealer, settlement, shoe, views."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games import engine
from games.errors import RulesError
from games.record import replay
from games.variants import blackjack

State = dict[str, Any]


def new(deck: list[str], seats: tuple[str, ...] = ("ann",), rounds: int = 1) -> State:
    state, _ = engine.new_game(
        "blackjack", seats=[{"id": s} for s in seats], options={"rounds": rounds}, deck=deck
    )
    return state


def act(state: State, *names: str) -> State:
    """Apply actions, each by the seat on turn."""
    for name in names:
        turn = engine.legal_actions(state)
        assert turn is not None, f"nobody on turn for {name}"
        state, _ = engine.apply(state, {"seat": turn["seat"], "action": name})
    return state


def legal(state: State) -> list[str]:
    turn = engine.legal_actions(state)
    return [a["action"] for a in turn["actions"]] if turn else []


def hands(state: State) -> list[dict[str, Any]]:
    return engine.result(state)["rounds"][-1]["hands"]


def rules_error(state: State, seat: str, name: str) -> RulesError:
    with pytest.raises(RulesError) as caught:
        engine.apply(state, {"seat": seat, "action": name})
    return caught.value


# --- deal ------------------------------------------------------------------------------


def test_deal_is_two_passes_seats_in_table_order_then_the_dealer():
    _, events = engine.new_game(
        "blackjack",
        seats=[{"id": "ann"}, {"id": "bob"}],
        deck=["2S", "3S", "4S", "5S", "6S", "7S"],
    )
    deals = [(e["seat"], e.get("card")) for e in events if e["type"] == "deal"]
    assert deals == [
        ("ann", "2S"),
        ("bob", "3S"),
        ("dealer", "4S"),
        ("ann", "5S"),
        ("bob", "6S"),
        ("dealer", None),
    ]


def test_hole_card_deal_event_carries_no_card():
    _, events = engine.new_game("blackjack", seats=[{"id": "ann"}], deck=["2S", "3S", "4S", "5S"])
    hole = [e for e in events if e["type"] == "deal"][-1]
    assert hole == {"type": "deal", "seat": "dealer", "hole": True}


def test_dealer_does_not_peek_players_act_against_a_hidden_natural():
    state = new(["5S", "AC", "6S", "KD", "TD"])
    assert engine.legal_actions(state)["seat"] == "ann"
    state = act(state, "hit")  # 21 stands by itself; the dealer's natural then wins
    assert hands(state)[0] == {
        "seat": "ann",
        "cards": ["5S", "6S", "TD"],
        "total": 21,
        "outcome": "loss",
        "delta": -1,
    }


def test_a_natural_has_nothing_to_do_and_play_skips_it():
    state = new(["AS", "9D", "8C", "KS", "TD", "7C"], seats=("ann", "bob"))
    assert engine.legal_actions(state)["seat"] == "bob"


def test_one_round_of_naturals_finishes_without_any_action():
    state = new(["AS", "9D", "KS", "7C"])
    assert state["finished"]
    assert engine.result(state)["deltas"] == {"ann": 1.5}


# --- player actions --------------------------------------------------------------------


def test_hit_and_stand_are_always_legal_double_only_on_two_cards():
    state = new(["5S", "TD", "4D", "7C", "2C", "9H"])
    assert legal(state) == ["hit", "stand", "double"]
    state = act(state, "hit")
    assert legal(state) == ["hit", "stand"]


def test_hand_reaching_21_stands_automatically():
    state = new(["5S", "TD", "6D", "6C", "TC", "KS", "TH"], seats=("ann", "bob"))
    # ann 5S+6C = 11 hits TH = 21, and bob is on turn without ann standing
    state = act(state, "hit")
    assert engine.legal_actions(state)["seat"] == "bob"


def test_bust_closes_the_hand():
    state = new(["TS", "TD", "6D", "7C", "KC"], seats=("ann",))
    state = act(state, "hit")
    assert state["finished"]
    assert hands(state)[0]["total"] == 26 and hands(state)[0]["delta"] == -1


def test_double_takes_exactly_one_card_doubles_the_wager_and_closes():
    state = new(["5S", "TD", "4D", "7C", "2C"])
    state = act(state, "double")
    assert state["finished"]
    assert hands(state)[0] == {
        "seat": "ann",
        "cards": ["5S", "4D", "2C"],
        "total": 11,
        "outcome": "loss",
        "delta": -2,
    }


def test_timeout_is_a_stand():
    state = new(["TS", "9D", "8D", "8C"])
    state, events = engine.apply(state, {"seat": "ann", "action": "timeout"})
    assert state["finished"]
    assert {"type": "stand", "seat": "ann", "hand": 0, "timeout": True} in events
    assert hands(state)[0]["outcome"] == "win"


@pytest.mark.parametrize(("first", "second"), [("KS", "QD"), ("TH", "JC"), ("8S", "8D")])
def test_split_allowed_on_two_cards_of_the_same_value(first: str, second: str):
    state = new([first, "7C", second, "9D"])
    assert "split" in legal(state)


def test_split_not_allowed_on_different_values():
    state = new(["9S", "7C", "TD", "9D"])
    assert "split" not in legal(state)
    error = rules_error(state, "ann", "split")
    assert error.code == "illegal_action"
    assert "hit, stand, double" in error.message


def test_split_first_hand_gets_its_second_card_at_once_the_next_when_reached():
    state = new(["8S", "7C", "8D", "TD", "3C", "2H"])
    state, events = engine.apply(state, {"seat": "ann", "action": "split"})
    deals = [(e["hand"], e["card"]) for e in events if e["type"] == "deal"]
    assert deals == [(0, "3C")]  # the second hand still waits with one card
    view = engine.view(state, "ann")
    assert [h["cards"] for h in view["hands"]] == [["8S", "3C"], ["8D"]]
    state, events = engine.apply(state, {"seat": "ann", "action": "stand"})
    assert [(e["hand"], e["card"]) for e in events if e["type"] == "deal"] == [(1, "2H")]


def test_resplit_places_the_new_hand_right_after_its_parent():
    state = new(["8S", "7C", "8D", "TD", "8C", "9S"])
    state = act(state, "split", "split")
    view = engine.view(state, "ann")
    assert [h["cards"][0] for h in view["hands"]] == ["8S", "8C", "8D"]
    assert view["splits"] == 2


def test_at_most_four_hands_per_seat():
    state = new(["9S", "7D", "9H", "TC", "9D", "9C", "9H"])
    state = act(state, "split", "split", "split")
    assert len(engine.view(state, "ann")["hands"]) == 4
    assert legal(state) == ["hit", "stand", "double"]  # a pair again, but no fifth hand


def test_split_aces_get_one_card_each_first_then_second_and_both_close():
    state = new(["AS", "9C", "AD", "9D", "KH", "5C"])
    state, events = engine.apply(state, {"seat": "ann", "action": "split"})
    assert [(e["hand"], e["card"]) for e in events if e["type"] == "deal"] == [(0, "KH"), (1, "5C")]
    assert state["finished"]  # no action on either hand


def test_an_ace_on_a_split_ace_cannot_be_split_again():
    state = new(["AS", "9C", "AD", "9D", "AC", "AH"], seats=("ann",))
    state = act(state, "split")
    assert state["finished"]
    assert [h["cards"] for h in hands(state)[:2]] == [["AS", "AC"], ["AD", "AH"]]


def test_21_on_a_split_hand_is_not_a_natural():
    state = new(["AS", "9C", "AD", "9D", "KH", "KC"])
    state = act(state, "split")
    assert [h["delta"] for h in hands(state)[:2]] == [1, 1]  # not 1.5


def test_split_hands_may_double():
    state = new(["8S", "7C", "8D", "TD", "3C"])
    state = act(state, "split")
    assert legal(state) == ["hit", "stand", "double"]


def test_unknown_actions_are_illegal_and_say_what_is_allowed():
    state = new(["TS", "AC", "6D", "8H"])
    for name in ("surrender", "insurance", "bet"):
        error = rules_error(state, "ann", name)
        assert error.code == "illegal_action"
        assert "not an action of blackjack" in error.message and "hit, stand" in error.message


def test_not_your_turn_names_the_seat_on_turn():
    state = new(["TS", "9S", "5C", "8D", "9C", "7H"], seats=("ann", "bob"))
    error = rules_error(state, "bob", "stand")
    assert error.code == "not_your_turn" and "'ann'" in error.message


# --- dealer ----------------------------------------------------------------------------


def test_dealer_stands_on_soft_17():
    state = act(new(["TH", "AD", "8C", "6S"]), "stand")
    assert hands(state)[-1] == {"seat": "dealer", "cards": ["AD", "6S"], "total": 17}


def test_dealer_draws_to_17_counting_an_ace_as_1_when_11_would_bust():
    state = act(new(["TH", "AD", "8C", "5S", "9H", "2C"]), "stand")
    assert hands(state)[-1] == {"seat": "dealer", "cards": ["AD", "5S", "9H", "2C"], "total": 17}


def test_dealer_only_reveals_when_every_hand_is_bust_or_a_natural():
    state = act(new(["AD", "TC", "4S", "QS", "6H", "3H", "9D"], seats=("ann", "bob")), "hit")
    assert hands(state)[-1] == {"seat": "dealer", "cards": ["4S", "3H"], "total": 7}


# --- settlement ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deck", "actions", "outcome", "delta"),
    [
        (["TS", "6D", "KS", "TC", "9C"], ["hit"], "loss", -1),  # bust
        (["AS", "AD", "KS", "KD"], [], "push", 0),  # natural vs dealer natural
        (["TS", "AD", "9S", "KD"], ["stand"], "loss", -1),  # dealer natural vs 19
        (["5S", "AD", "6S", "KD", "5C"], ["double"], "loss", -2),  # doubles lost whole
        (["AS", "TD", "KS", "9D"], [], "win", 1.5),  # natural vs 19
        (["TS", "6D", "7S", "TC", "9C"], ["stand"], "win", 1),  # dealer bust
        (["TS", "TD", "9S", "8C"], ["stand"], "win", 1),  # higher
        (["TS", "TD", "8S", "8C"], ["stand"], "push", 0),  # equal
        (["TS", "TD", "7S", "8C"], ["stand"], "loss", -1),  # lower
        (["5S", "TD", "6S", "7C", "TC"], ["double"], "win", 2),  # doubled win
    ],
)
def test_settlement_table(deck: list[str], actions: list[str], outcome: str, delta: float):
    state = act(new(deck), *actions)
    assert state["finished"]
    hand = hands(state)[0]
    assert (hand["outcome"], hand["delta"]) == (outcome, delta)
    assert type(hand["delta"]) is type(delta)


def test_whole_balances_are_ints_never_floats():
    state = new(["AS", "9D", "KS", "7C", "AH", "9C", "KH", "7D"], rounds=2)
    assert state["finished"]
    balance = engine.result(state)["final"]["balances"]["ann"]
    assert balance == 3 and type(balance) is int


def test_each_round_appends_one_entry_and_balances_accumulate():
    state = new(["TS", "9H", "7C", "8D", "5H", "7S", "6H", "KS", "TH"], rounds=2)
    state = act(state, "stand", "double")
    result = engine.result(state)
    assert len(result["rounds"]) == 2
    assert result["deltas"] == {"ann": 2} and result["final"] == {"balances": {"ann": 2}}


# --- shoe ------------------------------------------------------------------------------


def _with_stock(count: int) -> State:
    """A state about to deal a round, its (seeded) shoe holding `count` cards."""
    state, _ = engine.new_game(
        "blackjack", seats=[{"id": "ann"}], seed="stock", options={"rounds": 3}
    )
    state["shoe"]["cards"] = state["shoe"]["cards"][: 2 * count]
    state["shoe"]["ordered"] = True
    return state


def test_new_shoe_at_round_start_when_fewer_than_78_cards_remain():
    state = _with_stock(77)
    shuffles = state["shoe"]["shuffles"]
    events: list[dict[str, Any]] = []
    blackjack._deal_round(state, events)
    assert state["shoe"]["shuffles"] == shuffles + 1
    assert events[0] == {"type": "round_start", "round": 2, "new_shoe": True}


def test_shoe_is_kept_with_78_cards_left():
    state = _with_stock(78)
    shuffles = state["shoe"]["shuffles"]
    blackjack._deal_round(state, [])
    assert state["shoe"]["shuffles"] == shuffles
    assert len(state["shoe"]["cards"]) // 2 == 74


def test_shoe_is_six_standard_decks():
    state = new(["TS", "9D", "8D", "8C"])
    assert state["shoe"]["kind"] == "standard52"
    assert len(state["shoe"]["cards"]) // 2 == 312 - 4


def shoe_boundary_deck() -> list[str]:
    """One seat, 60 rounds; the first shoe deals rounds 1-59, the stock at round 59's start
    is exactly 78 cards, and rounds 59 + 60 hold seven TS between them.

    Rounds 1-58 use 4 cards each (ann a low pair and stands, the dealer a ten and a 7/8/9)
    plus 2 hits in round 1: 234 cards, 78 left. Round 59: ann TS TS, dealer TS TS (4 TS).
    Round 60 starts with 74 left, so a fresh shoe: ann TS, dealer TS, ann TS, dealer 7C.
    Seven TS are valid only if the shoe is renewed at round 60 — not earlier, not never.
    """
    tens = [r + s for r in "TJQK" for s in "SHDC" if r + s != "TS" for _ in range(6)]
    others = [r + s for r in "789" for s in "SHDC" for _ in range(6)]
    low = [r + s for r in "23456" for s in "SHDC" for _ in range(6)]
    deck = [low[0], tens[0], low[1], others[0], low[2], low[3]]
    for k in range(1, 58):
        deck += [low[2 * k + 2], tens[k], low[2 * k + 3], others[k]]
    deck += ["TS", "TS", "TS", "TS"]
    deck += ["TS", "TS", "TS", "7C"]
    return deck


def test_new_shoe_only_when_fewer_than_78_cards_remain_at_a_round_start():
    deck = shoe_boundary_deck()
    state = new(deck, rounds=60)
    state = act(state, "hit", "hit", "stand")
    shuffles = []
    while not state["finished"]:
        shuffles.append((state["round"], state["shoe"]["shuffles"]))
        state = act(state, "stand")
    assert (59, 1) in shuffles and (60, 2) in shuffles
    result = engine.result(state)
    assert result["deltas"] == {"ann": -57}
    assert result["rounds"][-1]["hands"][0]["cards"] == ["TS", "TS"]


# --- views -----------------------------------------------------------------------------


def test_view_for_the_seat_on_turn_has_what_a_player_needs():
    state = new(["8S", "TH", "7C", "8D", "9S", "AD", "6H"], seats=("ann", "bob"))
    view = engine.view(state, "ann")
    assert view["hands"] == [
        {
            "cards": ["8S", "8D"],
            "total": 16,
            "soft": False,
            "wager": 1,
            "split": False,
            "natural": False,
            "done": False,
            "active": True,
        }
    ]
    assert view["hand"] == 0 and view["splits"] == 0
    assert view["dealer"] == {"cards": ["7C"], "hidden": 1, "total": 7, "soft": False}
    assert view["others"][0]["seat"] == "bob"
    assert view["others"][0]["hands"][0]["cards"] == ["TH", "9S"]
    assert [a["action"] for a in view["actions"]] == ["hit", "stand", "double", "split"]
    assert view["turn"] == "ann"


def test_soft_total_in_view():
    state = new(["AS", "TH", "6C", "9D"])
    hand = engine.view(state, "ann")["hands"][0]
    assert (hand["total"], hand["soft"]) == (17, True)


def test_players_cards_are_public_but_the_hole_card_is_hidden_from_everyone():
    state = new(["8S", "TH", "7C", "8D", "9S", "AD", "6H"], seats=("ann", "bob"))
    text = {viewer: json.dumps(engine.view(state, viewer)) for viewer in ("ann", "bob", None)}
    for viewer, shown in text.items():
        assert "AD" not in shown, f"{viewer!r} sees the hole card"
        for card in ("8S", "8D", "TH", "9S", "7C"):
            assert card in shown, f"{viewer!r} misses the face-up {card}"
    spectator = engine.view(state, None)
    assert spectator["hands"] == [] and len(spectator["others"]) == 2
    assert spectator["actions"] == []


def test_events_show_face_up_cards_to_everyone_and_never_the_hole_card():
    _, events = engine.new_game(
        "blackjack", seats=[{"id": "ann"}, {"id": "bob"}], deck=["8S", "TH", "7C", "8D", "9S", "AD"]
    )
    for viewer in ("ann", "bob", None):
        shown = json.dumps(engine.events_for(events, viewer))
        assert "AD" not in shown and all(c in shown for c in ("8S", "TH", "8D", "9S", "7C"))


def test_hole_card_shows_once_the_last_round_is_played():
    state = act(new(["TS", "9D", "8D", "8C"]), "stand")
    assert engine.view(state, None)["dealer"]["cards"] == ["9D", "8C"]
    assert engine.view(state, "ann")["last_round"]["hands"][-1]["cards"] == ["9D", "8C"]


def test_between_rounds_the_last_round_is_in_the_view_and_the_new_hole_card_is_not():
    deck = ["TS", "9D", "8D", "8C", "5S", "4H", "6S", "QC"]
    state = act(new(deck, rounds=2), "stand")
    view = engine.view(state, "ann")
    assert view["round"] == 2 and view["last_round"]["hands"][-1]["cards"] == ["9D", "8C"]
    assert view["dealer"]["cards"] == ["4H"] and "QC" not in json.dumps(view)


def test_view_marks_the_active_split_hand():
    state = act(new(["8S", "7C", "8D", "TD", "3C", "2H"]), "split", "stand")
    view = engine.view(state, "ann")
    assert [h["active"] for h in view["hands"]] == [False, True]
    assert view["hand"] == 1 and engine.legal_actions(state)["hand"] == 1
    assert [h["split"] for h in view["hands"]] == [True, True]


# --- engine contract -------------------------------------------------------------------


def test_apply_does_not_mutate_its_input():
    state = new(["8S", "7C", "8D", "TD", "3C", "2H", "9S", "4C"], rounds=1)
    frozen = json.dumps(state, sort_keys=True)
    engine.apply(state, {"seat": "ann", "action": "split"})
    engine.apply(state, {"seat": "ann", "action": "double"})
    assert json.dumps(state, sort_keys=True) == frozen


def test_state_survives_a_json_round_trip():
    state = act(new(["8S", "7C", "8D", "TD", "3C", "2H", "9S", "4C"]), "split")
    assert json.loads(json.dumps(state)) == state


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        ([{"id": f"s{i}"} for i in range(8)], {}),
        ([{"id": "ann"}], {"rounds": 0}),
        ([{"id": "ann"}], {"rounds": "2"}),
        ([{"id": "ann"}], {"rounds": True}),
        ([{"id": "ann"}], {"rounds": 1.5}),
        ([{"id": "ann"}], {"deals": 2}),
        ([{"id": "dealer"}], {}),
    ],
)
def test_bad_records(seats: list[dict[str, Any]], options: dict[str, Any]):
    with pytest.raises(RulesError) as caught:
        engine.new_game("blackjack", seats=seats, options=options, seed="s")
    assert caught.value.code == "bad_record" and caught.value.message


def test_defaults_to_one_round_and_seven_seats_are_allowed():
    state, _ = engine.new_game("blackjack", seats=[{"id": f"s{i}"} for i in range(7)], seed="s")
    assert state["options"] == {"rounds": 1}


@pytest.mark.parametrize("seed", range(40))
def test_random_legal_play_terminates_and_replays(seed: int):
    rng = random.Random(seed)
    seats = [{"id": f"p{i}"} for i in range(rng.randint(1, 7))]
    options = {"rounds": rng.randint(1, 10)}
    record: dict[str, Any] = {
        "variant": "blackjack",
        "options": options,
        "seats": seats,
        "seed": f"r{seed}",
        "actions": [],
    }
    state, _ = engine.new_game("blackjack", seats=seats, options=options, seed=f"r{seed}")
    for _ in range(2000):
        if state["finished"]:
            break
        turn = engine.legal_actions(state)
        name = rng.choice([*[a["action"] for a in turn["actions"]], "timeout"])
        action = {"seat": turn["seat"], "action": name}
        record["actions"].append(action)
        state, _ = engine.apply(state, action)
    assert state["finished"]
    assert len(state["rounds"]) == options["rounds"]
    assert replay(record)["result"] == engine.result(state)


def _openings(state: dict[str, Any]) -> list[tuple[str, str]]:
    """Each settled round's first player card and dealer up card."""
    found = []
    for played in state["rounds"]:
        dealer = next(h for h in played["hands"] if h["seat"] == "dealer")
        found.append((played["hands"][0]["cards"][0], dealer["cards"][0]))
    return found


def _played(seed: str, choose: Any, options: dict[str, Any], taken: Any = None) -> Any:
    state, _events = engine.new_game("blackjack", seats=[{"id": "ann"}], options=options, seed=seed)
    while not state["finished"]:
        turn = engine.legal_actions(state)
        action = {"seat": "ann", **choose(turn["actions"])}
        if taken is not None:
            taken.append(action)
        state, _events = engine.apply(state, action)
    return state


def test_with_fresh_shoe_every_round_opens_alike_whatever_was_played_before():
    seed = "5e" * 32
    options = {"rounds": 6, "fresh_shoe": True}
    hitter = _played(seed, lambda actions: {"action": "hit"}, options)
    stander = _played(seed, lambda actions: {"action": "stand"}, options)
    assert len(hitter["rounds"]) == len(stander["rounds"]) == 6
    assert _openings(hitter) == _openings(stander)
    # Without it the shoe runs on, and what one round took shifts the next round's cards.
    hitter = _played(seed, lambda actions: {"action": "hit"}, {"rounds": 6})
    stander = _played(seed, lambda actions: {"action": "stand"}, {"rounds": 6})
    assert _openings(hitter) != _openings(stander)


def test_a_fresh_shoe_record_replays_to_its_result():
    seed = "7a" * 32
    taken: list[dict[str, Any]] = []
    state = _played(
        seed, lambda actions: {"action": "stand"}, {"rounds": 3, "fresh_shoe": True}, taken
    )
    record = {
        "variant": "blackjack",
        "options": {"rounds": 3, "fresh_shoe": True},
        "seats": [{"id": "ann"}],
        "seed": seed,
        "actions": taken,
    }
    assert replay(record)["result"]["deltas"] == state["deltas"]
    with pytest.raises(RulesError):
        engine.new_game("blackjack", seats=[{"id": "ann"}], options={"fresh_shoe": 1}, seed=seed)
