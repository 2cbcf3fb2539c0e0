"""What a table socket sends its client (docs/protocol.md §6, §13, §17.2): one definition
per `type`. Every frame carries `version` (§7): the picture's in a `snapshot` or an
`update`, the table's at the moment of sending in any other frame."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import (
    Card,
    CommandId,
    EpochMs,
    Message,
    SeatId,
    Sha256Hex,
    TableVersion,
    VariantKey,
)
from contract.codes import ErrorCode, LimitKey
from contract.registry import SocketMessage, summary
from contract.variants import View

# --- `snapshot` and `update` (§6.1) ----------------------------------------------------


class ShoeContext(Message, kw_only=True):
    """What a commitment binds: the hand record's `fairness.context` (§15)."""

    table: int
    shoe: Annotated[int, msgspec.Meta(description="the game's number at its table")]
    variant: VariantKey


class Pending(Message, kw_only=True):
    """The next game, announced and waiting for its players' client seeds (§9.2). Never
    the server seed."""

    game: Annotated[int, msgspec.Meta(description="the announced game's number at this table")]
    commitment: Annotated[Sha256Hex, msgspec.Meta(description="SHA-256 of the commitment text")]
    context: ShoeContext
    seats: Annotated[
        list[SeatId], msgspec.Meta(description="the seats it was announced for, in table order")
    ]
    given: Annotated[
        list[SeatId], msgspec.Meta(description="the seats whose client seed was accepted, sorted")
    ]
    deal_at: Annotated[
        EpochMs, msgspec.Meta(description="when the cards are dealt without the missing seeds")
    ]


class TableSeat(Message, kw_only=True):
    """An occupied seat."""

    number: Annotated[int, msgspec.Meta(ge=1)]
    id: SeatId
    name: Annotated[str, msgspec.Meta(description="the user name, or an AI label")]
    ai: Annotated[str | None, msgspec.Meta(description="the AI level; null for a person")]
    bot: Annotated[bool, msgspec.Meta(description="a bot account's seat (shown «бот»)")]
    ready: bool
    leaving: Annotated[bool, msgspec.Meta(description="stood up during the game in play")]
    connected: Annotated[
        bool, msgspec.Meta(description="had an open connection when the frame was built")
    ]
    away_since: Annotated[
        EpochMs | None, msgspec.Meta(description="since when without a connection; null if none")
    ]


# The table's rule options, per variant: `classic` {rounds}; `salon` {min_bet, max_bet};
# `solo` {start_coins, start_bank}; `banker36` {stake, entry_limit}; `blackjack` {}. Not a
# union of per-variant types: the variant is told by `table.variant`, beside the object.
TableOptions = Annotated[
    dict[str, int],
    msgspec.Meta(
        description="classic {rounds}; salon {min_bet, max_bet}; solo {start_coins, "
        "start_bank}; banker36 {stake, entry_limit}; blackjack {}"
    ),
]


class TableInfo(Message, kw_only=True):
    """The table, the same for every viewer."""

    id: int
    name: str
    variant: VariantKey
    status: Literal["open", "closed"]
    closing: Annotated[bool, msgspec.Meta(description="a close waits for the chips in play")]
    private: bool
    seat_count: int
    options: TableOptions
    entry_limit: Annotated[int, msgspec.Meta(description="chips a wallet needs to sit down")]
    decision_seconds: int
    reconnect_grace_seconds: int
    host: Annotated[str | None, msgspec.Meta(description="the host's user name")]
    bots: Annotated[bool, msgspec.Meta(description="whether bot accounts may sit here")]
    next_game_at: Annotated[
        EpochMs | None, msgspec.Meta(description="when the next game is announced by itself")
    ]
    pending: Pending | None
    seats: Annotated[list[TableSeat], msgspec.Meta(description="occupied seats, by number")]


class You(Message, kw_only=True):
    seat: Annotated[SeatId | None, msgspec.Meta(description="your seat id while you sit here")]
    in_game: Annotated[bool, msgspec.Meta(description="your seat plays the game in play")]


class SeatClientSeed(Message, kw_only=True):
    seat: SeatId
    seed: Annotated[str, msgspec.Meta(pattern="^[A-Za-z0-9_-]{1,64}$")]


