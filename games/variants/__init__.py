"""One module per variant, each satisfying `Variant`, registered by key in `VARIANTS`.

`games.engine` reaches a variant only through `Variant`: mypy checks every registered
module against it (a module satisfies a Protocol structurally: its constants and functions
are the members), so a variant that drops a function or changes a signature fails
`make lint` where it is registered, not at a table.

Events are dicts with a ``type``; an event that shows a private card carries
``"to": seat`` and the card under ``card``/``cards`` (`engine.events_for` strips it for
other viewers). A hole card is dealt with an event that carries no card at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

# Imported here, not by the engine one by one, so that the registry below is the one place
# where a variant is named: the variant modules import nothing from this package's
# `__init__`, so this makes no cycle.
from games.variants import banker36, blackjack, classic, salon, solo

__all__ = ["VARIANTS", "Action", "Event", "State", "Variant"]

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]


class Variant(Protocol):
    """What the engine calls on a variant (`games.engine` does the checks they share)."""

    CLOCK: bool
    """Whether the variant has a decision clock (then `timeout` is always allowed to the
    seat on turn; the engine lets it through and the variant applies it)."""

    ACTIONS: frozenset[str]
    """Every action name the variant knows (`timeout` included where it has a clock)."""

    HOST_ACTIONS: frozenset[str]
    """Actions that name no seat and skip the turn check (`classic`'s ``remove``)."""

    def setup(self, state: State, options: dict[str, Any], first_banker: str | None) -> list[Event]:
        """Fill a fresh state (the engine has set ``variant``, ``version``, ``seats`` — a
        list of ``{"id", "chips"?}`` — ``source``, ``shoe: None``, ``rounds: []``,
        ``deltas`` — every seat at 0 — and ``finished: False``): validate and store the
        options with their defaults in ``state["options"]`` (a bad value or seat count is a
        ``bad_record`` RulesError), then play everything automatic up to the first decision
        (deal). Draw cards only with `games.shoe` (`shoe.start(state, kind, cards)` for each
        shuffle, `shoe.draw(state)` per card, in the rules' draw order)."""
        ...

    def legal(self, state: State) -> dict[str, Any] | None:
        """``{"seat": id, "actions": [...]}`` or None; called only while not finished.

        Actions are dicts: ``{"action": "hit"}``, ``{"action": "bet", "min": 1, "max":
        300}`` or ``{"action": "bet", "amounts": [...]}``. Never lists `timeout`."""
        ...

    def unavailable(self, state: State, name: str) -> str | None:
        """Why an action the variant knows is never allowed in this game, whoever sends it
        (`salon`'s live-only ``cut`` in a hand record), or None (every other variant): the
        engine reports it as an ``illegal_action`` before it checks whose turn it is."""
        ...

    def act(self, state: State, action: Action) -> list[Event]:
        """Mutate the (already copied) state; return the transition's events.

        The engine has checked that the game is not over, that ``action["seat"]`` is the
        seat on turn (except host actions) and that the action is listed by `legal` (or is
        `timeout`). Check arguments (``bad_amount``), apply, then play everything automatic
        that follows (dealer/banker draws, settling, the next round's deal) until the next
        decision or the end (then ``state["finished"] = True``). Each settled unit appends
        to ``state["rounds"]`` the spec's round object and adds to ``state["deltas"]``.
        Entries already in ``state["rounds"]`` are shared with the previous state (not
        copied): append new ones, never change old ones. Likewise ``state["options"]`` and
        ``state["seats"]`` are shared: to change a seat, replace the list (and the seat's
        dict), never mutate them in place."""
        ...

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        """What that seat (None: a spectator) may see: hidden cards absent (not masked),
        the stock, the source and the seed never included."""
        ...

    def in_play(self, state: State) -> dict[str, int]:
        """Chips staked and not yet settled, by the seat they belong to (`banker36`'s bank
        and the bet in play, `salon`'s bets of the deal); empty for the variants that play
        for points, coins or units. The live tables keep the chip ledger's escrow equal to
        it (`games.engine.in_play`)."""
        ...

    def final(self, state: State) -> dict[str, Any]:
        """The record's ``result.final`` object."""
        ...


def _registry(**variants: Variant) -> Mapping[str, Variant]:
    # Keyword arguments, not a dict display: mypy then names the member that does not
    # fit for each module (a dict display reports only "incompatible type Module").
    # A plain dict, read-only by its type: the engine looks a variant up on every call.
    return dict(variants)


VARIANTS: Mapping[str, Variant] = _registry(
    classic=classic, salon=salon, solo=solo, banker36=banker36, blackjack=blackjack
)
"""Every variant by key, in the order the documents list them."""
