"""What chat asks the layers above it before a message is written.

Moderation (above chat) subscribes; chat imports none of its subscribers.
"""

from __future__ import annotations

from django.dispatch import Signal

message_posting = Signal()
"""``author`` (a user) is about to write a chat message at ``table``; the sender is
`chat.models.ChatMessage`.

Sent with `Signal.send` before the message is written: a receiver that refuses it raises
`chat.errors.ChatRefused` with the protocol's error code (`muted`) and a message in the
active language, and nothing is written or delivered.
"""
