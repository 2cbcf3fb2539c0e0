"""What tournaments announce to the rest of the platform, without importing its
subscribers: Web Push (`push.receivers`, connected in `push.apps.PushConfig.ready`) tells an
entrant their table is ready; fair play (`fairplay.enforcement`) vetoes a registration.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import Signal

entry_requested = Signal()
"""A player asks to register for ``tournament`` (locked), with ``player`` and
``entrant_ids`` (the players registered now); the sender is `tournaments.models.Tournament`.

Sent with `Signal.send` inside `services.entry_register`'s transaction, after the event's
own conditions and before anything is written: a receiver that refuses raises
`tournaments.services.TournamentRefused` with a code and a message fit for the player, and
nothing is paid. So fair play keeps linked accounts out of one event (a duplicate shoe
scouted by one for the other, a sit-and-go's table shared) without tournaments importing
it.
"""

table_ready = Signal()
"""An entrant's tournament table was opened for them and they are seated at it: with
``tournament_id``, ``entry_id``, ``user_id`` (the entrant) and ``table_id``; the sender is
`tournaments.models.Tournament`.

Sent after the transaction that opened the table commits (never for one rolled back: a
heat refused to an entrant opens nothing), with `Signal.send_robust`: a subscriber that
fails is logged and stops neither the others nor the event.
"""


def table_ready_on_commit(*, tournament: Any, entry: Any, table: Any) -> None:
    """`table_ready`, once the current transaction (or its savepoint's parent) commits."""
    sent = {
        "tournament_id": tournament.pk,
        "entry_id": entry.pk,
        "user_id": entry.player_id,
        "table_id": table.pk,
    }
    transaction.on_commit(
        lambda: table_ready.send_robust(sender=type(tournament), **sent), robust=True
    )
