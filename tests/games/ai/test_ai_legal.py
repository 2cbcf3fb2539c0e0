"""Every AI level only ever returns a legal action, in every variant.

Seeded games wander through many situations: at each decision one move is either a
random legal action or an AI's, so the AIs also meet hands they would not steer into
themselves (split hands, short stacks, a bank that cannot cover, a live cut). At every
decision every level of the variant is asked, and the engine must accept its answer.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import engine
from games.ai import LEVELS, choose_action

GAMES_PER_VARIANT = 12
MAX_STEPS = 400


def _setup(variant: str, rng: random.Random) -> dict[str, Any]:
    def chips() -> int:
        return rng.choice([15, 25, 60, 100, 150, 400, 1000])

    if variant == "blackjack":
        seats = [{"id": f"p{i}"} for i in range(rng.randint(1, 3))]
        return {"seats": seats, "options": {"rounds": 30}}
    if variant == "classic":
        seats = [{"id": f"p{i}"} for i in range(rng.randint(2, 4))]
        return {"seats": seats, "options": {"rounds": 10}}
    if variant == "salon":
        seats = [{"id": f"p{i}", "chips": chips()} for i in range(rng.randint(2, 5))]
        options = {"deals": 15, "min_bet": 10, "max_bet": rng.choice([20, 100])}
        options["cut"] = rng.random() < 0.5
        return {"seats": seats, "options": options}
    if variant == "banker36":
        seats = [
            {"id": f"p{i}", "chips": rng.choice([100, 150, 400, 1000])}
            for i in range(rng.randint(2, 4))
        ]
        return {"seats": seats, "options": {"banks": 5, "stake": 10, "entry_limit": 100}}
    return {"seats": [{"id": "p0"}], "options": {"start_coins": 200, "start_bank": 100}}


def _random_action(seat: str, legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    entry = rng.choice(legal)
    action = {"seat": seat, "action": entry["action"]}
    if "amounts" in entry:
        action["amount"] = rng.choice(entry["amounts"])
    elif entry["action"] == "cut":
        action["position"] = rng.randint(entry["min"], entry["max"])
    elif "min" in entry:
        action["amount"] = rng.randint(entry["min"], entry["max"])
    return action


def _assert_legal(action: dict[str, Any], seat: str, legal: list[dict[str, Any]]) -> None:
    assert action["seat"] == seat
    offered = {entry["action"]: entry for entry in legal}
    assert action["action"] in offered, (action, legal)
    entry = offered[action["action"]]
    if "amounts" in entry:
        assert action["amount"] in entry["amounts"]
    elif action["action"] == "cut":
        assert entry["min"] <= action["position"] <= entry["max"]
    elif "min" in entry:
        assert type(action["amount"]) is int
        assert entry["min"] <= action["amount"] <= entry["max"]
    else:
        assert set(action) == {"seat", "action"}


@pytest.mark.parametrize("variant", sorted(LEVELS))
def test_every_ai_level_only_returns_legal_actions(variant: str):
    rng = random.Random(f"ai-legal-{variant}")
    levels = LEVELS[variant]
    decisions = 0
    for game in range(GAMES_PER_VARIANT):
        setup = _setup(variant, rng)
        state, _ = engine.new_game(variant, seed=f"legal-{variant}-{game}", **setup)
        for _ in range(MAX_STEPS):
            if state["finished"]:
                break
            turn = engine.legal_actions(state)
            assert turn is not None
            seat, legal = turn["seat"], turn["actions"]
            seen = engine.view(state, seat)
            chosen = []
            for level in levels:
                action = choose_action(variant, level, seen, legal)
                _assert_legal(action, seat, legal)
                engine.apply(state, action)  # the engine accepts it (raises otherwise)
                chosen.append(action)
            decisions += 1
            wander = rng.random() < 0.5
            move = _random_action(seat, legal, rng) if wander else rng.choice(chosen)
            if variant == "solo" and move["action"] in ("restart", "new_game"):
                move = chosen[0]  # keep a solo game moving towards its end
            state, _ = engine.apply(state, move)
    assert decisions > 200
