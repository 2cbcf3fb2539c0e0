"""The shapes every message shares (docs/protocol.md §1)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType


class Message(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A JSON object of the protocol. A field the definition does not name is refused when
    read, and a definition that misses a field the server sends fails the tests.
    `kw_only` is per class in msgspec: every subclass says it again, so that a required
    field may follow an optional one inherited (`id`, `version`)."""


# A command id (§5.4): 1 to 64 characters, chosen by the client.
CommandId = Annotated[
    str, msgspec.Meta(min_length=1, max_length=64, description="a command id: 1–64 characters")
]
# A seat id (§1): a user name, `user:<id>`, `ai:<n>`, or an engine role (`dealer`,
# `banker`, `bank`).
SeatId = Annotated[str, msgspec.Meta(min_length=1, max_length=150, description="a seat id")]
# Two characters: rank 2–9 T J Q K A, suit S H D C.
Card = Annotated[
    str, msgspec.Meta(pattern="^[2-9TJQKA][SHDC]$", description="a card: rank then suit")
]
EpochMs = Annotated[int, msgspec.Meta(description="epoch milliseconds, UTC")]
TableVersion = Annotated[int, msgspec.Meta(ge=0, description="a table version (§7)")]
Sha256Hex = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
VariantKey = Annotated[
    str,
    msgspec.Meta(pattern="^(classic|salon|solo|banker36|blackjack)$", description="a variant key"),
]


class SeatEvent(Message, kw_only=True):
    """An event about one seat, which it names (`stand`, `turn`, `leaving`, …)."""

    seat: SeatId


class CardToSeatEvent(Message, kw_only=True):
    """A card to a seat (`deal`, `hit`): `to` is the holder; `card` only in the holder's
    copy (docs/protocol.md §10)."""

    seat: SeatId
    to: SeatId
    card: Card | UnsetType = UNSET
