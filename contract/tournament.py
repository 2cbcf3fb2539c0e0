"""The tournament socket (docs/protocol.md §19): an event's live standings, sent on connect
and again after every change of the event. It takes no message from its client."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import EpochMs, Message, Sha256Hex, VariantKey
from contract.codes import LimitKey
from contract.registry import SocketMessage, summary

TournamentStatus = Literal["scheduled", "registering", "running", "finished", "cancelled"]


class EventFacts(Message, kw_only=True):
    """The event, as its page shows it."""

    id: int
    name: str
    variant: VariantKey
    format: Literal["duplicate", "sit_and_go", "multi_table"]
    status: TournamentStatus
    registration_opens_at: EpochMs
    starts_at: EpochMs
    ends_at: Annotated[EpochMs, msgspec.Meta(description="when the event ends at the latest")]
    registration_closes_at: Annotated[
        EpochMs, msgspec.Meta(description="the start, plus late registration where allowed")
    ]
    buy_in: Annotated[int, msgspec.Meta(ge=0, description="0: a freeroll")]
    pool: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            description="the prize pool now; once the event has finished, what its places were"
            " paid",
        ),
    ]
    entrants: Annotated[int, msgspec.Meta(ge=0, description="registered now")]
    max_entrants: int
    rounds: Annotated[
        int,
        msgspec.Meta(
            description="`duplicate`: each heat's rounds; `sit_and_go`: the banks each seat "
            "holds; `multi_table`: its rounds, the last the final table"
        ),
    ]
    starting_stack: int
    commitment: Annotated[
        Sha256Hex | None,
        msgspec.Meta(
            description="the duplicate shoe's commitment; null before registration, and "
            "always for a sit-and-go or a multi-table event (their games are committed at "
            "their tables)"
        ),
    ]
    server_seed: Annotated[
        Sha256Hex | None, msgspec.Meta(description="null until the event has finished")
    ]


class Standing(Message, kw_only=True):
    """One entrant: by place once the event is over, else by stack (multi-table: by
    points), then registration."""

    player: Annotated[str, msgspec.Meta(description="the user name")]
    stack: Annotated[
        int | None,
        msgspec.Meta(description="null before the start; a sit-and-go's as its game stands"),
    ]
    heat_over: Annotated[
        bool,
        msgspec.Meta(description="the entrant's heat (a sit-and-go: the table's game) is over"),
    ]
    place: Annotated[int | None, msgspec.Meta(description="null until the event is over")]
    prize: Annotated[int, msgspec.Meta(ge=0)]
    points: Annotated[
        int,
        msgspec.Meta(ge=0, description="`multi_table`: placement points so far; 0 otherwise"),
    ]


class Standings(Message, kw_only=True, tag_field="type", tag="standings"):
    """The event and its entrants now: on connect and after every change."""

    tournament: EventFacts
    entries: list[Standing]
    prizes: Annotated[
        list[int], msgspec.Meta(description="each paid place's prize now, first place first")
    ]
    server_time: EpochMs


TournamentErrorCode = Literal[
    "rate_limited",
    "too_large",
    "bad_json",
    "bad_message",
    "unknown_type",
    "unavailable",
    "session_ended",
    "too_many_connections",
    "bad_token",
    "token_in_url",
    "scope_missing",
]


class TournamentError(Message, kw_only=True, tag_field="type", tag="error"):
    """A refusal: the socket takes no message; a flood, a size or a token refused."""

    code: TournamentErrorCode
    message: Annotated[str, msgspec.Meta(description="in the connection's language")]
    limit: Annotated[
        LimitKey | UnsetType,
        msgspec.Meta(description="`rate_limited`, `too_many_connections`: the limit (§3)"),
    ] = UNSET
    retry_after: (
        Annotated[int, msgspec.Meta(ge=1, description="with `limit`: whole seconds to wait")]
        | UnsetType
    ) = UNSET


TournamentFrame = Standings | TournamentError

FRAMES: dict[str, type[Message]] = {"standings": Standings, "error": TournamentError}


MESSAGES = tuple(
    SocketMessage("tournament", "receive", kind, name, summary(kind))
    for name, kind in FRAMES.items()
)
