"""How many sockets a user and a client address hold open, counted in the shared cache
(Redis in production, so that every web process counts together; docs/protocol.md §3).

A plain counter (one up on connect, one down on close) would never come down for the
sockets of a process that crashed, and a user who keeps other sockets open would stay
locked out. So the counts are kept in fixed windows of WINDOW_SECONDS instead: a socket
counts itself in the window it opens in and in the one before it, then once in every
new window while it is open (the consumer renews it at each window's start), and takes
itself out of every window it counted in when it closes. The sockets open now are those
counted in the previous window: every open socket is, whether it opened in this window
(it counted itself there too) or earlier (it was open then, so it renewed there). A
crashed process's sockets renew no more: they drop out of the count within two windows,
and every window's key expires by itself.
"""

from __future__ import annotations

import contextlib
import time

from django.conf import settings
from django.core.cache import cache

from accounts.throttling import cache_count, seconds_until

# A window is as long as presence's time to live (play.db.selectors.PRESENCE_TTL_SECONDS): what
# a socket counts for outlives a crashed process by two windows at most.
WINDOW_SECONDS = 60
# A window's key outlives the windows that read it (the current one and the next).
_KEY_TIMEOUT = 3 * WINDOW_SECONDS


def window(now: float | None = None) -> int:
    return int((time.time() if now is None else now) // WINDOW_SECONDS)


def next_window_in(now: float | None = None) -> float:
    """Seconds until the next window starts."""
    now = time.time() if now is None else now
    return (window(now) + 1) * WINDOW_SECONDS - now


def retry_after() -> int:
    """The `retry_after` of a socket refused for a full count: the whole seconds until
    the next window, when the sockets no longer open (a crashed process's, one closed
    without being taken out) drop out of the count by themselves. Closing one of one's
    own sockets frees a place at once."""
    now = time.time()
    return seconds_until(now + next_window_in(now), now)


# Every count's key starts so (the tests reset the counts by it).
KEY_PREFIX = "ws-conns"


def _counter(name: str, slot: int) -> str:
    return f"{KEY_PREFIX}:{name}:{slot}"


def _names(user_id: int | None, address: str | None) -> list[tuple[str, int]]:
    """The counts a socket belongs to, each with its limit."""
    names = []
    if user_id is not None:
        names.append((f"user:{user_id}", int(settings.WS_CONNECTIONS_PER_USER)))
    if address:
        names.append((f"addr:{address}", int(settings.WS_CONNECTIONS_PER_ADDRESS)))
    return names


def _incr(key: str, delta: int = 1) -> int:
    return cache_count(key, timeout=_KEY_TIMEOUT, delta=delta)


def _decr(key: str) -> None:
    with contextlib.suppress(ValueError):  # expired: nothing left to take out of
        cache.decr(key)


class Counted:
    """One socket's place in the counts: which windows it counted itself in."""

    def __init__(self, user_id: int | None, address: str | None) -> None:
        self.names = _names(user_id, address)
        self.slots: set[int] = set()


def connection_open(*, user_id: int | None, address: str | None) -> tuple[Counted | None, str]:
    """Count a new socket: (its place, "") when within the limits, else (None, "user" or
    "address": the limit it is over), and then it is not counted at all.

    The socket is counted first and checked after, so that two sockets opening at once
    in two processes cannot both take the last place."""
    counted = Counted(user_id, address)
    now = window()
    over = ""
    for name, limit in counted.names:
        counts = {slot: _incr(_counter(name, slot)) for slot in (now - 1, now)}
        counted.slots.update(counts)
        if counts[now - 1] > limit and not over:
            over = "user" if name.startswith("user:") else "address"
    if over:
        connection_close(counted)
        return None, over
    return counted, ""


def connection_renew(counted: Counted) -> None:
    """The socket is still open in this window (once per window: repeats are ignored)."""
    now = window()
    if now in counted.slots:
        return
    for name, _limit in counted.names:
        _incr(_counter(name, now))
    counted.slots.add(now)
    # Older windows are read no more and expire by themselves.
    counted.slots = {slot for slot in counted.slots if slot >= now - 2}


def connection_close(counted: Counted) -> None:
    """The socket closed: out of every window it counted in (once)."""
    slots, counted.slots = counted.slots, set()
    for name, _limit in counted.names:
        for slot in slots:
            _decr(_counter(name, slot))
