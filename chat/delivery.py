"""A chat message as it travels: its payload (the same for every viewer but the quick
phrase's language), and the group events that carry it to a table's connections, where
chat.extension builds each viewer's frame."""

from __future__ import annotations

from typing import Any

from chat import phrases
from chat.models import ChatMessage
from play.edge.extensions import extension_event
from play.frames import broadcast
from play.frames.broadcast import table_group
from play.frames.build import epoch_ms

NAME = "chat"


def user_group(user_id: int) -> str:
    """The group of one user's table sockets, for their chat alone (a change of whom
    they blocked)."""
    return f"chat-user-{user_id}"


def payload(message: ChatMessage, author: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": message.pk,
        "author": author.username,
        "author_id": message.author_id,
        # A bot account's message, marked «бот» beside its name.
        "bot": author.bot_owner_id is not None,
        "role": "spectator" if message.from_spectator else "player",
        "at": epoch_ms(message.created_at),
        "text": message.shown,
        "held": False,
    }
    if message.phrase:
        entry["reaction" if phrases.is_reaction(message.phrase) else "phrase"] = message.phrase
    return entry


def frame(entry: dict[str, Any], version: int | None, **extra: Any) -> dict[str, Any]:
    """One viewer's `chat` frame, in the active language (a phrase is translated here)."""
    shown = {k: v for k, v in entry.items() if k != "to"}
    key = shown.get("phrase") or shown.get("reaction")
    if key:
        shown["text"] = phrases.phrase_text(key)
    return {"type": "chat", "version": version, "message": {**shown, **extra}}


def deliver(table_id: int, entry: dict[str, Any], *, withheld: list[int], version: int) -> None:
    """A new message to every connection of the table but those it is held from."""
    broadcast.send(
        table_group(table_id),
        extension_event(
            NAME, {"kind": "message", "message": entry, "withheld": withheld, "version": version}
        ),
    )


def release(table_id: int, entries: list[dict[str, Any]], *, version: int | None) -> None:
    """Held messages, the deal over, to the players they were held from."""
    broadcast.send(
        table_group(table_id),
        extension_event(NAME, {"kind": "release", "messages": entries, "version": version}),
    )


def blocks_changed(user_id: int) -> None:
    """The user's block list changed: their table sockets read it again."""
    broadcast.send(user_group(user_id), extension_event(NAME, {"kind": "blocks"}))
