"""`salon`'s `game.view` and engine events (docs/protocol.md §12.2)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import Card, CardToSeatEvent, Message, SeatEvent, SeatId
from contract.variants.common import (
    BySeat,
    Count,
    HitAction,
    SeatChips,
    SettledHand,
    StandAction,
    Total,
    ViewBase,
)


class SalonCutAction(Message, kw_only=True, tag_field="action", tag="cut"):
    """Cut the shoe: send `position`, the cards moved from the top to the bottom."""

    min: int
    max: int


class SalonBetAction(Message, kw_only=True, tag_field="action", tag="bet"):
    """Bet: send `amount` (`max` shrinks to what the bank can still cover)."""

    min: int
    max: int


SalonAction = SalonCutAction | SalonBetAction | HitAction | StandAction


class SalonOptions(Message, kw_only=True):
    """The engine's options; `deals` is open-ended at live tables."""

    min_bet: int
    max_bet: int
    deals: int
    cut: bool
    one_shoe: bool


class SalonShoe(Message, kw_only=True):
    number: int
    remaining: Count


class SalonHand(Message, kw_only=True):
    """A hand of the deal in progress: `cards` and `total` for your own, `cards: []` and
    `hidden` for another's; a ponter's has `bet` and `sat_out`, the banker's `role`."""

    seat: SeatId
    role: Literal["banker"] | UnsetType = UNSET
    bet: int | UnsetType | None = UNSET
    sat_out: bool | UnsetType = UNSET
    cards: list[Card]
    total: Total | UnsetType = UNSET
    hidden: Count | UnsetType = UNSET


class SalonDealInPlay(Message, kw_only=True):
    number: int
    hands: list[SalonHand]


class SalonDealSettled(Message, kw_only=True):
    hands: list[SettledHand]


Phase = Literal["cut", "bet", "ponters", "banker", "start", "over"]


class SalonView(ViewBase, kw_only=True, tag_field="variant", tag="salon"):
    """The salon game, for chips."""

    actions: list[SalonAction]
    options: SalonOptions
    seats: list[SeatChips]
    banker: Annotated[
        SeatId | None, msgspec.Meta(description="null once nobody could hold the bank")
    ]
    phase: Phase
    cutter: SeatId | None
    shoe: SalonShoe | None
    deal: SalonDealInPlay | None
    last_round: SalonDealSettled | None
    deltas: BySeat


class SalonLotEvent(SeatEvent, kw_only=True, tag_field="type", tag="lot"):
    """The game's first banker."""


class SalonBankEvent(Message, kw_only=True, tag_field="type", tag="bank"):
    """The seat drawn by lot could not hold the bank: it went on to another seat (`seat`
    null when nobody can). A live game is one shoe: a short banker or the shoe's end
    finishes it instead of passing the bank."""

    seat: SeatId | None
    reason: Literal["lot"]


class SalonShuffleEvent(Message, kw_only=True, tag_field="type", tag="shuffle"):
    shoe: int
    banker: SeatId


class SalonCutEvent(Message, kw_only=True, tag_field="type", tag="cut"):
    seat: SeatId
    position: int
    by: Literal["server"] | UnsetType = UNSET


class SalonRoundStartEvent(Message, kw_only=True, tag_field="type", tag="round_start"):
    deal: int
    banker: SeatId
    ponters: list[SeatId]


class SalonDealEvent(Message, kw_only=True, tag_field="type", tag="deal"):
    """A hand's two cards; `cards` only in the holder's copy."""

    seat: SeatId
    to: SeatId
    cards: list[Card] | UnsetType = UNSET


class SalonBetEvent(Message, kw_only=True, tag_field="type", tag="bet"):
    seat: SeatId
    amount: int


class SalonSitOutEvent(Message, kw_only=True, tag_field="type", tag="sit_out"):
    seat: SeatId
    reason: Literal["timeout", "bank_cannot_cover"]


class SalonRevealEvent(Message, kw_only=True, tag_field="type", tag="reveal"):
    """A banker's natural: it takes every stake."""

    seat: SeatId
    cards: list[Card]
    natural: Literal[True]


class SalonHitEvent(CardToSeatEvent, kw_only=True, tag_field="type", tag="hit"):
    pass


class SalonHandEndEvent(SeatEvent, kw_only=True, tag_field="type", tag="hand_end"):
    """21, a bust or the fifth card ended the hand (which, is not said)."""


class SalonStandEvent(SeatEvent, kw_only=True, tag_field="type", tag="stand"):
    pass


class SalonSettleEvent(Message, kw_only=True, tag_field="type", tag="settle"):
    deal: int
    banker: SeatId
    hands: list[SettledHand]


class SalonShoeEndEvent(Message, kw_only=True, tag_field="type", tag="shoe_end"):
    remaining: Count


class SalonFinishedEvent(Message, kw_only=True, tag_field="type", tag="finished"):
    reason: Literal["shoe_end", "banker_short", "nobody_can_hold_the_bank", "no_ponter_can_bet"]
    banker: SeatId | None


SalonEvent = (
    SalonLotEvent
    | SalonBankEvent
    | SalonShuffleEvent
    | SalonCutEvent
    | SalonRoundStartEvent
    | SalonDealEvent
    | SalonBetEvent
    | SalonSitOutEvent
    | SalonRevealEvent
    | SalonHitEvent
    | SalonHandEndEvent
    | SalonStandEvent
    | SalonSettleEvent
    | SalonShoeEndEvent
    | SalonFinishedEvent
)
