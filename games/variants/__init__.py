"""One module per variant, registered by key in `games.engine.VARIANT_KEYS`.

Every variant module provides:

``CLOCK: bool``
    Whether the variant has a decision clock (then `timeout` is always allowed to the seat
    on turn; the engine lets it through and the variant applies it).
``ACTIONS: frozenset[str]``
    Every action name the variant knows (`timeout` included where it has a clock).
``HOST_ACTIONS: frozenset[str]``
    Actions that name no seat and skip the turn check (`classic`'s ``remove``).
``unavailable(state, name) -> str | None`` (optional)
    Why an action the variant knows is never allowed in this game, whoever sends it
    (`salon`'s live-only ``cut`` in a hand record): the engine reports it as an
    ``illegal_action`` before it checks whose turn it is.
``setup(state, options, first_banker) -> list[Event]``
    Fill a fresh state (the engine has set ``variant``, ``version``, ``seats`` — a list of
    ``{"id", "chips"?}`` — ``source``, ``shoe: None``, ``rounds: []``, ``deltas`` — every
    seat at 0 — and ``finished: False``): validate and store the options with their
    defaults in ``state["options"]`` (a bad value or seat count is a ``bad_record``
    RulesError), then play everything automatic up to the first decision (deal). Draw
    cards only with `games.shoe` (`shoe.start(state, kind, cards)` for each shuffle,
    `shoe.draw(state)` per card, in the rules' draw order).
``legal(state) -> {"seat": id, "actions": [...]} | None``
    Called only while not finished. Actions are dicts: ``{"action": "hit"}``,
    ``{"action": "bet", "min": 1, "max": 300}`` or ``{"action": "bet", "amounts": [...]}``.
    Never list `timeout`.
``act(state, action) -> list[Event]``
    Mutate the (already copied) state. The engine has checked that the game is not over,
    that ``action["seat"]`` is the seat on turn (except host actions) and that the action
    is listed by `legal` (or is `timeout`). Check arguments (``bad_amount``), apply, then
    play everything automatic that follows (dealer/banker draws, settling, the next
    round's deal) until the next decision or the end (then ``state["finished"] = True``).
    Each settled unit appends to ``state["rounds"]`` the spec's round object and adds to
    ``state["deltas"]``. Entries already in ``state["rounds"]`` are shared with the
    previous state (not copied): append new ones, never change old ones. Likewise
    ``state["options"]`` and ``state["seats"]`` are shared: to change a seat, replace the
    list (and the seat's dict), never mutate them in place.
``view(state, seat | None) -> dict``
    What that seat may see: hidden cards absent (not masked), the stock, the source and
    the seed never included.
``in_play(state) -> dict[str, int]`` (optional; variants that stake chips)
    Chips staked and not yet settled, by the seat they belong to (`banker36`'s bank and
    the bet in play, `salon`'s bets of the deal). The live tables keep the chip ledger's
    escrow equal to it (`games.engine.in_play`).
``final(state) -> dict``
    The record's ``result.final`` object.

Events are dicts with a ``type``; an event that shows a private card carries
``"to": seat`` and the card under ``card``/``cards`` (`engine.events_for` strips it for
other viewers). A hole card is dealt with an event that carries no card at all.
"""
