"""Two entrants' heats side by side (docs/tournaments.md, «Comparing heats»): round by
round, each entrant's hands as they ended and the house's (classic's and blackjack's
dealer, solo's banker), from the heats' stored games. Every heat deals round r from the
same shuffle, so both started each round with the same cards, and what differs is what
each decided."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from play.models import Game

SUITS = {"S": ("♠", False), "H": ("♥", True), "D": ("♦", True), "C": ("♣", False)}


@dataclass(frozen=True)
class Card:
    rank: str
    suit: str
    red: bool


@dataclass(frozen=True)
class Hand:
    cards: list[Card]
    total: int
    outcome: str  # win, loss, push
    delta: float


# The house's hand in a round entry of the hand record (docs/hand-record.md §4.2).
HOUSE_SEATS = ("dealer", "banker")


@dataclass(frozen=True)
class Side:
    hands: list[Hand]
    dealer: list[Card]
    dealer_total: int
    house: str  # "dealer" or "banker": who the entrant played against


@dataclass(frozen=True)
class Round:
    number: int
    sides: tuple[Side | None, Side | None]


def card(code: str) -> Card:
    rank = "10" if code[0] == "T" else code[0]
    symbol, red = SUITS[code[1]]
    return Card(rank, symbol, red)


def _side(played: dict[str, Any], seat: str) -> Side:
    hands = [h for h in played["hands"] if h["seat"] == seat]
    dealer = next(h for h in played["hands"] if h["seat"] in HOUSE_SEATS)
    return Side(
        hands=[
            Hand([card(c) for c in h["cards"]], h["total"], h["outcome"], h["delta"]) for h in hands
        ],
        dealer=[card(c) for c in dealer["cards"]],
        dealer_total=dealer["total"],
        house=dealer["seat"],
    )


def rounds_side_by_side(first: Game, second: Game) -> list[Round]:
    """The settled rounds of two heats' games, paired by number (a heat that ended early
    leaves its side empty)."""
    seat_a, seat_b = first.players[0]["id"], second.players[0]["id"]
    pairs = zip_longest(first.state["rounds"], second.state["rounds"])
    return [
        Round(
            number=n,
            sides=(
                _side(a, seat_a) if a is not None else None,
                _side(b, seat_b) if b is not None else None,
            ),
        )
        for n, (a, b) in enumerate(pairs, start=1)
    ]
