"""`blackjack`'s `game.view` and engine events (docs/protocol.md §12.5). The players' cards
are dealt face up: only the dealer's hole card is ever absent."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import Card, Message, SeatId
from contract.variants.common import Count, HitAction, Outcome, StandAction, Total, ViewBase

Dealer = Literal["dealer"]
# Units: a natural pays 1.5, so a delta or a balance may have a half.
Units = Annotated[int | float, msgspec.Meta(description="units (a natural pays 1.5)")]
HandIndex = Annotated[
    int, msgspec.Meta(ge=0, description="an index into the round's hands of every seat")
]


class BlackjackDoubleAction(Message, kw_only=True, tag_field="action", tag="double"):
    """Double the wager and take one card (a two-card hand)."""


class BlackjackSplitAction(Message, kw_only=True, tag_field="action", tag="split"):
    """Split a pair (fewer than four hands)."""


BlackjackAction = HitAction | StandAction | BlackjackDoubleAction | BlackjackSplitAction


class BlackjackHand(Message, kw_only=True):
    cards: list[Card]
    total: Total
    soft: bool
    wager: Literal[1, 2]
    split: bool
    natural: bool
    done: bool
    active: bool


class BlackjackOther(Message, kw_only=True):
    """Another seat (every seat, for a spectator)."""

    seat: SeatId
    hands: list[BlackjackHand]
    splits: Count
    balance: Units


class BlackjackDealer(Message, kw_only=True):
    """The up-card alone (`hidden: 1`) while the round is in play; every card
    (`hidden: 0`) once the game's record is finished. `total` is of the cards shown."""

    cards: list[Card]
    hidden: Literal[0, 1]
    total: Total
    soft: bool


class BlackjackSettledHand(Message, kw_only=True):
    """A hand of a settled round: a player's has `outcome` and `delta`; the dealer's
    (`seat` "dealer") has neither."""

    seat: SeatId
    cards: list[Card]
    total: Total
    outcome: Outcome | UnsetType = UNSET
    delta: Units | UnsetType = UNSET


class BlackjackRoundSettled(Message, kw_only=True):
    hands: list[BlackjackSettledHand]


class BlackjackView(ViewBase, kw_only=True, tag_field="variant", tag="blackjack"):
    """European blackjack training, for units."""

    actions: list[BlackjackAction]
    seat: Annotated[SeatId | None, msgspec.Meta(description="your seat id (null: a spectator)")]
    round: int
    rounds_total: int
    hands: Annotated[list[BlackjackHand], msgspec.Meta(description="your hands")]
    hand: Annotated[
        int | None, msgspec.Meta(description="on your turn, the index in `hands` to act")
    ]
    splits: Count
    balance: Units | None
    dealer: BlackjackDealer
    others: list[BlackjackOther]
    balances: dict[str, Units]
    last_round: BlackjackRoundSettled | None


class BlackjackRoundStartEvent(Message, kw_only=True, tag_field="type", tag="round_start"):
    round: int
    new_shoe: bool


class BlackjackDealEvent(Message, kw_only=True, tag_field="type", tag="deal"):
    """A card face up (`hand`: a split hand's second card), or the dealer's hole card
    (`hole`, no card)."""

    seat: SeatId
    hand: HandIndex | UnsetType = UNSET
    card: Card | UnsetType = UNSET
    hole: Literal[True] | UnsetType = UNSET


class BlackjackHitEvent(Message, kw_only=True, tag_field="type", tag="hit"):
    seat: SeatId
    hand: HandIndex
    card: Card


class BlackjackDoubleEvent(Message, kw_only=True, tag_field="type", tag="double"):
    seat: SeatId
    hand: HandIndex
    card: Card


class BlackjackSplitEvent(Message, kw_only=True, tag_field="type", tag="split"):
    seat: SeatId
    hand: HandIndex


class BlackjackStandEvent(Message, kw_only=True, tag_field="type", tag="stand"):
    """A decision (`timeout`), or a 21 that stands by itself (`auto`)."""

    seat: SeatId
    hand: HandIndex
    timeout: bool | UnsetType = UNSET
    auto: Literal[True] | UnsetType = UNSET


class BlackjackRevealEvent(Message, kw_only=True, tag_field="type", tag="reveal"):
    """The dealer's hole card."""

    seat: Dealer
    card: Card


class BlackjackDealerDrawEvent(Message, kw_only=True, tag_field="type", tag="dealer_draw"):
    card: Card


class BlackjackSettleEvent(Message, kw_only=True, tag_field="type", tag="settle"):
    round: int
    hands: list[BlackjackSettledHand]


class BlackjackFinishedEvent(Message, kw_only=True, tag_field="type", tag="finished"):
    """The shoe ran short: the next shoe follows."""

    balances: dict[str, Units]


BlackjackEvent = (
    BlackjackRoundStartEvent
    | BlackjackDealEvent
    | BlackjackHitEvent
    | BlackjackDoubleEvent
    | BlackjackSplitEvent
    | BlackjackStandEvent
    | BlackjackRevealEvent
    | BlackjackDealerDrawEvent
    | BlackjackSettleEvent
    | BlackjackFinishedEvent
)
