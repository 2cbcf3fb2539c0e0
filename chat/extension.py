"""The table chat on the table socket (play.edge.extensions): the `chat` client message, the
history a connection is sent when it opens, and each viewer's frames of the messages
the table's group carries (docs/protocol.md §17)."""

from __future__ import annotations

import hashlib
from typing import Any

from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext as _
from msgspec import UNSET

from chat import delivery, services
from chat.errors import ChatRefused
from contract import table_in
from contract.reading import Problem, read
from people.blocks import blocked_ids
from play.edge.extensions import Connection
from play.edge.sockets import database, error_frame, refusal_of, safe_id

# How long a message's id is remembered, so that a resend posts it once.
RESEND_WINDOW_SECONDS = 600


class ChatExtension:
    name = delivery.NAME
    message_types = frozenset({"chat"})
    # What an access token must hold to send them (docs/protocol.md §2.2.1).
    token_scope = "chat"

    async def on_connect(self, connection: Connection) -> None:
        blocked: set[int] = set()
        if connection.user_id is not None:
            await connection.join(delivery.user_group(connection.user_id))
        # A view-only socket (`?view=spectator`) is anonymous but its session's user still
        # blocked whom they blocked: the shared screen of a blocker hides them too.
        reader_id = connection.user_id or connection.session_user_id
        if reader_id is not None:
            blocked = await database(blocked_ids)(reader_id)
        connection.state[self.name] = blocked
        messages = await database(services.history_for)(
            table_id=connection.table_id,
            user_id=connection.user_id,
            blocked=blocked,
            session_user_id=connection.session_user_id,
        )
        if not messages:
            return  # a silent table sends no frame: the page knows how to start empty
        await connection.send(
            {
                "type": "chat_history",
                "messages": [delivery.frame(m, None)["message"] for m in messages],
                # A token without `chat` reads the chat but may not write (§17.2).
                "can_write": connection.user_id is not None and connection.may("chat"),
            }
        )

    async def on_message(self, connection: Connection, message: dict[str, Any]) -> None:
        client_id = message.get("id")
        if connection.user is None:
            await connection.send(
                error_frame(
                    "not_signed_in", _("Войдите, чтобы писать в чат."), id=safe_id(client_id)
                )
            )
            return
        if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
            await connection.send(
                error_frame("bad_message", _('Каждое действие несёт "id": строку до 64 знаков.'))
            )
            return
        checked = read(message, table_in.Chat)
        if isinstance(checked, Problem):
            await connection.send(refusal_of(checked, id=client_id))
            return
        # A resend (the same id, after a reconnect: the same session) is answered as the
        # first was, and posts nothing more.
        session = hashlib.sha256((connection.session_key or "").encode()).hexdigest()[:32]
        sent_key = f"chat:sent:{connection.user_id}:{session}:{client_id}"
        already = await sync_to_async(cache.get, thread_sensitive=False)(sent_key)
        if already is not None:
            await connection.send({"type": "ack", "id": client_id, "chat": already, "repeat": True})
            return

        def post() -> Any:
            # In the connection's language: a refusal (moderation's `muted` too) is read
            # by this player.
            with translation.override(connection.language):
                return services.message_post(
                    author=connection.user,
                    table_id=connection.table_id,
                    text=None if checked.text is UNSET else checked.text,
                    phrase=None if checked.phrase is UNSET else checked.phrase,
                    reaction=None if checked.reaction is UNSET else checked.reaction,
                )

        try:
            posted = await database(post)()
        except ChatRefused as refusal:
            extra: dict[str, Any] = {"id": client_id}
            retry_after = getattr(refusal, "retry_after", None)
            if retry_after is not None:
                extra["limit"] = "chat_messages"
                extra["retry_after"] = retry_after
            await connection.send(error_frame(refusal.code, refusal.message, **extra))
            return
        await sync_to_async(cache.set, thread_sensitive=False)(
            sent_key, posted.pk, timeout=RESEND_WINDOW_SECONDS
        )
        await connection.send({"type": "ack", "id": client_id, "chat": posted.pk})

    async def on_event(self, connection: Connection, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        user_id = connection.user_id
        # Whom a message is held from is checked against the session's user, so that a
        # seated player's view-only socket (anonymous: user_id None) is held from too,
        # and gets the message when it is released.
        holder_id = user_id if user_id is not None else connection.session_user_id
        blocked: set[int] = connection.state.get(self.name, set())
        if kind == "message":
            entry = event["message"]
            if entry["author_id"] in blocked or holder_id in event["withheld"]:
                return
            await connection.send(delivery.frame(entry, event["version"]))
        elif kind == "release":
            for entry in event["messages"]:
                if holder_id in entry["to"] and entry["author_id"] not in blocked:
                    await connection.send(delivery.frame(entry, event["version"], held=True))
        elif kind == "blocks" and user_id is not None:
            connection.state[self.name] = await database(blocked_ids)(user_id)
