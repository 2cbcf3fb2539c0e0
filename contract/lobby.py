"""The lobby socket, `ws/lobby/` (docs/protocol.md §14), both directions: the one message
a client sends (`open_table`) and every message the server sends. Lobby messages carry no
`version`. A key that is sometimes absent and never null is `UNSET` when absent."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import Message, VariantKey
from contract.codes import LimitKey
from contract.registry import SocketMessage, summary
from contract.table_out import TableOptions

# The `id` a client's message may carry and every answer to it repeats (§6.3).
MessageId = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, description="the id of the message answered")
]
TableId = Annotated[int, msgspec.Meta(ge=1, description="a table id")]
Count = Annotated[int, msgspec.Meta(ge=0)]


# ---- what the client sends ------------------------------------------------------------


class OpenTable(Message, kw_only=True, tag_field="type", tag="open_table"):
    """Open a table and become its host (not seated). Answered with `table_opened` or an
    `error`. A field that does not belong to the variant is left out or null.

    A number field is an integer in its documented range; which variants take it, and
    the rules between fields (`max_bet ≥ min_bet`, `entry_limit` ≥ the stake), are the
    table model's."""

    id: MessageId | None = None
    variant: VariantKey
    private: Annotated[bool, msgspec.Meta(description="not listed; invite code returned")] = False
    name: (
        Annotated[str, msgspec.Meta(max_length=80, description="default «Стол <user name>»")] | None
    ) = None
    seat_count: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=10,
                description="classic 2–10 (6), salon 2–10 (6), solo 1, banker36 2–4 (4), "
                "blackjack 1–7 (5)",
            ),
        ]
        | None
    ) = None
    stake: Annotated[int, msgspec.Meta(description="banker36 only (10)")] | None = None
    min_bet: Annotated[int, msgspec.Meta(description="salon only (10)")] | None = None
    max_bet: Annotated[int, msgspec.Meta(description="salon only (100); ≥ min_bet")] | None = None
    entry_limit: (
        Annotated[
            int,
            msgspec.Meta(
                ge=0, description="salon ≥ min_bet (100), banker36 ≥ stake (100), others 0"
            ),
        ]
        | None
    ) = None
    decision_seconds: (
        Annotated[int, msgspec.Meta(ge=5, le=120, description="5–120 (15)")] | None
    ) = None
    reconnect_grace_seconds: (
        Annotated[int, msgspec.Meta(ge=0, le=300, description="0–300 (30)")] | None
    ) = None
    match_length: (
        Annotated[Literal[5, 7, 10], msgspec.Meta(description="classic only (5)")] | None
    ) = None
    bots_allowed: (
        Annotated[
            bool,
            msgspec.Meta(
                description="whether bot accounts may sit (null: yes, but at chip tables)"
            ),
        ]
        | None
    ) = None


# ---- what the server sends ------------------------------------------------------------


class Join(Message, kw_only=True):
    """Whether the viewer may sit at the row's table, decided as `sit` decides (§9.1):
    `code` and `message` are `""` unless `state` is `refused`."""

    state: Literal["join", "seated", "refused"]
    code: Literal[
        "",
        "not_signed_in",
        "leaving",
        "bots_not_allowed",
        "seated_elsewhere",
        "below_entry_limit",
        "table_full",
    ]
    message: Annotated[str, msgspec.Meta(description="the refusal, in the connection's language")]


class RowFacts(Message, kw_only=True):
    """An open, public table as the lobby lists it (its facts, whoever looks)."""

    id: TableId
    name: str
    variant: VariantKey
    variant_name: Annotated[str, msgspec.Meta(description="in the connection's language")]
    seats_taken: Count
    seat_count: Annotated[int, msgspec.Meta(ge=1)]
    stakes: Annotated[str, msgspec.Meta(description="a label, in the connection's language")]
    options: TableOptions  # as table.options (§6.1)
    entry_limit: Count
    playing: Annotated[bool, msgspec.Meta(description="a game is in play")]
    bots: Annotated[bool, msgspec.Meta(description="whether bot accounts may sit here")]


RowHtml = Annotated[str, msgspec.Meta(description="the row's <tr> (only with html=1)")]


class LobbyRow(RowFacts, kw_only=True):
    """A row the lobby socket sends: with the viewer's `join` verdict."""

    join: Join
    html: RowHtml | UnsetType = UNSET


class ListedRow(RowFacts, kw_only=True):
    """A row of `lobby.json`: as the socket's, but without `join` (and `html`) when the
    viewer's `me` could not be read (`unavailable`)."""

    join: Join | UnsetType = UNSET
    html: RowHtml | UnsetType = UNSET


