"""The platform's own events (docs/protocol.md §11), in an `update`'s `events` beside the
rules engine's (each variant's, `contract.variants`)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import Message, SeatEvent, SeatId, Sha256Hex, VariantKey

GameNumber = Annotated[int, msgspec.Meta(ge=1, description="the game's number at this table")]


class SatDownEvent(Message, kw_only=True, tag_field="type", tag="sat_down"):
    """A seat was taken (`ai`: the level, for an AI)."""

    seat: SeatId
    ai: str | UnsetType = UNSET


class StoodUpEvent(Message, kw_only=True, tag_field="type", tag="stood_up"):
    """A seat was freed (`reason` "away": the reconnect grace ran out, §8.4)."""

    seat: SeatId
    reason: Literal["away"] | UnsetType = UNSET


class LeavingEvent(SeatEvent, kw_only=True, tag_field="type", tag="leaving"):
    """A player stood up (or was removed) during a game; the seat goes when it ends."""


class ReadyEvent(Message, kw_only=True, tag_field="type", tag="ready"):
    """«ready» said or taken back."""

    seat: SeatId
    ready: bool


class ShuffleContext(Message, kw_only=True):
    """What the commitment binds."""

    table: int
    shoe: GameNumber
    variant: VariantKey


class ShuffleCommitEvent(Message, kw_only=True, tag_field="type", tag="shuffle_commit"):
    """The next game was announced: its commitment, before any client seed (§9.2)."""

    game: GameNumber
    commitment: Sha256Hex
    context: ShuffleContext


class ClientSeedEvent(SeatEvent, kw_only=True, tag_field="type", tag="client_seed"):
    """That seat's client seed was accepted (not sent for the seed that completes the set)."""


class GameStartEvent(Message, kw_only=True, tag_field="type", tag="game_start"):
    """A game was dealt; its deal's events follow in the same list."""

    game: GameNumber
    commitment: Sha256Hex


class PausedEvent(Message, kw_only=True, tag_field="type", tag="paused"):
    """The game's clock was paused (§8.3)."""


class ResumedEvent(Message, kw_only=True, tag_field="type", tag="resumed"):
    """The game's clock runs again (§8.3)."""


class AwayEvent(SeatEvent, kw_only=True, tag_field="type", tag="away"):
    """The reconnect grace was granted (§8.4)."""


class WaitingForPlayersEvent(Message, kw_only=True, tag_field="type", tag="waiting_for_players"):
    """Not enough players for the next game (§9.2, §9.3)."""


class SessionEndEvent(Message, kw_only=True, tag_field="type", tag="session_end"):
    """A `blackjack` session ended (§9.4)."""


class TableClosingEvent(Message, kw_only=True, tag_field="type", tag="table_closing"):
    """The table closes once the chips in play are settled (§9.8)."""


class TableClosedEvent(Message, kw_only=True, tag_field="type", tag="table_closed"):
    """The table closed (§9.8)."""


class GameVoidedEvent(Message, kw_only=True, tag_field="type", tag="game_voided"):
    """An administrator voided the game in play."""


PlatformEvent = (
    SatDownEvent
    | StoodUpEvent
    | LeavingEvent
    | ReadyEvent
    | ShuffleCommitEvent
    | ClientSeedEvent
    | GameStartEvent
    | PausedEvent
    | ResumedEvent
    | AwayEvent
    | WaitingForPlayersEvent
    | SessionEndEvent
    | TableClosingEvent
    | TableClosedEvent
    | GameVoidedEvent
)
