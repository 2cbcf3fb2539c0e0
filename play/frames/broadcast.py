"""Channel-layer groups of a live table, and sending to them after a commit.

Every connection to a table joins `table_group(id)`, and each change of the table is one
group message: every seated player's frame (by user id) and the spectators' frame. Each
connection sends its client the one frame meant for it (play.edge.consumers: a seated
player's own, anyone else the spectators'), so a hidden card reaches no client it is not
for; the other frames stay in the server (Redis and the web process). One message per
change, not one per viewer: channels_redis costs four Redis round trips per group
message to send and three to take off a web process's one inbox (read a message at a
time), whatever the number of connections it reaches — with a message per seated player
and one for the spectators, that was five times the channel-layer work of every change,
a fifth of the web process's time at 400 players (make bench-live, py-spy).

Where the frames are sent from. A service runs in a worker thread and broadcasts from
its `on_commit`. Called by a consumer (whose context carries its event loop: `bind_loop`),
the thread only hands the change to that loop (`call_soon_threadsafe`, no waiting) and
goes on with the next command; the loop sends it with `await group_send`. Waiting in the
thread for each `group_send` (`async_to_sync`) was a quarter of every command's time in
the one thread that runs the consumers' database work (make bench-live). Changes of one
table are sent in the order they were committed (one queue per table, the lowest version
first, one change after another). Without a loop to hand to — a Celery task, the
embedded ticker, an HTTP view — each group message is sent from the thread itself
(`async_to_sync`), as before.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import weakref
from typing import Any

from channels.layers import get_channel_layer

from contract.table_out import Update
from lib.group_send import group_send_from_sync
from lib.jsontext import json_text

logger = logging.getLogger(__name__)

_loop: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "broadcast_loop", default=None
)


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def bound_loop() -> asyncio.AbstractEventLoop | None:
    """The consumer's loop this context's broadcasts are handed to (`bind_loop`), if any
    and still running."""
    loop = _loop.get()
    return loop if loop is not None and not loop.is_closed() else None


def bind_loop() -> None:
    """Called on an event loop (a consumer's connect): broadcasts made by the database
    calls of this context (`sync_to_async` copies it into the thread) are handed to this
    loop instead of being sent from the thread."""
    _loop.set(asyncio.get_running_loop())


class _Queue:
    """The group messages of one table (or the lobby) waiting to be sent, and the task
    sending them."""

    def __init__(self) -> None:
        # (version, arrival, group, message)
        self.messages: list[tuple[int, int, str, dict[str, Any]]] = []
        self.arrivals = 0
        self.task: asyncio.Task[None] | None = None

    def put(self, version: int, group: str, message: dict[str, Any]) -> None:
        self.arrivals += 1
        self.messages.append((version, self.arrivals, group, message))

    def take(self) -> list[tuple[str, dict[str, Any]]]:
        """The messages of the lowest version waiting (one change: sent at once). The
        lowest first: the commands of one table run in several threads, and two commits
        close together may be handed over in the other order."""
        version = min(entry[0] for entry in self.messages)
        taken = [entry for entry in self.messages if entry[0] == version]
        self.messages = [entry for entry in self.messages if entry[0] != version]
        return [(group, message) for _v, _a, group, message in taken]


# Per event loop (tests run one loop each), per table: the send queues.
_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, _Queue]] = (
    weakref.WeakKeyDictionary()
)


def post(key: Any, version: int, group: str, message: dict[str, Any]) -> None:
    """On the loop: queue one message of `key`'s and make sure a task is sending them."""
    loop = asyncio.get_running_loop()
    queues = _queues.setdefault(loop, {})
    queue = queues.get(key)
    if queue is None:
        queue = queues[key] = _Queue()
    queue.put(version, group, message)
    if queue.task is None:
        queue.task = loop.create_task(_drain(key, queue, queues))


async def _drain(key: Any, queue: _Queue, queues: dict[Any, _Queue]) -> None:
    try:
        while queue.messages:
            await _send_all(queue.take())
    finally:
        queue.task = None
        if not queue.messages and queues.get(key) is queue:
            del queues[key]


async def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - settings always configure a layer
        return
    results = await asyncio.gather(
        *(layer.group_send(group, message) for group, message in messages),
        return_exceptions=True,
    )
    for (group, _message), result in zip(messages, results, strict=True):
        if isinstance(result, BaseException):
            # The change is committed; a client that misses this frame sees the version
            # gap on the next one (or reconnects) and gets a snapshot.
            logger.error("broadcast to %s failed", group, exc_info=result)


def _order(group: str, message: dict[str, Any]) -> tuple[Any, int]:
    """The queue a group message goes to (its table's, or the lobby's) and its place in
    it (the table version its frame carries)."""
    if not group.startswith("table-"):
        return group, 0
    version = message.get("version")
    if version is None:
        version = (message.get("frame") or {}).get("version")
    return int(group.split("-")[1]), int(version or 0)


def send(group: str, message: dict[str, Any]) -> None:
    """One group message, its change committed: handed to the consumer's loop when there
    is one, else sent from this thread."""
    loop = bound_loop()
    if loop is not None:
        key, version = _order(group, message)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:  # called on the loop itself
            post(key, version, group, message)
        else:
            # A fresh context: not the worker thread's (asgiref marks it as inside its
            # executor, and a task inheriting that could not use sync_to_async).
            loop.call_soon_threadsafe(
                post, key, version, group, message, context=contextvars.Context()
            )
        return
    try:
        group_send_from_sync(group, message)
    except Exception:
        # The change is committed; a client that misses this frame sees the version gap
        # on the next one (or reconnects) and gets a snapshot.
        logger.exception("broadcast to %s failed", group)


def send_frames(table_id: int, spectator: Update, players: dict[int, Update]) -> None:
    """One change: `players` (user id -> frame) for the seated, `spectator` for everyone
    else. Each frame is encoded once, here, as the JSON text its sockets send as it is:
    not once per socket, and not as nested data that the channel layer packs and every
    receiving socket unpacks again. (String keys: the channel layer's msgpack takes no
    others.)"""
    send(
        table_group(table_id),
        {
            "type": "table.frames",
            "version": spectator.version,
            "players": {str(user_id): json_text(frame) for user_id, frame in players.items()},
            "spectator": json_text(spectator),
        },
    )


def send_presence(table_id: int, message: dict[str, Any]) -> None:
    send(table_group(table_id), {"type": "table.frame", "frame": message})