class Counts(Message, kw_only=True):
    """How many open, public tables each variant has (every variant, 0 for none)."""

    classic: Count
    salon: Count
    solo: Count
    banker36: Count
    blackjack: Count


class HeldSeat(Message, kw_only=True):
    """An open table the viewer sits at; `leaving`: they stood up during the game."""

    table: TableId
    name: str
    variant: VariantKey
    leaving: bool


class OwnTable(Message, kw_only=True):
    """An open table the viewer opened (private ones too); `seated`: they sit there."""

    table: TableId
    name: str
    variant: VariantKey
    private: bool
    seated: bool


class Me(Message, kw_only=True):
    """The viewer (`lobby.json`'s `me`): their chips, their seats, the tables they opened."""

    balance: int
    seats: list[HeldSeat]
    bot: Annotated[bool, msgspec.Meta(description="the viewer is a bot account")]
    tables: list[OwnTable]


class Lobby(Message, kw_only=True, tag_field="type", tag="lobby"):
    """On connect: one page of the open, public tables under the socket's filters."""

    tables: list[LobbyRow]
    page: Annotated[int, msgspec.Meta(ge=1)]
    pages: Annotated[int, msgspec.Meta(ge=1)]
    total: Annotated[Count, msgspec.Meta(description="tables under the filters")]
    counts: Counts
    counts_total: Count


class TableAdded(Message, kw_only=True, tag_field="type", tag="table_added"):
    """A table new to the lobby (opened, reopened)."""

    table: LobbyRow
    yours: Annotated[Literal[True], msgspec.Meta(description="you opened it")] | UnsetType = UNSET


class TableChanged(Message, kw_only=True, tag_field="type", tag="table_changed"):
    """A listed table changed: its whole row as it stands now."""

    table: LobbyRow
    yours: Annotated[Literal[True], msgspec.Meta(description="you opened it")] | UnsetType = UNSET


class TableRemoved(Message, kw_only=True, tag_field="type", tag="table_removed"):
    """A table no longer listed (closed)."""

    table: TableId
    html: (
        Annotated[str, msgspec.Meta(description="its row, closed (only with html=1)")] | UnsetType
    ) = UNSET


class LobbyCounts(Message, kw_only=True, tag_field="type", tag="lobby_counts"):
    """After each batch of diffs: the open, public tables of each variant, no filter."""

    counts: Counts
    counts_total: Count


class TableOpened(Message, kw_only=True, tag_field="type", tag="table_opened"):
    """`open_table`'s answer: you host the table (not seated)."""

    table: TableId
    invite: Annotated[str, msgspec.Meta(description="a private table's invite code")] | None
    id: MessageId | UnsetType = UNSET


# The codes a lobby socket sends (§13, §14).
LobbyErrorCode = Literal[
    "rate_limited",
    "too_large",
    "bad_json",
    "bad_message",
    "unknown_type",
    "bad_table",
    "too_many_tables",
    "unavailable",
    "session_ended",
    "too_many_connections",
    # A program's token (docs/protocol.md §2.2.1): refused, in the URL, or without a scope.
    "bad_token",
    "token_in_url",
    "scope_missing",
]


class LobbyError(Message, kw_only=True, tag_field="type", tag="error"):
    """A refusal; it changed nothing (but see `unavailable`, §13)."""

    code: LobbyErrorCode
    message: Annotated[str, msgspec.Meta(description="in the connection's language")]
    id: MessageId | UnsetType = UNSET
    field: (
        Annotated[
            str,
            msgspec.Meta(description="the field refused (`bad_message`, `bad_table`)"),
        ]
        | UnsetType
    ) = UNSET
    limit: Annotated[
        LimitKey | UnsetType,
        msgspec.Meta(
            description="`rate_limited`, `too_many_connections`, `too_many_tables`: the limit (§3)"
        ),
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


# Every message a lobby socket sends, told apart by `type`.
LobbyFrame = (
    Lobby | TableAdded | TableChanged | TableRemoved | LobbyCounts | TableOpened | LobbyError
)


FRAMES: dict[str, type[Message]] = {
    "lobby": Lobby,
    "table_added": TableAdded,
    "table_changed": TableChanged,
    "table_removed": TableRemoved,
    "lobby_counts": LobbyCounts,
    "table_opened": TableOpened,
    "error": LobbyError,
}

MESSAGES = (
    SocketMessage("lobby", "send", OpenTable, "open_table", summary(OpenTable)),
    *(
        SocketMessage("lobby", "receive", kind, name, summary(kind))
        for name, kind in FRAMES.items()
    ),
)
