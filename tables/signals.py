"""What a change to a table announces: the lobby lists the open public tables, and what
changes one (opening it, a seat taken or freed, a game starting or ending, closing it)
is told to the lobby this way, without the code that changes it knowing the lobby.

The lobby (`lobby.broadcast`, connected in `lobby.apps.LobbyConfig.ready`) subscribes.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import Signal

table_changed = Signal()
"""A table's row in the lobby changed, with ``table_id`` and ``added`` (it was opened or
reopened); the sender is `tables.models.Table`. Sent once the change has committed."""


def table_changed_on_commit(table: Any, *, added: bool = False) -> None:
    """Once committed, the lobby is told this table changed (or was `added`, or, no longer
    listed, removed). A private table is never listed, so nothing is said of it."""
    if table.private:
        return
    table_id = table.pk
    transaction.on_commit(
        lambda: table_changed.send(sender=type(table), table_id=table_id, added=added)
    )
