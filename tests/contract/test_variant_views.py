"""Every `game.view` and every event a live table sends fits `contract.variants`.

Random legal games of each variant are played through the rules engine with the options a
live table gives it (`play.services.lifecycle.engine_options`). After the deal and after
every move, each seat's view and the spectator's are built by play's own `game_info` (the
function every `snapshot` and `update` takes `game` from), and the transition's events are
filtered for each viewer as play filters them (`engine.events_for`, for the seat's holder
or None); every one of them must be read strictly by the variant's definitions.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import msgspec
import pytest

from contract.events import PlatformEvent
from contract.reading import Problem, read
from contract.variants import EVENTS_BY_VARIANT, VIEWS_BY_VARIANT, View
from games import engine
from play.frames.build import game_info
from play.frames.viewing import game_start_event
from play.models import Game
from play.services.lifecycle import engine_options
from tables.models import Table

COMMITMENT = "ab" * 32
PLATFORM_TAGS = [kind.__struct_config__.tag for kind in PlatformEvent.__args__]
GAMES = {"classic": 12, "salon": 24, "solo": 12, "banker36": 20, "blackjack": 6}
SEATS = {
    "classic": (2, 6),
    "salon": (2, 6),
    "solo": (1, 1),
    "banker36": (2, 4),
    "blackjack": (1, 5),
}
# Enough for any live game of these options; solo is cut short (a player may never end it).
MAX_STEPS = {"solo": 200}
STEP_LIMIT = 3_000


def _table(variant: str, rng: random.Random) -> Table:
    table = Table(variant=variant, name="t")
    if variant == "classic":
        table.match_length = rng.choice([5, 7, 10])
    if variant == "salon":
        table.min_bet, table.max_bet = 10, rng.choice([50, 100])
    if variant == "banker36":
        table.stake, table.entry_limit = 10, 100
    return table


def _seats(variant: str, rng: random.Random) -> list[dict[str, Any]]:
    low, high = SEATS[variant]
    seats: list[dict[str, Any]] = []
    for number in range(1, rng.randint(low, high) + 1):
        seat: dict[str, Any] = {"id": f"p{number}" if number % 2 else f"ai:{number}"}
        if variant == "salon":  # the entry limit may be as low as the minimum bet
            seat["chips"] = rng.choice([10, 15, 100, 150, 400, 1000])
        if variant == "banker36":
            seat["chips"] = rng.choice([100, 150, 400, 1000])
        seats.append(seat)
    return seats


def _choose(variant: str, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    turn = engine.legal_actions(state)
    assert turn is not None
    if variant == "classic" and rng.random() < 0.01:  # the host removes a player
        return {"action": "remove", "target": rng.choice([s["id"] for s in state["seats"]])}
    if variant != "solo" and rng.random() < 0.05:
        return {"seat": turn["seat"], "action": "timeout"}
    choices = turn["actions"]
    if variant == "solo":  # new_game is the platform's (a new record), restart loops
        calm = [a for a in choices if a["action"] not in ("new_game", "restart")]
        choices = calm if calm and rng.random() < 0.8 else choices
        choices = [a for a in choices if a["action"] != "new_game"] or choices
    entry = rng.choice(choices)
    action = {"seat": turn["seat"], "action": entry["action"]}
    if "amounts" in entry:
        action["amount"] = rng.choice(entry["amounts"])
    elif entry["action"] == "cut":
        action["position"] = rng.randint(entry["min"], entry["max"])
    elif "min" in entry:
        action["amount"] = (
            entry["max"] if rng.random() < 0.3 else rng.randint(entry["min"], entry["max"])
        )
    return action


def _fits(data: Any, kind: Any, what: str) -> None:
    found = read(data, kind)
    assert not isinstance(found, Problem), f"{what}: {found} in {data!r}"


# The event types each variant's games were seen to send.
SEEN: dict[str, set[str]] = {variant: set() for variant in GAMES}
# Events the random games are not expected to reach, and why.
RARE = {
    # The 36 cards run out within one circle only after many draws.
    ("banker36", "reshuffle"),
}


def _check(variant: str, game: Game, events: list[dict[str, Any]]) -> None:
    SEEN[variant].update(event["type"] for event in events)
    viewers: list[str | None] = [*game.seat_ids, None]
    for viewer in viewers:
        view = game_info(game, viewer).view  # type: ignore[union-attr]
        _fits(view, VIEWS_BY_VARIANT[variant], f"{variant} view for {viewer!r}")
        holder = viewer if viewer in game.seat_ids else None
        for event in engine.events_for(events, holder):
            _fits(event, EVENTS_BY_VARIANT[variant], f"{variant} event for {viewer!r}")


def _play(variant: str, rng: random.Random) -> Game:
    table = _table(variant, rng)
    seats = _seats(variant, rng)
    first = rng.choice(seats)["id"] if variant in ("salon", "banker36") else None
    state, events = engine.new_game(
        variant,
        seats=seats,
        options=engine_options(table),
        first_banker=first,
        seed=f"views-{rng.getrandbits(64):x}",
    )
    game = Game(variant=variant, number=1, state=state, players=seats, commitment=COMMITMENT)
    _check(variant, game, [game_start_event(game), *events])
    for _ in range(MAX_STEPS.get(variant, STEP_LIMIT)):
        if game.state["finished"]:
            break
        game.state, events = engine.apply(game.state, _choose(variant, game.state, rng))
        _check(variant, game, events)
    else:
        assert variant in MAX_STEPS, f"{variant} did not finish in {STEP_LIMIT} moves"
    return game


@pytest.mark.parametrize("variant", list(GAMES))
def test_every_view_and_event_of_random_live_games_fits_the_variant(variant: str):
    rng = random.Random(f"views:{variant}")
    for _ in range(GAMES[variant]):
        game = _play(variant, rng)
        # A game that is over (played out, ended early or voided) shows no turn, no action.
        for status in (Game.Status.FINISHED, Game.Status.VOIDED):
            game.status = status
            _check(variant, game, [])
    # A definition of an event the engine never sends is as wrong as a missing one.
    defined = {kind.__struct_config__.tag for kind in EVENTS_BY_VARIANT[variant].__args__}
    unsent = defined - set(PLATFORM_TAGS) - SEEN[variant] - {t for v, t in RARE if v == variant}
    assert not unsent, f"{variant}: the games never sent {sorted(unsent)}"


@pytest.mark.parametrize("variant", list(GAMES))
def test_any_view_is_read_as_its_variant_by_its_tag(variant: str):
    game = _play(variant, random.Random(f"tag:{variant}"))
    view = game_info(game, game.seat_ids[0]).view  # type: ignore[union-attr]
    assert type(read(view, View)) is VIEWS_BY_VARIANT[variant]


def _classic_view() -> dict[str, Any]:
    state, _ = engine.new_game(
        "classic", seats=[{"id": "ann"}, {"id": "bob"}], options={"rounds": 5}, seed="s"
    )
    view = engine.view(state, "ann")
    assert view["round"] is not None, "the seed deals no dealer natural"
    return view


def _refusal(data: Any, kind: Any) -> Problem:
    found = read(data, kind)
    assert isinstance(found, Problem), f"{data!r} was read as {found!r}"
    return found


def test_a_view_with_a_key_the_variant_does_not_send_is_refused_naming_it():
    view = _classic_view()
    view["round"]["hands"][1]["colour"] = "red"
    found = _refusal(view, VIEWS_BY_VARIANT["classic"])
    assert (found.field, found.reason) == ("round.hands[1].colour", "unknown")


def test_a_view_without_a_key_every_view_has_is_refused_naming_it():
    view = _classic_view()
    del view["turn"]
    assert (_refusal(view, View).field, _refusal(view, View).reason) == ("turn", "missing")


def test_a_view_with_a_value_of_the_wrong_type_is_refused_naming_it():
    view = _classic_view()
    view["round"]["hands"][0]["total"] = "12"
    found = _refusal(view, VIEWS_BY_VARIANT["classic"])
    assert (found.field, found.reason) == ("round.hands[0].total", "type")
    view = _classic_view()
    view["version"] = 0.0
    assert _refusal(view, View).field == "version"


def test_a_card_in_a_view_must_be_rank_then_suit():
    view = _classic_view()
    for wrong in ("10S", "1S", "TX", "ts", "T"):
        bad = copy.deepcopy(view)
        bad["round"]["dealer"]["cards"] = [wrong]
        found = _refusal(bad, View)
        assert (found.field, found.reason) == ("round.dealer.cards[0]", "value"), wrong


def test_a_hidden_card_is_absent_never_null():
    # docs/protocol.md §10: another viewer's copy of a private deal has no `card` key.
    events = EVENTS_BY_VARIANT["classic"]
    deal = {"type": "deal", "seat": "ann", "to": "ann"}
    assert not isinstance(read(deal, events), Problem)
    found = _refusal({**deal, "card": None}, events)
    assert (found.field, found.reason) == ("card", "type")


def test_an_event_is_read_only_by_the_variant_that_sends_it():
    # The same `type` carries other fields in another variant: blackjack's `hit` names a
    # hand and shows its card to everyone, classic's goes `to` its holder.
    blackjack_hit = {"type": "hit", "seat": "ann", "hand": 0, "card": "AS"}
    assert not isinstance(read(blackjack_hit, EVENTS_BY_VARIANT["blackjack"]), Problem)
    found = _refusal(blackjack_hit, EVENTS_BY_VARIANT["classic"])
    assert (found.field, found.reason) == ("hand", "unknown")


def test_the_platform_events_are_read_in_every_variant():
    for variant, events in EVENTS_BY_VARIANT.items():
        game = Game(variant=variant, number=3, commitment=COMMITMENT)
        for event in (
            game_start_event(game),
            {"type": "sat_down", "seat": "ai:2", "ai": "basic"},
            {"type": "stood_up", "seat": "ann", "reason": "away"},
            {"type": "waiting_for_players"},
        ):
            assert not isinstance(read(event, events), Problem), (variant, event)


def test_a_salon_game_where_nobody_can_hold_the_bank_has_no_banker():
    # A live table's entry limit may be as low as its minimum bet; the bank needs twice it.
    table = Table(variant="salon", name="t", min_bet=10, max_bet=100)
    seats = [{"id": "ann", "chips": 10}, {"id": "bob", "chips": 15}]
    state, events = engine.new_game(
        "salon", seats=seats, options=engine_options(table), seed="nobody"
    )
    game = Game(variant="salon", number=1, state=state, players=seats, commitment=COMMITMENT)
    _check("salon", game, events)
    assert events[-1] == {"type": "finished", "reason": "nobody_can_hold_the_bank", "banker": None}
    assert game_info(game, "ann").view["banker"] is None  # type: ignore[union-attr,index]


def test_every_variant_has_a_view_and_events():
    assert set(VIEWS_BY_VARIANT) == set(EVENTS_BY_VARIANT) == set(engine.VARIANT_KEYS)
    for variant, kind in VIEWS_BY_VARIANT.items():
        assert msgspec.structs.fields(kind), variant
