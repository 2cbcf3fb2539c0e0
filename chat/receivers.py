"""What chat does when live play or people announce something (connected in
chat.apps.ChatConfig.ready)."""

from __future__ import annotations

from typing import Any

from chat import delivery, services


def release_held_messages(sender: Any, table_id: int, **kwargs: Any) -> None:
    """A deal ended (play.signals.deal_ended): its spectators' messages go to its players."""
    services.deal_ended_release(table_id=table_id)


def reread_blocks(sender: Any, user_id: int, **kwargs: Any) -> None:
    """A user's block list changed (people.signals.blocks_changed): their open table
    sockets read it again, so a newly blocked author's messages stop at once."""
    delivery.blocks_changed(user_id)


def filter_words_changed(sender: Any, **kwargs: Any) -> None:
    services.filter_words_changed()
