"""The table page's `visibility` message on the table socket (play.edge.extensions,
docs/protocol.md §5.6): whether the page is visible, kept per socket so that «Ваш ход» by
Web Push is decided on the server — never while a page of the player's at the table is
visible."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from contract import table_in
from contract.reading import Problem, read
from play.edge.extensions import Connection
from play.edge.sockets import database, refusal_of
from push.services import page_visibility_set, push_enabled


class VisibilityExtension:
    name = "push"
    message_types = frozenset({"visibility"})
    # Any sign-in may say it: it changes nothing at the table (docs/protocol.md §2.2.1).
    token_scope = "read"

    async def on_connect(self, connection: Connection) -> None:
        return None

    async def on_message(self, connection: Connection, message: dict[str, Any]) -> None:
        checked = read(message, table_in.Visibility)
        if isinstance(checked, Problem):
            await connection.send(refusal_of(checked))
            return
        if connection.user_id is None or not connection.channel_name or not push_enabled():
            # An anonymous watcher is told nothing, and with push off nothing is kept.
            return
        await database(page_visibility_set)(
            channel_name=connection.channel_name,
            user_id=connection.user_id,
            table_id=connection.table_id,
            visible=checked.visible,
            now=timezone.now(),
        )

    async def on_event(self, connection: Connection, event: dict[str, Any]) -> None:
        return None
