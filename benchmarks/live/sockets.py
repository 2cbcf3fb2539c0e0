"""WebSocket clients' plumbing shared by the players and the echo: a handshake with the
session cookie and the site's Origin, retried when daphne drops it under a burst of
connections; waiting until the previous phase's sockets are gone; opening many at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from benchmarks.live.stack import Stack

WS_TIMEOUT = 30.0
CONNECT_CONCURRENCY = 16


# Handshakes retried after a failure (daphne drops one it has not accepted within its
# websocket_connect_timeout, 5 s, when connections arrive faster than it takes them).
CONNECT_RETRIES = Counter[str]()


async def open_socket(port: int, path: str, cookie: str, attempts: int = 4) -> Any:
    """A WebSocket with the player's session cookie and the site's Origin (§2.2, §2.3)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    for attempt in range(attempts):
        try:
            return await connect(
                f"ws://127.0.0.1:{port}{path}",
                additional_headers={"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie},
                open_timeout=WS_TIMEOUT,
                close_timeout=5,
                ping_interval=None,
                max_size=None,
                proxy=None,
            )
        except (OSError, TimeoutError, WebSocketException):
            if attempt == attempts - 1:
                raise
            CONNECT_RETRIES[path.split("/")[2]] += 1
            await asyncio.sleep(0.5 * (attempt + 1) + random.random())
    raise AssertionError("unreachable")


async def quiesce(stack: Stack, cookie: str, limit: float = 60.0) -> float:
    """Wait (up to `limit` s) until a new socket opens promptly again: the previous
    phase's sockets have closed and their cleanup (database work queued in daphne) has
    run. Returns the seconds waited."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        start = time.monotonic()
        with contextlib.suppress(Exception):
            ws = await open_socket(stack.port, "/ws/bench/echo/0/", cookie, attempts=1)
            await ws.close()
            if time.monotonic() - start < 0.3:
                break
        await asyncio.sleep(1.0)
    return time.monotonic() - began


async def gather_limited(
    coroutines: Iterable[Any], limit: int, within: float | None = None
) -> list[Any]:
    """Run at most `limit` at once; results, or the exception each raised (a TimeoutError
    for those not done `within` seconds from now)."""
    semaphore = asyncio.Semaphore(limit)
    end = None if within is None else time.monotonic() + within

    async def one(coroutine: Any) -> Any:
        async with semaphore:
            if end is None:
                return await coroutine
            left = end - time.monotonic()
            if left <= 0:
                coroutine.close()
                raise TimeoutError
            return await asyncio.wait_for(coroutine, left)

    return await asyncio.gather(*(one(c) for c in coroutines), return_exceptions=True)
