"""The public face of the rules: new games, transitions, legal actions, views, results.

A state is plain JSON data. `apply` never changes the state it is given: it works on a
copy and returns the new state with the events the transition produced. Every variant is
a `games.variants.Variant` registered by key in `games.variants.VARIANTS`; this module
does the checks they share (is the game over, whose turn it is, is the action known and
allowed now).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games import shoe
from games.errors import BAD_RECORD, ILLEGAL_ACTION, NOT_YOUR_TURN, RulesError

# The state, event and action types are the variants' (re-exported: `engine.State`, ...).
from games.variants import VARIANTS
from games.variants import Action as Action
from games.variants import Event as Event
from games.variants import State as State
from games.variants import Variant as Variant

VARIANT_KEYS: tuple[str, ...] = tuple(VARIANTS)
TIMEOUT = "timeout"
# Keys of an event that show a card; stripped from copies meant for other viewers.
_CARD_KEYS = ("card", "cards")


def find_variant(key: str) -> Variant:
    """The registered variant `key`, or a ``bad_record`` RulesError naming the known ones."""
    found = VARIANTS.get(key)
    if found is None:
        raise RulesError(
            BAD_RECORD, f"unknown variant {key!r}: expected one of {', '.join(VARIANT_KEYS)}"
        )
    return found


_SHARED = frozenset({"rounds", "options", "seats"})


def clone(value: Any) -> Any:
    """A deep copy of JSON data (much faster than copy.deepcopy for this shape)."""
    kind = type(value)
    if kind is dict:
        return {k: clone(v) for k, v in value.items()}
    if kind is list:
        return [clone(v) for v in value]
    return value


def new_game(
    variant: str,
    *,
    seats: Sequence[dict[str, Any]],
    options: dict[str, Any] | None = None,
    first_banker: str | None = None,
    deck: Sequence[str] | None = None,
    seed: str | None = None,
) -> tuple[State, list[Event]]:
    """A game dealt up to its first decision. `deck` stacks the cards, `seed` shuffles."""
    module = find_variant(variant)
    seat_ids = [seat["id"] for seat in seats]
    if len(set(seat_ids)) != len(seat_ids):
        raise RulesError(BAD_RECORD, "seat ids must be unique")
    if first_banker is not None and first_banker not in seat_ids:
        raise RulesError(BAD_RECORD, f"first_banker {first_banker!r} is not one of the seats")
    state: State = {
        "variant": variant,
        "version": 0,
        "options": {},
        "seats": [dict(seat) for seat in seats],
        "source": shoe.new_source(deck, seed),
        "shoe": None,
        "rounds": [],
        "deltas": dict.fromkeys(seat_ids, 0),
        "finished": False,
    }
    events: list[Event] = module.setup(state, dict(options or {}), first_banker)
    return state, events


def legal_actions(state: State) -> dict[str, Any] | None:
    """Whose turn it is and what they may do: ``{"seat": id, "actions": [...]}``.

    Each action is a dict: ``{"action": "hit"}``, ``{"action": "bet", "min": 10,
    "max": 100}`` or ``{"action": "bet", "amounts": [10, 20, 50]}``. `timeout` is never
    listed; it is always allowed to the seat on turn in a variant with a clock.
    """
    if state["finished"]:
        return None
    turn: dict[str, Any] | None = find_variant(state["variant"]).legal(state)
    return turn


def _check(module: Variant, state: State, action: Action) -> None:
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise RulesError(BAD_RECORD, 'an action is an object with an "action" name')
    name = action["action"]
    if state["finished"]:
        raise RulesError(ILLEGAL_ACTION, f"the game is over: no {name!r} is possible")
    if name in module.HOST_ACTIONS:
        return
    turn: dict[str, Any] | None = module.legal(state)
    seat = action.get("seat")
    if name not in module.ACTIONS:  # no seat could play it, whoever's turn it is
        message = f"{name!r} is not an action of {state['variant']}"
        if turn is not None:
            names = ", ".join(entry["action"] for entry in turn["actions"])
            message += f"; {turn['seat']!r} may: {names}"
        raise RulesError(ILLEGAL_ACTION, message)
    why = module.unavailable(state, name)
    if why:  # the variant knows the action, but this game never allows it (e.g. live-only)
        raise RulesError(ILLEGAL_ACTION, why)
    if turn is None:
        raise RulesError(ILLEGAL_ACTION, f"nobody is to act now, so {name!r} is not allowed")
    allowed = [entry["action"] for entry in turn["actions"]]
    if seat != turn["seat"]:
        raise RulesError(
            NOT_YOUR_TURN,
            f"it is the turn of seat {turn['seat']!r}, not of {seat!r}; "
            f"{turn['seat']!r} may: {', '.join(allowed)}",
        )
    if name == TIMEOUT and module.CLOCK:
        return
    if name not in allowed:
        raise RulesError(
            ILLEGAL_ACTION, f"{name!r} is not allowed now; {seat!r} may: {', '.join(allowed)}"
        )


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """One transition: the new state and its events, or a `RulesError`."""
    module = find_variant(state["variant"])
    _check(module, state, action)
    # Settled rounds are never changed once logged, and options and seats are replaced,
    # never changed in place, so those are shared, not copied: a long session (a blackjack
    # shoe, a simulation) must not pay for its history on every move.
    work: State = {key: value if key in _SHARED else clone(value) for key, value in state.items()}
    work["rounds"] = list(state["rounds"])
    events: list[Event] = module.act(work, dict(action))
    work["version"] += 1
    return work, events


def view(state: State, seat: str | None) -> dict[str, Any]:
    """What one seat (or a spectator, `None`) may see; hidden cards are absent."""
    module = find_variant(state["variant"])
    seen: dict[str, Any] = module.view(state, seat)
    turn = legal_actions(state)
    seen["variant"] = state["variant"]
    seen["version"] = state["version"]
    seen["finished"] = state["finished"]
    seen["turn"] = turn["seat"] if turn else None
    seen["actions"] = turn["actions"] if turn and turn["seat"] == seat else []
    return seen


def events_for(events: Sequence[Event], seat: str | None) -> list[Event]:
    """The events one viewer may receive: a card dealt privately (``"to"``) goes only to
    its holder; everyone else learns that a card was dealt, not which."""
    visible: list[Event] = []
    for event in events:
        to = event.get("to")
        if to is None or to == seat:
            visible.append(event)
        else:
            visible.append({k: v for k, v in event.items() if k not in _CARD_KEYS})
    return visible


def in_play(state: State) -> dict[str, int]:
    """Chips staked and not yet settled, by the seat they belong to (a `banker36` bank, a
    bet in play). Settled results are in ``state["deltas"]``; so a seat that began with
    ``c`` chips holds ``c + deltas[seat] - in_play[seat]`` in front of it. Empty for
    variants that play for points, coins or units."""
    if state["finished"]:
        return {}
    amounts = find_variant(state["variant"]).in_play(state)
    return {seat: amount for seat, amount in amounts.items() if amount}


def result(state: State) -> dict[str, Any]:
    """The hand record's `result` object (docs/hand-record.md §4)."""
    module = find_variant(state["variant"])
    turn = legal_actions(state)
    nxt: dict[str, Any] | None = None
    if turn is not None:
        # Exactly the spec's shape: action names only (their arguments are in
        # `legal_actions`, which the live platform uses).
        nxt = {"seat": turn["seat"], "legal": [a["action"] for a in turn["actions"]]}
    return {
        "status": "finished" if state["finished"] else "awaiting_action",
        "next": nxt,
        "rounds": clone(state["rounds"]),
        "deltas": dict(state["deltas"]),
        "final": module.final(state),
    }
