"""Chat's refusal, answered on the table socket as an `error` frame."""

from __future__ import annotations


class ChatRefused(Exception):
    """A chat message refused: `code` is the protocol's error code (docs/protocol.md) and
    the message is in the active language, fit to show the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