class GameInfo(Message, kw_only=True):
    """The game in play; between games the last one played."""

    id: Annotated[int, msgspec.Meta(description="site-wide: for the HTTP download")]
    number: Annotated[int, msgspec.Meta(description="the game's number at this table")]
    status: Annotated[
        Literal["playing", "finished", "voided"],
        msgspec.Meta(description="the authority on whether the game is in play"),
    ]
    commitment: Sha256Hex
    context: Annotated[
        ShoeContext,
        msgspec.Meta(
            description="what the commitment binds: this table and the game's number, or a "
            "tournament's duplicate shoe (table: minus the tournament's id)"
        ),
    ]
    seed: Annotated[
        Sha256Hex | None,
        msgspec.Meta(description="null while playing, and for a sealed tournament shoe"),
    ]
    server_seed: Annotated[
        Sha256Hex | None,
        msgspec.Meta(description="null while playing, and for a sealed tournament shoe"),
    ]
    client_seeds: Annotated[list[SeatClientSeed], msgspec.Meta(description="in seat order")]
    result: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(description="once over, the hand record's `result`; null while playing"),
    ]
    seats: Annotated[list[SeatId], msgspec.Meta(description="the seats playing, in table order")]
    carry: Annotated[
        dict[str, int | float],
        msgspec.Meta(description="blackjack: units carried in from the session's earlier shoes"),
    ]
    deadline: Annotated[
        EpochMs | None, msgspec.Meta(description="when the running decision's clock runs out")
    ]
    clock_starts: Annotated[
        EpochMs | None,
        msgspec.Meta(description="when that clock starts, if after the move that began it"),
    ]
    deadline_seat: Annotated[SeatId | None, msgspec.Meta(description="whose decision runs")]
    paused: bool
    paused_remaining_ms: int | None
    view: Annotated[View, msgspec.Meta(description="the game as your seat may see it (§12)")]


# An event of the table's variant or of the platform: which definitions apply depends on
# `table.variant` (contract.variants.EVENTS_BY_VARIANT), since variants send events of one
# `type` with other fields. The specs list them per variant (contract.spec); the tests read
# each event by its variant's (tests/contract/frames.py).
Event = dict[str, Any]


class HistoryEntry(Message, kw_only=True):
    """One of the game's own transitions."""

    version: Annotated[int, msgspec.Meta(description="the game's `view.version` after it")]
    at: Annotated[EpochMs, msgspec.Meta(description="when it was made")]
    events: list[Event]


class TablePicture(Message, kw_only=True):
    version: TableVersion
    server_time: Annotated[EpochMs, msgspec.Meta(description="when the frame was built")]
    table: TableInfo
    you: You
    game: Annotated[
        GameInfo | None,
        msgspec.Meta(description="the game in play, else the last one; null if never one"),
    ]


class Snapshot(TablePicture, kw_only=True, tag_field="type", tag="snapshot"):
    """The whole table as this connection may see it: first on every connection, and on
    request."""

    history: Annotated[
        list[HistoryEntry],
        msgspec.Meta(description="the shown game's latest transitions (≤ 60), oldest first"),
    ]


class Update(TablePicture, kw_only=True, tag_field="type", tag="update"):
    """One change of the table (its version one more), with what happened in it."""

    events: list[Event]
    at: Annotated[
        EpochMs | UnsetType,
        msgspec.Meta(description="when the game's transition was made (only for one)"),
    ] = UNSET


# --- answers (§6.2–§6.5) ---------------------------------------------------------------


class Ack(Message, kw_only=True, tag_field="type", tag="ack"):
    """The command with this `id` was accepted; its outcome fields per command (§5.2)."""

    id: CommandId
    version: TableVersion
    seat: Annotated[SeatId | UnsetType, msgspec.Meta(description="sit, add_ai: the seat")] = UNSET
    game: Annotated[
        int | UnsetType, msgspec.Meta(description="start, client_seed: the announced game")
    ] = UNSET
    closing: Annotated[
        Literal[True] | UnsetType, msgspec.Meta(description="close: the close waits (§9.8)")
    ] = UNSET
    chat: Annotated[int | UnsetType, msgspec.Meta(description="chat: the message's id")] = UNSET
    repeat: Annotated[
        Literal[True] | UnsetType, msgspec.Meta(description="an earlier acceptance's answer (§5.4)")
    ] = UNSET


class Error(Message, kw_only=True, tag_field="type", tag="error"):
    """A refusal (§6.3): nothing changed."""

    code: ErrorCode
    message: Annotated[str, msgspec.Meta(description="human text: never parse it")]
    # Present when the refused message carried a usable id (§6.3); `not_signed_in`
    # always has one, null when the message's was unusable.
    id: Annotated[
        str | UnsetType | None,
        msgspec.Meta(description="the refused message's id, when it had one"),
    ] = UNSET
    version: Annotated[
        TableVersion | None, msgspec.Meta(description="null when it could not be read")
    ]
    limit: Annotated[
        LimitKey | UnsetType,
        msgspec.Meta(description="`rate_limited`, `too_many_connections`: the limit (§3)"),
    ] = UNSET
    retry_after: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1, description="with `limit` (not `open_tables`): whole seconds to wait"
            ),
        ]
        | UnsetType
    ) = UNSET
    field: Annotated[
        str | UnsetType, msgspec.Meta(description="bad_message: the offending field")
    ] = UNSET


