"""The stock a variant draws from, kept inside the (JSON) game state.

Cards come from a stacked deck first (a hand record's `deck`, validated against what is
really left in the stock), then from the record's seed. A state holds:

    state["source"] = {"stacked": "AS6H…", "seed": "…" | None}
    state["shoe"] = {"kind": "standard52", "cards": "…", "ordered": bool,
                     "shuffles": n, "drawn": "…" | None}

Card sequences are stored as concatenated two-character strings: immutable, so copying a
state is cheap even with a six-deck shoe. `cards` is the stock's composition in canonical
order until its order is known (`ordered`), then the stock in draw order.

A tool that shows a record card by card (the web's «Проверить» view) replays it inside
`recording()`, which logs every shuffle, cut, redeal, lot and card drawn, in order; the
state is untouched by it, and outside it nothing is kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from games.errors import (
    BAD_AMOUNT,
    BAD_RECORD,
    DECK_EXHAUSTED,
    ILLEGAL_ACTION,
    INVALID_DECK,
    RulesError,
)
from games.shuffle import canonical_order, draw_lot, shuffled

State = dict[str, Any]

_LOG: ContextVar[list[dict[str, Any]] | None] = ContextVar("games_shoe_log", default=None)


@contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """The draws made inside this context, in order, as entries:

    - ``{"shuffle": n, "kind": kind, "cards": [...]}`` shuffle number `n` starts from
      these cards in canonical order (a full deck or shoe, or `banker36`'s discards);
    - ``{"cut": position}`` the stock's top `position` cards go to the bottom;
    - ``{"redeal": True}`` this shuffle's drawn cards go back on top (`solo`'s
      «Начать заново»): its draws start again from its first card;
    - ``{"lot": [seat, ...], "chosen": seat}`` the first banker drawn by lot;
    - ``{"card": code}`` the next card drawn."""
    log: list[dict[str, Any]] = []
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)


def _note(entry: dict[str, Any]) -> None:
    log = _LOG.get()
    if log is not None:
        log.append(entry)


def split_cards(packed: str) -> list[str]:
    return [packed[i : i + 2] for i in range(0, len(packed), 2)]


def new_source(deck: Sequence[str] | None, seed: str | None) -> dict[str, Any]:
    return {"stacked": "".join(deck or ()), "seed": seed}


def start(state: State, kind: str, cards: Sequence[str], *, replayable: bool = False) -> None:
    """A fresh shuffle of `cards` (a full deck, a shoe, or a pile of discards).

    `replayable` keeps the cards drawn since, for `redeal` (`solo`'s «Начать заново»);
    other variants skip that bookkeeping, which would grow with every card of a shoe."""
    previous = state.get("shoe")
    number = previous["shuffles"] if previous else 0
    stock = canonical_order(cards)
    _note({"shuffle": number, "kind": kind, "cards": stock})
    state["shoe"] = {
        "kind": kind,
        "cards": "".join(stock),
        "ordered": False,
        "shuffles": number + 1,
        "drawn": "" if replayable else None,
    }


def remaining(state: State) -> int:
    return len(state["shoe"]["cards"]) // 2


def _take_stacked(shoe: dict[str, Any], card: str) -> None:
    cards: str = shoe["cards"]
    index = cards.find(card)
    while index > 0 and index % 2:  # a match across two cards' boundary is not this card
        index = cards.find(card, index + 1)  # (-1, not found, ends the search)
    if index < 0:
        raise RulesError(
            INVALID_DECK,
            f"the deck gives {card}, but no {card} is left in the stock "
            f"({len(cards) // 2} cards remain since the last shuffle)",
        )
    shoe["cards"] = cards[:index] + cards[index + 2 :]


def _order_from_seed(state: State) -> None:
    """Fix the order of what is left in the stock from the record's seed."""
    shoe = state["shoe"]
    seed = state["source"]["seed"]
    if seed is None:
        raise RulesError(
            DECK_EXHAUSTED, "the record's deck has run out and it has no seed to shuffle the rest"
        )
    shoe["cards"] = "".join(shuffled(split_cards(shoe["cards"]), seed, shoe["shuffles"] - 1))
    shoe["ordered"] = True


def cut(state: State, position: int) -> None:
    """Move the top `position` cards to the bottom (`salon`'s cut, live play only).

    A cut needs the stock's order, so it works on a seeded shoe; a stacked deck is
    already stored in its order after the cut (docs/hand-record.md §6).
    """
    shoe = state["shoe"]
    if not shoe["ordered"]:
        if state["source"]["stacked"]:
            raise RulesError(ILLEGAL_ACTION, "a stacked deck is recorded after its cut")
        _order_from_seed(state)
    count = remaining(state)
    if not 1 <= position < count:
        raise RulesError(BAD_AMOUNT, f"a cut position is from 1 to {count - 1}")
    cards: str = shoe["cards"]
    shoe["cards"] = cards[2 * position :] + cards[: 2 * position]
    _note({"cut": position})


def draw(state: State) -> str:
    """The next card: stacked first, then the seed's order, else `deck_exhausted`."""
    shoe = state["shoe"]
    source = state["source"]
    if not shoe["cards"]:
        raise RulesError(DECK_EXHAUSTED, "the stock is empty and the rules allow no reshuffle here")
    if not shoe["ordered"]:
        stacked: str = source["stacked"]
        if stacked:
            card: str = stacked[:2]
            source["stacked"] = stacked[2:]
            _take_stacked(shoe, card)
            if shoe["drawn"] is not None:
                shoe["drawn"] += card
            _note({"card": card})
            return card
        _order_from_seed(state)
    card = shoe["cards"][:2]
    shoe["cards"] = shoe["cards"][2:]
    if shoe["drawn"] is not None:
        shoe["drawn"] += card
    _note({"card": card})
    return card


def redeal(state: State) -> None:
    """Put this shuffle's drawn cards back on top, so the same order comes again."""
    shoe = state["shoe"]
    drawn: str | None = shoe["drawn"]
    if drawn is None:
        raise ValueError("redeal needs a shoe started with replayable=True")
    if shoe["ordered"]:
        shoe["cards"] = drawn + shoe["cards"]
    else:
        state["source"]["stacked"] = drawn + state["source"]["stacked"]
        shoe["cards"] = "".join(canonical_order(split_cards(shoe["cards"] + drawn)))
    shoe["drawn"] = ""
    _note({"redeal": True})


def choose_by_lot(state: State, candidates: Sequence[str], named: str | None) -> str:
    """The first banker: the record's `first_banker` if named, else a lot from the seed."""
    if named is not None:
        return named
    seed = state["source"]["seed"]
    if seed is None:
        raise RulesError(BAD_RECORD, "first_banker is required when the record has no seed")
    chosen = draw_lot(seed, candidates)
    _note({"lot": list(candidates), "chosen": chosen})
    return chosen
