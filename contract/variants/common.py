"""What the five variants' views and events share (docs/protocol.md §6.1, §12): the keys
every view has, the plain actions, a seat's chips and a hand as a settled round shows it.

A key that is sometimes absent (a card another viewer may not see, docs/protocol.md §10)
is `msgspec.UNSET` by default: the key may be left out, but when it is sent it is never
null."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import Card, Message, SeatId

Count = Annotated[int, msgspec.Meta(ge=0)]
Total = Annotated[int, msgspec.Meta(ge=0, description="a hand's total")]
Outcome = Literal["win", "loss", "push"]
# Points, chips or coins by seat id (solo adds "bank").
BySeat = dict[str, int]


class ViewBase(Message, kw_only=True):
    """The keys every `game.view` has besides the variant's own; each variant adds its
    typed `actions` (what **you** may do now, empty unless `turn` is your seat)."""

    version: Annotated[
        int, msgspec.Meta(ge=0, description="the engine's move counter in this game (0: the deal)")
    ]
    finished: Annotated[bool, msgspec.Meta(description="the game's record is played out")]
    turn: Annotated[SeatId | None, msgspec.Meta(description="the seat to act now, or null")]


class HitAction(Message, kw_only=True, tag_field="action", tag="hit"):
    """Draw a card."""


class StandAction(Message, kw_only=True, tag_field="action", tag="stand"):
    """Draw no more."""


class SeatChips(Message, kw_only=True):
    """A seat's chips in this game."""

    id: SeatId
    chips: Count


class SettledHand(Message, kw_only=True):
    """A hand of a settled deal or duel, as the hand record logs it: a player's has
    `outcome` and `delta`; the banker's has `role` instead."""

    seat: SeatId
    role: Literal["banker"] | UnsetType = UNSET
    cards: list[Card]
    total: Total
    outcome: Outcome | UnsetType = UNSET
    delta: int | UnsetType = UNSET