class Pong(Message, kw_only=True, tag_field="type", tag="pong"):
    """The answer to `ping`."""

    version: TableVersion


class RecordSeat(Message, kw_only=True):
    id: SeatId
    chips: Annotated[
        int | UnsetType, msgspec.Meta(description="salon, banker36: the wallet at the deal")
    ] = UNSET


class Fairness(Message, kw_only=True):
    algorithm: Literal["mixed-hmac-sha256/1"]
    commitment: Sha256Hex
    server_seed: Annotated[Sha256Hex | None, msgspec.Meta(description="null while playing")]
    client_seeds: list[SeatClientSeed]
    nonce: int
    context: ShoeContext


class RecordTable(Message, kw_only=True):
    id: int
    game: int
    status: Literal["playing", "finished", "voided"]


class RecordAction(Message, kw_only=True):
    """One move of the record (docs/hand-record.md §3.8)."""

    action: str
    seat: Annotated[
        SeatId | UnsetType, msgspec.Meta(description="absent for a host's `remove`")
    ] = UNSET
    amount: int | UnsetType = UNSET
    target: Annotated[SeatId | UnsetType, msgspec.Meta(description="remove: the seat")] = UNSET
    position: int | UnsetType = UNSET


class HandRecord(Message, kw_only=True):
    """A game's hand record (§15, docs/hand-record.md) plus `table`."""

    variant: VariantKey
    options: Annotated[
        dict[str, int | bool],
        msgspec.Meta(
            description="the variant's options (a tournament's heat: blackjack's fresh_shoe, "
            "classic's one_player: true; solo's rounds)"
        ),
    ]
    seats: list[RecordSeat]
    first_banker: SeatId | UnsetType = UNSET
    deck: Annotated[
        list[Card] | UnsetType, msgspec.Meta(description="salon, once over: the shoe after the cut")
    ] = UNSET
    seed: Annotated[
        Sha256Hex | UnsetType, msgspec.Meta(description="absent while the game is in play")
    ] = UNSET
    fairness: Fairness
    actions: list[RecordAction]
    # docs/hand-record.md §4: {status, next, rounds, deltas, final}, per variant.
    result: Annotated[
        dict[str, Any] | None, msgspec.Meta(description="the spec's result; null while playing")
    ]
    table: RecordTable


class Record(Message, kw_only=True, tag_field="type", tag="record"):
    """The hand record of this table's game number `game` (§15)."""

    game: int
    record: HandRecord
    version: TableVersion
    id: Annotated[
        CommandId | UnsetType, msgspec.Meta(description="the request's id, if it had one")
    ] = UNSET


class Presence(Message, kw_only=True, tag_field="type", tag="presence"):
    """A seated player opened a connection (`true`) or closed their last one (`false`).

    It changes no version. When the player whose decision runs loses their last
    connection, the reconnect grace is told instead by an `update` with an `away` event
    (§8.4)."""

    seat: SeatId
    connected: bool
    version: TableVersion


# --- the table chat (§17.2) ------------------------------------------------------------


class ChatMessage(Message, kw_only=True):
    id: int
    author: Annotated[str, msgspec.Meta(description="the author's user name")]
    author_id: int
    bot: Annotated[bool, msgspec.Meta(description="the author is a bot account (shown «бот»)")]
    role: Literal["player", "spectator"]
    at: EpochMs
    text: Annotated[str, msgspec.Meta(description="what to show, as plain text")]
    phrase: Annotated[str | UnsetType, msgspec.Meta(description="a quick phrase's key")] = UNSET
    reaction: Annotated[str | UnsetType, msgspec.Meta(description="a reaction's key")] = UNSET
    held: Annotated[bool, msgspec.Meta(description="held from you until the deal ended")]


class ChatFrame(Message, kw_only=True, tag_field="type", tag="chat"):
    """One chat message, as this viewer gets it."""

    message: ChatMessage
    version: TableVersion


class ChatHistory(Message, kw_only=True, tag_field="type", tag="chat_history"):
    """The latest chat messages this connection may see, once after the first
    `snapshot`; not sent when there is none."""

    messages: list[ChatMessage]
    can_write: bool
    version: TableVersion


TableFrame = Snapshot | Update | Ack | Error | Pong | Record | Presence | ChatFrame | ChatHistory

FRAMES: dict[str, type[Message]] = {
    "snapshot": Snapshot,
    "update": Update,
    "ack": Ack,
    "error": Error,
    "pong": Pong,
    "record": Record,
    "presence": Presence,
    "chat": ChatFrame,
    "chat_history": ChatHistory,
}


MESSAGES = tuple(
    SocketMessage("table", "receive", kind, name, summary(kind) or name)
    for name, kind in FRAMES.items()
)
