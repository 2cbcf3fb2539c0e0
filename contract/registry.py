"""What the generated specs list: each module of `contract` names its messages and
endpoints here, with the words the specs print beside them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import msgspec

# A socket message's direction, from the client's side as AsyncAPI 3 says it: `send` is
# what the client sends (the server receives), `receive` what the client receives.
Direction = Literal["send", "receive"]
Socket = Literal["table", "lobby", "tournament"]


@dataclass(frozen=True)
class SocketMessage:
    socket: Socket
    direction: Direction
    type: type[msgspec.Struct]
    # The value of the message's `type` field.
    name: str
    summary: str


@dataclass(frozen=True)
class Response:
    status: int
    description: str
    # None: no JSON body (a redirect, an empty answer).
    body: type | None = None
    # The error codes this status may carry in an `ErrorBody` (contract.http).
    codes: tuple[str, ...] = ()
    # A `429`'s limits (contract.codes.LIMITS): its body's `limit`, one of these.
    limits: tuple[str, ...] = ()


@dataclass(frozen=True)
class Endpoint:
    method: Literal["get", "post", "delete"]
    path: str  # as OpenAPI writes it: `/players/{name}/`
    operation_id: str
    summary: str
    responses: tuple[Response, ...]
    # The JSON body the endpoint reads (None: it reads none, or a form).
    request: type | None = None
    # Read from the query string: name -> (JSON Schema type, description).
    query: dict[str, tuple[str, str]] = field(default_factory=dict)
    # The sign-in it needs: "session" (a session cookie; a POST also needs the CSRF
    # token) or "none".
    auth: Literal["session", "none"] = "session"
    # What a personal access token (`Authorization: Bearer`, docs/protocol.md §2.2.1)
    # must hold here: each of these scopes. (): no token is accepted here.
    scopes: tuple[Literal["read", "play", "chat"], ...] = ()
    description: str = ""


def summary(kind: type) -> str:
    """A definition's docstring's first paragraph, on one line: its spec summary."""
    return " ".join((kind.__doc__ or "").split("\n\n")[0].split())
