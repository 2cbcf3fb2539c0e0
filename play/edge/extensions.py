"""What the layers above live play add to the table socket, without live play importing
them: extra client message types, group events, and a hook run when a connection opens.

The social layer registers an extension in its AppConfig.ready() (the table chat:
`chat.apps.ChatConfig`). The table consumer (play/edge/consumers.py) looks an extension up
only for a message type that is none of its own commands, so a move costs nothing more;
a group event sent with `extension_event` reaches the named extension's `on_event` on
every connection of the table group (or of any other group the extension made the
connection join), with that connection's `Connection`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

# The channel-layer message type every extension's group events travel as: the table
# consumer's `table_extension` handler.
EVENT_TYPE = "table.extension"


@dataclass
class Connection:
    """One table socket as an extension sees it."""

    table_id: int
    # The signed-in user; None for an anonymous watcher (or a shared screen, which
    # watches as one).
    user: Any | None
    # The connection's language ("ru", "en"): group events bring none.
    language: str
    # Sends a frame to this client (the table's version is added when it has none).
    send: Callable[[dict[str, Any]], Awaitable[None]]
    # Makes the connection a member of another group, left when the socket closes.
    join: Callable[[str], Awaitable[None]]
    # The session the socket signed in with (None: anonymous): a resend after a
    # reconnect comes from the same session, on another connection.
    session_key: str | None = None
    # The user the socket's session is signed in as, even when the connection watches as
    # an anonymous spectator (`user` None: a shared screen, ?view=spectator): what must
    # never reach that user (chat held from a seated player) must not reach their shared
    # screen either. None for a session signed in as no one.
    session_user_id: int | None = None
    # The scopes of the access token the socket signed in with (docs/protocol.md
    # §2.2.1); None for a session, which may do everything its user may.
    token_scopes: frozenset[str] | None = None
    # The connection's channel name: the key of its `play.models.Presence` row (signed in),
    # by which an extension keeps what it knows of this connection.
    channel_name: str = ""
    # Each extension's own state for this connection, under its name.
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def user_id(self) -> int | None:
        return getattr(self.user, "pk", None)

    def may(self, scope: str) -> bool:
        """Whether the socket's sign-in allows `scope` (a session allows every scope)."""
        return self.token_scopes is None or scope in self.token_scopes


class TableExtension(Protocol):
    """What a registered extension provides."""

    name: str
    # The client message types it answers (none may be a command of the table's own).
    message_types: frozenset[str]

    async def on_connect(self, connection: Connection) -> None:
        """After the snapshot has been sent to a newly opened connection."""
        ...

    async def on_message(self, connection: Connection, message: dict[str, Any]) -> None:
        """A client message of one of `message_types` (read and shape-checked as JSON
        with a string "type"; the rest is the extension's to check)."""
        ...

    async def on_event(self, connection: Connection, event: dict[str, Any]) -> None:
        """A group event sent with `extension_event(self.name, event)`."""
        ...


_by_name: dict[str, TableExtension] = {}
_by_message: dict[str, TableExtension] = {}


def register(extension: TableExtension) -> None:
    """Add an extension (again: replaced, so a reloaded app registers once)."""
    _by_name[extension.name] = extension
    for kind in extension.message_types:
        _by_message[kind] = extension


def registered() -> list[TableExtension]:
    return list(_by_name.values())


def for_message(kind: str) -> TableExtension | None:
    return _by_message.get(kind)


def named(name: str) -> TableExtension | None:
    return _by_name.get(name)


def extension_event(name: str, event: dict[str, Any]) -> dict[str, Any]:
    """The channel-layer message carrying `event` to the extension `name` on each
    connection of the group it is sent to."""
    return {"type": EVENT_TYPE, "extension": name, "event": event}
