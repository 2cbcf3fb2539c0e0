"""lib.group_send: a group message from synchronous code reaches the group also when
that code runs in a thread that drives an event loop (async_to_sync refuses to block it)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.layers import get_channel_layer

from lib.group_send import group_send_from_sync


@pytest.mark.asyncio
async def test_sync_code_running_on_an_event_loop_still_reaches_the_group():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    group_send_from_sync("g", {"type": "note", "n": 1})  # sync code, on this loop's thread
    assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "note", "n": 1}


@pytest.mark.asyncio
async def test_sync_code_in_a_thread_without_a_loop_waits_for_the_send():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    failures: list[BaseException] = []

    def worker() -> None:
        try:
            group_send_from_sync("g", {"type": "note", "n": 2})
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)

    thread = threading.Thread(target=worker)
    await asyncio.to_thread(lambda: (thread.start(), thread.join()))
    assert failures == []
    assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "note", "n": 2}
