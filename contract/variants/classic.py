"""`classic`'s `game.view` and engine events (docs/protocol.md §12.1)."""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, UnsetType

from contract.base import Card, CardToSeatEvent, Message, SeatEvent, SeatId
from contract.variants.common import (
    BySeat,
    Count,
    HitAction,
    Outcome,
    StandAction,
    Total,
    ViewBase,
)

Dealer = Literal["dealer"]
ClassicAction = HitAction | StandAction


class ClassicSettledHand(Message, kw_only=True):
    """A hand of a settled round, shown: a player's has `outcome` and `delta` (points);
    the dealer's (`seat` "dealer") has neither."""

    seat: SeatId
    cards: list[Card]
    total: Total
    outcome: Outcome | UnsetType = UNSET
    delta: int | UnsetType = UNSET


class ClassicRoundSettled(Message, kw_only=True):
    hands: list[ClassicSettledHand]


class ClassicHand(Message, kw_only=True):
    """A player's hand in the round in play: its card count for everyone; the cards, the
    total and its flags only in the hand's own seat's view."""

    seat: SeatId
    count: Count
    cards: list[Card] | UnsetType = UNSET
    total: Total | UnsetType = UNSET
    soft: bool | UnsetType = UNSET
    natural: bool | UnsetType = UNSET


class ClassicDealerUp(Message, kw_only=True):
    """The dealer's up-card; the hole card is absent."""

    cards: list[Card]
    hidden: Literal[1]


class ClassicRoundInPlay(Message, kw_only=True):
    number: int
    first: SeatId
    order: list[SeatId]
    hands: list[ClassicHand]
    dealer: ClassicDealerUp


class ClassicView(ViewBase, kw_only=True, tag_field="variant", tag="classic"):
    """A match against the dealer, for points."""

    actions: list[ClassicAction]
    rounds_total: Literal[5, 7, 10]
    rounds_played: Count
    table: list[SeatId]
    players: list[SeatId]
    removed: list[SeatId]
    scores: BySeat
    winners: list[SeatId] | None
    last_round: ClassicRoundSettled | None
    round: ClassicRoundInPlay | None


class ClassicRoundStartEvent(Message, kw_only=True, tag_field="type", tag="round_start"):
    round: int
    order: list[SeatId]


class ClassicDealEvent(Message, kw_only=True, tag_field="type", tag="deal"):
    """A player's card (`to`: its holder; `card` only in the holder's copy), the dealer's
    up-card (`card`) or the dealer's hole card (`hole`, no card)."""

    seat: SeatId
    to: SeatId | UnsetType = UNSET
    card: Card | UnsetType = UNSET
    hole: Literal[True] | UnsetType = UNSET


class ClassicTurnEvent(SeatEvent, kw_only=True, tag_field="type", tag="turn"):
    """A decision starts, with a fresh clock."""


class ClassicHitEvent(CardToSeatEvent, kw_only=True, tag_field="type", tag="hit"):
    pass


class ClassicHandOverEvent(SeatEvent, kw_only=True, tag_field="type", tag="hand_over"):
    """21 or a bust ended the hand (which, is not said)."""


class ClassicStandEvent(Message, kw_only=True, tag_field="type", tag="stand"):
    seat: SeatId
    timeout: bool


class ClassicRevealEvent(Message, kw_only=True, tag_field="type", tag="reveal"):
    """The dealer's hole card."""

    seat: Dealer
    card: Card
    total: Total


class ClassicDealerDrawEvent(Message, kw_only=True, tag_field="type", tag="dealer_draw"):
    card: Card
    total: Total


class ClassicSettleEvent(Message, kw_only=True, tag_field="type", tag="settle"):
    round: int
    hands: list[ClassicSettledHand]
    scores: BySeat


class ClassicRemoveEvent(Message, kw_only=True, tag_field="type", tag="remove"):
    """The host removed a player."""

    target: SeatId


class ClassicFinishedEvent(Message, kw_only=True, tag_field="type", tag="finished"):
    scores: BySeat
    winners: list[SeatId] | None


ClassicEvent = (
    ClassicRoundStartEvent
    | ClassicDealEvent
    | ClassicTurnEvent
    | ClassicHitEvent
    | ClassicHandOverEvent
    | ClassicStandEvent
    | ClassicRevealEvent
    | ClassicDealerDrawEvent
    | ClassicSettleEvent
    | ClassicRemoveEvent
    | ClassicFinishedEvent
)
