"""The lobby sockets' group, and what they are told when a table changes.

A change to a table (tables.signals.table_changed, sent once it has committed) reaches
`lobby_changed`; the changes of the next LOBBY_COALESCE_SECONDS are sent as one
`lobby.diff` group message through live play's send queues (play/frames/broadcast.py), in the
order they were built.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import weakref
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.dispatch import receiver

from play.frames import broadcast
from tables.signals import table_changed

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"

# Changes to the lobby's tables within this many seconds are sent as one `lobby.diff`.
LOBBY_COALESCE_SECONDS = 0.25
# Per event loop, the tables changed since its last lobby diff (id -> added to the lobby).
_lobby_due: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, bool]] = (
    weakref.WeakKeyDictionary()
)
# The lobby's diffs are sent one after another, in the order they were built (their
# place in the lobby's send queue): a table added and then removed must not arrive the
# other way round.
_lobby_sequence = itertools.count(1)


def _lobby_message(changes: dict[int, bool]) -> dict[str, Any]:
    """What changed in the lobby: the rows of the changed tables still listed, built once
    in every language (each lobby connection picks its own), not once per connection;
    which of them are new to the lobby; the ids no longer listed, with the rows of those
    that closed (a page shows them closed for a while); who opened each listed one and
    who sits there (a connection decides its own user's join buttons with play.services.seating,
    and reads that user's seats again only when a change is at a table they sit at or
    just sat down at); and the lobby's counts as they stand after the batch. Only these
    tables are read, not the whole list (which every change re-sent to every lobby
    socket).

    Three queries per batch, however many lobby sockets there are (this is on the live
    path: every table change comes here): the changed tables, who sits at them, and the
    counts' one grouped query. Counted here, once, the counts reach every socket in the
    same group message; before, each browser asked lobby.json after each batch (at 400
    players in the lobby, ~400 requests a second, each a page, the counts and the
    player's part)."""
    from django.conf import settings
    from django.utils import translation

    from lobby.selectors import lobby_counts, lobby_rows, with_row_facts
    from tables.models import Seat, Table

    ids = list(changes)
    # Private tables are never announced (tables.signals), nor named here.
    changed = list(with_row_facts(Table.objects.filter(pk__in=ids, private=False)))
    listed = [table for table in changed if table.is_open]
    closed = [table for table in changed if not table.is_open]
    rows, closed_rows = {}, {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            rows[code] = lobby_rows(listed)  # a row that fails is left out, logged
            closed_rows[code] = lobby_rows(closed)
    found = {table.pk for table in listed}
    seated: dict[str, list[int]] = {}
    for table_id, player_id in Seat.objects.filter(
        table_id__in=found, player__isnull=False
    ).values_list("table_id", "player_id"):
        seated.setdefault(str(table_id), []).append(player_id)
    # Over all public open tables, no filter: one message for every socket, whatever its
    # filters (a client with an entry-limit filter asks lobby.json for its own).
    counts = lobby_counts()
    return {
        "type": "lobby.diff",
        "tables": rows,
        "added": sorted(pk for pk in found if changes[pk]),
        "removed": sorted(set(changes) - found),
        "closed": closed_rows,
        # String keys: the channel layer's msgpack takes no others.
        "hosts": {str(t.pk): t.created_by_id for t in listed if t.created_by_id is not None},
        "seated": seated,
        "counts": counts,
        "counts_total": sum(counts.values()),
    }


async def _anyone_in(group: str) -> bool:
    """Whether any connection, of any web process, is in `group`: a lobby diff that
    nobody would receive is not built (at 400 players at tables and none in the lobby,
    building the list was 4% of the web process's time; make bench-live). A layer that
    cannot count its groups (the in-memory one, embedded) is taken to have someone."""
    count = getattr(get_channel_layer(), "group_size", None)
    return count is None or await count(group) > 0


def lobby_changed(table_id: int, *, added: bool = False) -> None:
    """Tell the lobby sockets that a table changed (`added`: it was opened or reopened).
    Handed to a consumer's loop, the changes of the next LOBBY_COALESCE_SECONDS are sent
    as one diff: at 400 players, with games ending and dealing every few seconds at each
    table, building the lobby on every change was a tenth of the web process's CPU (make
    bench-live)."""
    loop = broadcast.bound_loop()
    if loop is not None:
        loop.call_soon_threadsafe(_lobby_soon, table_id, added, context=contextvars.Context())
        return
    broadcast.send(LOBBY_GROUP, _lobby_message({table_id: added}))


def _lobby_soon(table_id: int, added: bool) -> None:
    loop = asyncio.get_running_loop()
    due = _lobby_due.get(loop)
    if due is not None:
        due[table_id] = due.get(table_id, False) or added
        return
    _lobby_due[loop] = {table_id: added}
    loop.call_later(LOBBY_COALESCE_SECONDS, lambda: loop.create_task(_lobby_send(loop)))


async def _lobby_send(loop: asyncio.AbstractEventLoop) -> None:
    # A change from now on is sent again, after this one.
    changes = _lobby_due.pop(loop, None) or {}
    if not changes:
        return
    try:
        if not await _anyone_in(LOBBY_GROUP):
            return
        message = await database_sync_to_async(_lobby_message)(changes)
    except Exception:
        logger.exception("the lobby's changed tables could not be built")
        return
    broadcast.post(LOBBY_GROUP, next(_lobby_sequence), LOBBY_GROUP, message)


@receiver(table_changed, dispatch_uid="lobby-table-changed")
def _table_changed(sender: object, table_id: int, added: bool = False, **kwargs: object) -> None:
    lobby_changed(table_id, added=added)
