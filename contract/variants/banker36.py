"""`banker36`'s `game.view` and engine events (docs/protocol.md §12.4)."""

from __future__ import annotations

from typing import Literal

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

Reason = Literal["bust", "twenty_one", "banker_bust", "higher", "tie_to_banker", "lower"]


class Banker36BetAction(Message, kw_only=True, tag_field="action", tag="bet"):
    """Bet: send `amount`, one of `amounts` (1×, 2×, 5× the stake and the whole bank,
    each within your chips and the bank)."""

    amounts: list[int]


Banker36Action = Banker36BetAction | HitAction | StandAction


class Banker36DuelSettled(Message, kw_only=True):
    """The last settled duel, as in the hand record: the two hands and the bank after it."""

    hands: list[SettledHand]
    bank: Count


class Banker36Hand(Message, kw_only=True):
    """A player's hand in the circle: `cards` and `total` when it is yours or settled,
    else `cards: []` and `hidden`."""

    seat: SeatId
    status: Literal["waiting", "playing", "settled", "sat_out", "unplayed"]
    cards: list[Card]
    total: Total | UnsetType = UNSET
    hidden: Count | UnsetType = UNSET


class Banker36DuelInPlay(Message, kw_only=True):
    """The duel being played; the banker's cards are public."""

    seat: SeatId
    bet: int | None
    banker_cards: list[Card]
    banker_total: Total


class Banker36Circle(Message, kw_only=True):
    number: Literal[1, 2]
    hands: list[Banker36Hand]
    duel: Banker36DuelInPlay | None


class Banker36View(ViewBase, kw_only=True, tag_field="variant", tag="banker36"):
    """«Очко» with a player's bank, for chips."""

    actions: list[Banker36Action]
    stake: int
    entry_limit: int
    banks: int
    banks_played: Count
    seats: list[SeatChips]
    banker: SeatId
    bank: Count
    stuk_called: bool
    deltas: BySeat
    last_duel: Banker36DuelSettled | None
    circle: Banker36Circle | None


class Banker36BankOpenEvent(Message, kw_only=True, tag_field="type", tag="bank_open"):
    banker: SeatId
    bank: Count
    number: int


class Banker36CircleStartEvent(Message, kw_only=True, tag_field="type", tag="circle_start"):
    banker: SeatId
    bank: Count
    circle: Literal[1, 2]
    order: list[SeatId]


class Banker36DealEvent(CardToSeatEvent, kw_only=True, tag_field="type", tag="deal"):
    """A player's card; `card` only in the holder's copy."""


class Banker36TurnEvent(SeatEvent, kw_only=True, tag_field="type", tag="turn"):
    pass


class Banker36BetEvent(Message, kw_only=True, tag_field="type", tag="bet"):
    seat: SeatId
    amount: int
    all_in: bool


class Banker36HitEvent(CardToSeatEvent, kw_only=True, tag_field="type", tag="hit"):
    """No total: it would tell the hand."""


class Banker36StandEvent(Message, kw_only=True, tag_field="type", tag="stand"):
    seat: SeatId
    timeout: bool


class Banker36BankerDrawEvent(Message, kw_only=True, tag_field="type", tag="banker_draw"):
    seat: SeatId
    card: Card
    total: Total


class Banker36RevealEvent(Message, kw_only=True, tag_field="type", tag="reveal"):
    """The duel's player hand, at its settle."""

    seat: SeatId
    cards: list[Card]
    total: Total


class Banker36SettleEvent(Message, kw_only=True, tag_field="type", tag="settle"):
    seat: SeatId
    outcome: Literal["win", "loss"]
    reason: Reason
    delta: int
    bank: Count


class Banker36SitOutEvent(Message, kw_only=True, tag_field="type", tag="sit_out"):
    seat: SeatId
    reason: Literal["cannot_afford", "timeout"]


class Banker36ReshuffleEvent(Message, kw_only=True, tag_field="type", tag="reshuffle"):
    count: Count


class Banker36StukEvent(Message, kw_only=True, tag_field="type", tag="stuk"):
    banker: SeatId
    bank: Count


class Banker36CollectEvent(Message, kw_only=True, tag_field="type", tag="collect"):
    banker: SeatId
    amount: Count


class Banker36BankBrokenEvent(Message, kw_only=True, tag_field="type", tag="bank_broken"):
    banker: SeatId


class Banker36FinishedEvent(Message, kw_only=True, tag_field="type", tag="finished"):
    reason: Literal["banks_played", "no_banker"]
    deltas: BySeat


Banker36Event = (
    Banker36BankOpenEvent
    | Banker36CircleStartEvent
    | Banker36DealEvent
    | Banker36TurnEvent
    | Banker36BetEvent
    | Banker36HitEvent
    | Banker36StandEvent
    | Banker36BankerDrawEvent
    | Banker36RevealEvent
    | Banker36SettleEvent
    | Banker36SitOutEvent
    | Banker36ReshuffleEvent
    | Banker36StukEvent
    | Banker36CollectEvent
    | Banker36BankBrokenEvent
    | Banker36FinishedEvent
)
