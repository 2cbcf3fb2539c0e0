"""Properties of every variant under random legal play (Hypothesis).

A random player picks among the legal actions (and sometimes lets the clock run out, or,
in `classic`, the host removes someone). Whatever it does, the engine must never crash,
must end the record, conserve chips where the game is zero-sum, deal only cards that were
in the stock, show no seat a card it may not see, survive a JSON round trip, leave the
states it is given untouched, and replay the same game from its seed and actions.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine
from games.cards import DECKS
from games.record import replay
from tests.conftest import examples

CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
DECK_OF = {
    "classic": ("standard52", 1),
    "salon": ("standard52", 2),
    "solo": ("russian36", 1),
    "banker36": ("russian36", 1),
    "blackjack": ("standard52", 6),
}
SEAT_RANGE = {
    "classic": (2, 6),
    "salon": (2, 6),
    "solo": (1, 1),
    "banker36": (2, 4),
    "blackjack": (1, 5),
}
# Enough to end any record these options allow; a game still running after this is stuck.
MAX_STEPS = 3_000


def _options(variant: str, rng: random.Random) -> dict[str, Any]:
    return {
        "classic": {"rounds": rng.choice([5, 7, 10])},
        "salon": {"deals": rng.randint(1, 6), "min_bet": 10, "max_bet": rng.choice([50, 100])},
        "solo": {},
        "banker36": {"banks": rng.randint(1, 4), "stake": 10, "entry_limit": 100},
        "blackjack": {"rounds": rng.randint(1, 6)},
    }[variant]


def _seats(variant: str, rng: random.Random) -> list[dict[str, Any]]:
    low, high = SEAT_RANGE[variant]
    seats = []
    for i in range(rng.randint(low, high)):
        seat: dict[str, Any] = {"id": f"p{i}"}
        if variant in ("salon", "banker36"):
            seat["chips"] = rng.choice([100, 150, 400, 1000])
        seats.append(seat)
    return seats


def _choose(variant: str, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    turn = engine.legal_actions(state)
    assert turn is not None and turn["actions"], "an unfinished game always has a move"
    if variant == "classic" and rng.random() < 0.01:
        live = [s["id"] for s in state["seats"]]
        return {"action": "remove", "target": rng.choice(live)}
    if variant != "solo" and rng.random() < 0.05:
        return {"seat": turn["seat"], "action": "timeout"}
    choices = turn["actions"]
    if variant == "solo":  # a random player who keeps restarting never ends the game
        calm = [a for a in choices if a["action"] not in ("new_game", "restart")]
        choices = calm if calm and rng.random() < 0.98 else choices
    entry = rng.choice(choices)
    action = {"seat": turn["seat"], "action": entry["action"]}
    if "amounts" in entry:
        action["amount"] = rng.choice(entry["amounts"])
    elif "min" in entry:
        # solo's bank breaks, or its player goes broke, only when bets are large enough
        bold = variant == "solo" and rng.random() < 0.3
        action["amount"] = entry["max"] if bold else rng.randint(entry["min"], entry["max"])
    return action


def _cards(data: Any) -> Counter[str]:
    return Counter(CARD.findall(json.dumps(data)))


def _play(variant: str, rng: random.Random, *, check_views: bool) -> tuple[dict, dict, list]:
    seats = _seats(variant, rng)
    options = _options(variant, rng)
    seed = f"prop-{rng.getrandbits(64):x}"
    first_banker = rng.choice(seats)["id"] if variant in ("salon", "banker36") else None
    state, events = engine.new_game(
        variant, seats=seats, options=options, seed=seed, first_banker=first_banker
    )
    record = {
        "variant": variant,
        "options": options,
        "seats": seats,
        "seed": seed,
        "first_banker": first_banker,
        "actions": [],
    }
    seen = {seat["id"]: _cards(engine.events_for(events, seat["id"])) for seat in seats}
    seen[None] = _cards(engine.events_for(events, None))
    for _ in range(MAX_STEPS):
        if state["finished"]:
            break
        action = _choose(variant, state, rng)
        before = json.dumps(state, sort_keys=True)
        state, events = engine.apply(state, action)
        assert json.dumps(state, sort_keys=True) != before or state["version"]
        record["actions"].append(action)
        assert json.loads(json.dumps(state)) == state, "state survives a JSON round trip"
        if check_views:
            settled = _cards(state["rounds"])
            for viewer in [*seen]:
                seen[viewer] += _cards(engine.events_for(events, viewer))
                shown = _cards(engine.view(state, viewer)) - settled
                leaked = shown - seen[viewer]
                assert not leaked, f"{viewer!r} sees {sorted(leaked)} that nobody showed them"
        if variant == "solo" and len(record["actions"]) > 150:
            break
    else:
        raise AssertionError(f"{variant} did not finish in {MAX_STEPS} actions")
    return state, record, seats


def _check_conservation(variant: str, state: dict[str, Any]) -> None:
    deltas = state["deltas"]
    if variant in ("salon", "banker36"):
        assert sum(deltas.values()) == 0, f"zero-sum deltas: {deltas}"
    if variant == "solo":
        final = engine.result(state)["final"]
        assert sum(deltas.values()) == 0, f"coins + bank constant: {deltas}"
        assert final["coins"] >= 0 and final["bank"] >= 0


def _check_cards_came_from_the_stock(variant: str, state: dict[str, Any]) -> None:
    kind, copies = DECK_OF[variant]
    allowed = Counter({card: copies for card in DECKS[kind]})
    for unit in state["rounds"]:
        held = Counter(card for hand in unit["hands"] for card in hand["cards"])
        assert not held - allowed, f"cards not in a {kind} x{copies} stock: {held - allowed}"


def _property(variant: str, rng: random.Random, *, check_views: bool) -> None:
    state, record, _ = _play(variant, rng, check_views=check_views)
    if variant != "solo":
        assert state["finished"], "the record's length is played out"
    _check_conservation(variant, state)
    _check_cards_came_from_the_stock(variant, state)
    replayed = replay(record)["result"]
    assert replayed == engine.result(state), "the seed and the actions replay the same game"


# Thousands of random games per variant in CI, hundreds in the inner loop.
FAST = settings(
    max_examples=examples(2000),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
VIEWS = settings(
    max_examples=examples(300),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)


@FAST
@given(st.randoms(use_true_random=False))
def test_classic_random_play_ends_and_replays(rng: random.Random):
    _property("classic", rng, check_views=False)


@FAST
@given(st.randoms(use_true_random=False))
def test_salon_random_play_is_zero_sum_and_replays(rng: random.Random):
    _property("salon", rng, check_views=False)


@FAST
@given(st.randoms(use_true_random=False))
def test_solo_random_play_keeps_coins_plus_bank_constant(rng: random.Random):
    _property("solo", rng, check_views=False)


@FAST
@given(st.randoms(use_true_random=False))
def test_banker36_random_play_is_zero_sum_and_replays(rng: random.Random):
    _property("banker36", rng, check_views=False)


@FAST
@given(st.randoms(use_true_random=False))
def test_blackjack_random_play_ends_and_replays(rng: random.Random):
    _property("blackjack", rng, check_views=False)


@VIEWS
@given(st.sampled_from(engine.VARIANT_KEYS), st.randoms(use_true_random=False))
def test_views_show_no_card_that_was_not_shown_to_that_viewer(variant: str, rng: random.Random):
    _property(variant, rng, check_views=True)


@VIEWS
@given(st.sampled_from(engine.VARIANT_KEYS), st.randoms(use_true_random=False))
def test_apply_never_changes_the_state_it_is_given(variant: str, rng: random.Random):
    seats = _seats(variant, rng)
    state, _ = engine.new_game(
        variant,
        seats=seats,
        options=_options(variant, rng),
        seed="immutable",
        first_banker=seats[0]["id"] if variant in ("salon", "banker36") else None,
    )
    for _ in range(60):
        if state["finished"]:
            break
        frozen = json.dumps(state, sort_keys=True)
        new_state, _ = engine.apply(state, _choose(variant, state, rng))
        assert json.dumps(state, sort_keys=True) == frozen
        state = new_state
