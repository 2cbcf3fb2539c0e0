"""A deal in play and the end of a deal (games.deals), in every variant: what the table
chat's rule against coaching from the rail turns on."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from games import deals, engine

State = dict[str, Any]

GAMES: dict[str, dict[str, Any]] = {
    "classic": {"seats": [{"id": "ann"}, {"id": "bob"}], "options": {"rounds": 5}},
    "blackjack": {"seats": [{"id": "ann"}, {"id": "bob"}], "options": {"rounds": 3}},
    "salon": {
        "seats": [{"id": "ann", "chips": 500}, {"id": "bob", "chips": 500}],
        "first_banker": "ann",
    },
    "banker36": {
        "seats": [{"id": "ann", "chips": 500}, {"id": "bob", "chips": 500}],
        "first_banker": "ann",
    },
    "solo": {"seats": [{"id": "ann"}]},
}


def _choose(turn: dict[str, Any], rng: random.Random, variant: str) -> dict[str, Any]:
    entries = [a for a in turn["actions"] if a["action"] not in ("new_game", "restart")]
    entry = rng.choice(entries)
    action: dict[str, Any] = {"seat": turn["seat"], "action": entry["action"]}
    if "amounts" in entry:
        action["amount"] = entry["amounts"][0]
    elif "min" in entry:
        # Solo's game ends only when the bank or the player is broke: bet it all.
        action["amount"] = entry["max"] if variant == "solo" else entry["min"]
    return action


def _play_out(variant: str, seed: str, limit: int = 400) -> list[tuple[State, list[Any]]]:
    """Every (state, events) of one game played by random legal moves, the deal first."""
    spec = GAMES[variant]
    state, events = engine.new_game(variant, seed=seed, **spec)
    steps = [(state, events)]
    rng = random.Random(seed)
    while not state["finished"] and len(steps) < limit:
        turn = engine.legal_actions(state)
        assert turn is not None
        state, events = engine.apply(state, _choose(turn, rng, variant))
        steps.append((state, events))
    return steps


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_a_new_game_has_its_first_deal_in_play(variant: str) -> None:
    state, events = engine.new_game(variant, seed="deal", **GAMES[variant])
    assert deals.deal_in_play(state)
    # A round settled in the deal itself (a natural) ended a deal already.
    assert deals.ends_a_deal(events) == bool(state["rounds"])


@pytest.mark.parametrize("variant", sorted(GAMES))
@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_a_deal_ends_exactly_when_a_round_is_settled_or_the_game_ends(
    variant: str, seed: str
) -> None:
    steps = _play_out(variant, seed)
    for (before, _), (after, events) in itertools.pairwise(steps):
        settled = len(after["rounds"]) > len(before["rounds"])
        assert deals.ends_a_deal(events) == (settled or after["finished"])
        if not deals.ends_a_deal(events):
            # A move inside a deal leaves it in play.
            assert deals.deal_in_play(after)


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_a_finished_game_has_no_deal_in_play(variant: str) -> None:
    for seed in ("x", "y", "z", "w"):
        state, events = _play_out(variant, seed)[-1]
        if state["finished"]:
            assert not deals.deal_in_play(state)
            assert deals.ends_a_deal(events)
            return
    pytest.fail(f"no {variant} game finished")


def test_solo_between_rounds_has_no_deal_in_play_until_the_next_round() -> None:
    state, _ = engine.new_game("solo", seed="s", **GAMES["solo"])
    state, _ = engine.apply(state, {"seat": "ann", "action": "bet", "amount": 1})
    state, events = engine.apply(state, {"seat": "ann", "action": "stand"})
    assert deals.ends_a_deal(events)
    if not state["finished"]:
        assert not deals.deal_in_play(state)
        state, _ = engine.apply(state, {"seat": "ann", "action": "next_round"})
        assert deals.deal_in_play(state)


def test_salon_waiting_for_the_cut_has_no_deal_in_play() -> None:
    state, _ = engine.new_game("salon", seed="cut", options={"cut": True}, **GAMES["salon"])
    assert state["phase"] == "cut"
    assert not deals.deal_in_play(state)
    turn = engine.legal_actions(state)
    assert turn is not None
    state, _ = engine.apply(state, {"seat": turn["seat"], "action": "cut", "position": 3})
    assert deals.deal_in_play(state)
