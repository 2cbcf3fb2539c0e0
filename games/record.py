"""Hand records (docs/hand-record.md): replay a game from a stacked deck or a seed."""

from __future__ import annotations

import json
from typing import Any

from games import engine
from games import fairness as fair
from games.cards import parse_card
from games.errors import BAD_RECORD, FAIRNESS_MISMATCH, RulesError

Record = dict[str, Any]


class ReplayError(Exception):
    """A record that cannot be replayed; `error` is the spec's error object."""

    def __init__(self, error: RulesError, action_index: int | None) -> None:
        super().__init__(error.message)
        self.error = {"code": error.code, "message": error.message, "action_index": action_index}


def _bad(message: str) -> RulesError:
    return RulesError(BAD_RECORD, message)


def _parse(record: object) -> dict[str, Any]:
    """Check the record's shape; return the arguments of `engine.new_game`."""
    if not isinstance(record, dict):
        raise _bad("a hand record is a JSON object")
    variant = record.get("variant")
    if not isinstance(variant, str):
        raise _bad('"variant" is required: one of ' + ", ".join(engine.VARIANT_KEYS))
    engine.find_variant(variant)
    options = record.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _bad('"options" must be an object')
    seats = record.get("seats")
    if not isinstance(seats, list) or not seats:
        raise _bad('"seats" must be a non-empty list of {"id": ...} objects')
    for seat in seats:
        if not isinstance(seat, dict) or not isinstance(seat.get("id"), str) or not seat["id"]:
            raise _bad('every seat is an object with a non-empty string "id"')
        chips = seat.get("chips")
        if chips is not None and (type(chips) is not int or chips < 0):
            raise _bad(f"seat {seat['id']!r}: chips must be a whole number ≥ 0")
    first_banker = record.get("first_banker")
    if first_banker is not None and not isinstance(first_banker, str):
        raise _bad('"first_banker" must be a seat id')
    deck = record.get("deck")
    if deck is not None and not isinstance(deck, list):
        raise _bad('"deck" must be a list of cards')
    seed = record.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise _bad('"seed" must be a string')
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise _bad('"actions" must be a list')
    if "fairness" in record:
        problem = fair.problem(record["fairness"], seed, variant)
        if problem is not None:
            raise RulesError(FAIRNESS_MISMATCH, problem)
    # A malformed action is reported when play reaches it, with its index (engine._check).
    return {
        "variant": variant,
        "options": options,
        "seats": seats,
        "first_banker": first_banker,
        "deck": [parse_card(card) for card in deck] if deck is not None else None,
        "seed": seed,
    }


def replay(record: object) -> Record:
    """The completed record (the input plus `result`), or a `ReplayError`."""
    try:
        arguments = _parse(record)
        state, _ = engine.new_game(**arguments)
    except RulesError as error:
        raise ReplayError(error, None) from error
    assert isinstance(record, dict)
    for index, action in enumerate(record.get("actions") or []):
        try:
            state, _ = engine.apply(state, action)
        except RulesError as error:
            raise ReplayError(error, index) from error
    completed = dict(record)
    completed["result"] = engine.result(state)
    return completed


def replay_text(text: str) -> tuple[Record, int]:
    """The replay command's output object and exit status for a record's JSON text."""
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return {
            "error": {
                "code": BAD_RECORD,
                "message": f"the record is not valid JSON: {error}",
                "action_index": None,
            }
        }, 1
    try:
        return replay(record), 0
    except ReplayError as error:
        return {"error": error.error}, 1
