"""Channel-layer groups of a live table, and sending to them after a commit.

Every connection to a table joins `table_group(id)`; a signed-in one also joins
`user_group(id, user)`. A change is sent as one frame per seated player (to that
player's group, so every tab of theirs gets it) and one spectator frame to the table
group, which a seated player's connections ignore (`skip_users`). No group message holds
a frame meant for another viewer.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def user_group(table_id: int, user_id: int) -> str:
    return f"table-{table_id}-user-{user_id}"


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - settings always configure a layer
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:
        # The change is committed; a client that misses this frame sees the version gap
        # on the next one (or reconnects) and gets a snapshot.
        logger.exception("broadcast to %s failed", group)


def send_frames(
    table_id: int, spectator: dict[str, Any], players: dict[int, dict[str, Any]]
) -> None:
    for user_id, frame in players.items():
        _send(user_group(table_id, user_id), {"type": "table.frame", "frame": frame})
    _send(
        table_group(table_id),
        {"type": "table.frame", "frame": spectator, "skip_users": sorted(players)},
    )


def send_presence(table_id: int, message: dict[str, Any]) -> None:
    _send(table_group(table_id), {"type": "table.frame", "frame": message, "skip_users": []})


def lobby_changed() -> None:
    """Send the lobby's new table list, built once here in every language (each lobby
    connection picks its own), not once per connection."""
    from django.conf import settings
    from django.utils import translation

    from tables.selectors import lobby_payload

    tables = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            tables[code] = lobby_payload()
    _send(LOBBY_GROUP, {"type": "lobby.changed", "tables": tables})
