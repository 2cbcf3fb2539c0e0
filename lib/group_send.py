"""A group message sent from synchronous code, whichever thread that code runs in.

Services run in worker threads (sync_to_async, Celery, management commands), where
`async_to_sync(layer.group_send)` is the way. But synchronous code also runs in threads
that drive an event loop of their own — a model saved by async code, a test driving a
browser with Playwright's sync API — and there async_to_sync refuses to block the loop
(RuntimeError): the message is then sent as a task on that loop instead.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

# The sends made as tasks, kept until done (a loop holds only weak references to tasks).
_in_flight: set[asyncio.Task[None]] = set()


def group_send_from_sync(group: str, message: dict[str, Any]) -> None:
    """Send `message` to `group`. Raises what the layer raises when it can wait for the
    send; a send made as a task logs its failure instead."""
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - settings always configure a layer
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        async_to_sync(layer.group_send)(group, message)
        return
    task = loop.create_task(layer.group_send(group, message))
    _in_flight.add(task)
    task.add_done_callback(_sent)


def _sent(task: asyncio.Task[None]) -> None:
    _in_flight.discard(task)
    error = None if task.cancelled() else task.exception()
    if error is not None:
        logger.error("a group message could not be sent", exc_info=error)
