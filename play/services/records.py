"""A game's hand record (docs/hand-record.md) as its row holds it: the server's own
(with the seed) and what a player may download (`public_record`). Built here, where the
game is stored: the game's result is read from it as the game ends, and the table socket
hands it out; history/ serves and replays it."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games import fairness as fair
from games import shoe as shoes
from play.models import Game
from tables.variants import SALON

# A one_shoe game's length in the engine: the shoe ends it long before.
OPEN_ENDED = 1_000_000


def game_record(game: Game) -> dict[str, Any]:
    """The game's hand record (docs/hand-record.md), with the seed: for the server's own
    use until the game is over (`public_record` is what players get)."""
    state = game.state
    options = dict(game.options)
    if options.pop("one_shoe", False):
        # The engine played this shoe open-ended (`one_shoe`, a live-only option); the
        # record states the same play with the spec's own length: the deals or rounds
        # played, and the one in progress if the record ended mid-round.
        played = len(state["rounds"]) + (0 if state["finished"] else 1)
        length = next(key for key, value in options.items() if value == OPEN_ENDED)
        options[length] = max(1, played)
    chips = game.table.variant_spec.stakes_chips
    record: dict[str, Any] = {
        "variant": game.variant,
        "options": options,
        "seats": [
            {"id": p["id"], **({"chips": p["chips"]} if chips else {})} for p in game.players
        ],
    }
    if game.first_banker:
        record["first_banker"] = game.first_banker
    record["seed"] = game.seed
    record["fairness"] = _fairness(game, revealed=True)
    record["actions"] = list(game.actions)
    return record


def _fairness(game: Game, *, revealed: bool) -> dict[str, Any]:
    return fair.fairness_object(
        server_seed=game.server_seed if revealed else None,
        commitment=game.commitment,
        context=game.context,
        client_seeds=game.client_seeds,
    )


def _cut_as_order(record: dict[str, Any], *, with_deck: bool) -> dict[str, Any]:
    """A live `salon` record as docs/hand-record.md §6 has it: the cut is live-only (in a
    record it is an `illegal_action`), and the record states the shoe in its order after
    the cut instead — `deck`, with the lot's seat as `first_banker` (required with a
    deck). The engine played the shoe with the live option `cut` and the cutter's move
    (`cut`, or the clock's `timeout`); both leave the record, and the shoe's order after
    the cut is read from the engine's own replay. `with_deck` False (a game in play): no
    deck, which would show the shoe's cards still to come."""
    if record["variant"] != SALON or not record["options"].get("cut"):
        return record
    with shoes.recording() as log:
        state, events = engine.new_game(
            SALON,
            seats=record["seats"],
            options=record["options"],
            first_banker=record.get("first_banker"),
            seed=record["seed"],
        )
        first_banker = next(event["seat"] for event in events if event["type"] == "lot")
        actions, cut = [], False
        for action in record["actions"]:
            state, events = engine.apply(state, action)
            if any(event["type"] == "cut" for event in events):
                cut = True  # the cut (and the deal it lets start) leaves the record
            else:
                actions.append(action)
        # Every card is drawn after its shoe's cut (a shoe is cut before its first deal),
        # so the cards in the order drawn — across every shoe of a record that passes the
        # bank (`banks`) — and then what is left of the last shoe are the deck as cut.
        drawn = [entry["card"] for entry in log if "card" in entry]
        deck = drawn + shoes.split_cards(state["shoe"]["cards"]) if cut else None
    stated: dict[str, Any] = {
        "variant": record["variant"],
        "options": {name: value for name, value in record["options"].items() if name != "cut"},
        "seats": record["seats"],
        "first_banker": first_banker,
    }
    if with_deck and deck is not None:
        stated["deck"] = deck
    stated.update(seed=record["seed"], fairness=record["fairness"], actions=actions)
    return stated


def record_sealed_message() -> str:
    return _("Запись этой раздачи откроется, когда закончится турнир: те же карты ещё сдают.")


class RecordSealed(Exception):
    """A tournament's duplicate shoe, over at this table but still dealt at others: its
    record (which would show its seed) is published when the tournament ends."""


def public_record(game: Game) -> dict[str, Any]:
    """What a player may download: the record with its result once the game is over; the
    seed stays out while the game is in play. RecordSealed for a sealed duplicate shoe."""
    if game.sealed:
        raise RecordSealed(game.pk)
    record = _cut_as_order(game_record(game), with_deck=not game.is_playing)
    if game.is_playing:
        record.pop("seed")
        record["fairness"] = _fairness(game, revealed=False)
        record["result"] = None
    else:
        record["result"] = game.result
    record["table"] = {"id": game.table_id, "game": game.number, "status": game.status}
    return record
