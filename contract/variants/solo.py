"""`solo`'s `game.view` and engine events (docs/protocol.md §12.3). Every card here is
public: the player's is dealt face up, the banker's is absent until turned up."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import Card, Message, SeatId
from contract.variants.common import Count, HitAction, StandAction, Total, ViewBase

Banker = Literal["banker"]
GameOver = Literal["bank_broken", "player_broke", "bank_closed", "rounds_played"]
Reason = Literal[
    "bust", "golden_point", "twenty_one", "banker_bust", "higher", "tie_to_banker", "lower"
]


class SoloBetAction(Message, kw_only=True, tag_field="action", tag="bet"):
    """Bet: send `amount`, from `min` (1) to `max` (the smaller of coins and bank)."""

    min: int
    max: int


class SoloRestartAction(Message, kw_only=True, tag_field="action", tag="restart"):
    """«Начать заново»: the same cards again."""


class SoloNewGameAction(Message, kw_only=True, tag_field="action", tag="new_game"):
    """«Новая игра»: handled by the platform (§9.4)."""


class SoloNextRoundAction(Message, kw_only=True, tag_field="action", tag="next_round"):
    """«Следующая раздача»."""


SoloAction = (
    SoloBetAction
    | SoloRestartAction
    | SoloNewGameAction
    | SoloNextRoundAction
    | HitAction
    | StandAction
)


class SoloHand(Message, kw_only=True):
    cards: list[Card]
    total: Total


class SoloBanker(Message, kw_only=True):
    """`cards: []` and `hidden: 1` until turned up, then `cards` and `total`."""

    cards: list[Card]
    total: Total | UnsetType = UNSET
    hidden: Literal[1] | UnsetType = UNSET


class SoloResult(Message, kw_only=True):
    outcome: Literal["win", "loss"]
    delta: int
    reason: Reason


class SoloView(ViewBase, kw_only=True, tag_field="variant", tag="solo"):
    """One player against the computer banker, for coins."""

    actions: list[SoloAction]
    player: SeatId
    coins: Count
    bank: Count
    bet: int | None
    start_coins: int
    start_bank: int
    stuk: bool
    game_over: GameOver | None
    game: int
    phase: Literal["bet", "draw", "over"]
    hand: SoloHand
    banker: SoloBanker
    result: SoloResult | None
    rounds_total: Annotated[
        int | None,
        msgspec.Meta(description="a game of a fixed number of rounds (a tournament's heat)"),
    ]
    rounds_played: Annotated[int, msgspec.Meta(description="the rounds settled so far")]


class SoloNewGameEvent(Message, kw_only=True, tag_field="type", tag="new_game"):
    game: int
    coins: Count
    bank: Count


class SoloRoundStartEvent(Message, kw_only=True, tag_field="type", tag="round_start"):
    coins: Count
    bank: Count


class SoloDealEvent(Message, kw_only=True, tag_field="type", tag="deal"):
    """The player's card (`card`, `total`, face up) or the banker's (`face_down`)."""

    seat: SeatId
    card: Card | UnsetType = UNSET
    total: Total | UnsetType = UNSET
    face_down: Literal[True] | UnsetType = UNSET


class SoloRestartEvent(Message, kw_only=True, tag_field="type", tag="restart"):
    pass


class SoloBetEvent(Message, kw_only=True, tag_field="type", tag="bet"):
    seat: SeatId
    amount: int
    coins: Count


class SoloHitEvent(Message, kw_only=True, tag_field="type", tag="hit"):
    seat: SeatId
    card: Card
    total: Total


class SoloStandEvent(Message, kw_only=True, tag_field="type", tag="stand"):
    seat: SeatId
    total: Total


class SoloRevealEvent(Message, kw_only=True, tag_field="type", tag="reveal"):
    seat: Banker
    card: Card
    total: Total


class SoloBankerDrawEvent(Message, kw_only=True, tag_field="type", tag="banker_draw"):
    card: Card
    total: Total


class SoloSettleEvent(Message, kw_only=True, tag_field="type", tag="settle"):
    seat: SeatId
    outcome: Literal["win", "loss"]
    reason: Reason
    delta: int
    coins: Count
    bank: Count


class SoloStukEvent(Message, kw_only=True, tag_field="type", tag="stuk"):
    """The bank reached three times its start: the next round is the last."""

    bank: Count


class SoloFinishedEvent(Message, kw_only=True, tag_field="type", tag="finished"):
    reason: GameOver
    coins: Count
    bank: Count


SoloEvent = (
    SoloNewGameEvent
    | SoloRoundStartEvent
    | SoloDealEvent
    | SoloRestartEvent
    | SoloBetEvent
    | SoloHitEvent
    | SoloStandEvent
    | SoloRevealEvent
    | SoloBankerDrawEvent
    | SoloSettleEvent
    | SoloStukEvent
    | SoloFinishedEvent
)
