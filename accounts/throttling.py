"""Attempts counted per subject (a client address, an e-mail) in fixed time windows.

The counts live in the shared cache (config/settings.py CACHES: Redis in production, so
every web process counts together; local memory in embedded mode). An attempt is counted
BEFORE the work it allows, through the cache's own atomic operations (`add` is Redis SET
NX, `incr` is INCRBY; LocMem does both under its lock): a count that was read first and
written after the work let twelve sign-ups posted at once all through a limit of five.

Sign-up and password reset use it; sign-in is django-axes' (settings.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
import weakref
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

HOUR = 3600
# Every key starts so; the tests reset the counts by it.
KEY_PREFIX = "throttle"


@dataclass(frozen=True)
class ThrottleHit:
    """One counted attempt: `allowed` when it was within the limit."""

    key: str
    count: int
    limit: int
    # When the window it was counted in ends (Unix seconds): the count starts again then.
    window_ends: float = 0.0

    @property
    def allowed(self) -> bool:
        return self.count <= self.limit

    @property
    def retry_after(self) -> int:
        """Whole seconds until the window ends, rounded up and at least 1: what a refused
        client waits before the next attempt can be allowed."""
        return seconds_until(self.window_ends)


def seconds_until(moment: float, now: float | None = None) -> int:
    """Whole seconds from `now` until `moment` (Unix seconds), rounded up, at least 1: the
    `retry_after` of every limit's refusal (docs/protocol.md §3)."""
    now = time.time() if now is None else now
    return max(1, math.ceil(moment - now))


def window_end(window_seconds: int, now: float | None = None) -> float:
    """When the fixed window of `window_seconds` holding `now` ends (windows start at
    multiples of their length since the epoch: an hour's at each UTC hour)."""
    now = time.time() if now is None else now
    return float((int(now) // window_seconds + 1) * window_seconds)


def _key(scope: str, subject: str, window_seconds: int, now: float | None = None) -> str:
    # The subject is hashed: an e-mail address is neither kept in the cache in clear nor
    # able to break the key (any length, any characters).
    digest = hashlib.sha256(subject.encode()).hexdigest()[:32]
    now = time.time() if now is None else now
    return f"{KEY_PREFIX}:{scope}:{window_seconds}:{int(now) // window_seconds}:{digest}"


def cache_count(key: str, *, timeout: float, delta: int = 1) -> int:
    """Add `delta` to the count at `key` and return the new count, atomically: the
    cache's own increment (Redis INCRBY, or LocMem's under its lock; the async cache
    methods are a get and a set, and race). A new key starts at 0 and lives `timeout`
    seconds; a key that expires between the add and the increment starts again.

    On Redis, one round trip: INCRBY and PEXPIRE NX in one MULTI (the socket's message
    budget counts every message a client sends; Django's `add` then `incr`, which looks
    whether the key exists first, took three)."""
    client = _redis_client(key)
    if client is not None:
        name = cache.make_and_validate_key(key)
        with client.pipeline(transaction=True) as pipe:
            pipe.incrby(name, delta)
            pipe.pexpire(name, max(1, int(timeout * 1000)), nx=True)
            count, _expiry_set = pipe.execute()
        return int(count)
    while True:
        cache.add(key, 0, timeout=timeout)
        try:
            return int(cache.incr(key, delta))
        except ValueError:
            continue  # expired (or evicted) between add and incr: add it again


# One client per Django cache client: see _redis_client.
_clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _redis_client(key: str) -> Any:
    """The redis-py client behind Django's RedisCache for `key`, or None for another cache
    (LocMem in embedded mode).

    Made once per Django cache client and kept: Django's RedisCache makes a new redis-py
    client for every call, and `Redis.__init__` sorting its some forty options was a
    twentieth of the web process's Python work under load (make bench-live --profile),
    every message of a socket being counted here. Django's cache backends are per
    context (asgiref's Local: each socket's calls have their own), so the client is kept
    with the backend's, not per thread, whose calls come from every socket. Django's
    client writes to its first server whatever the key, so one client serves every key."""
    backend = caches["default"]  # the backend itself: `cache` is a proxy of it
    if not isinstance(backend, RedisCache):
        return None
    client = _clients.get(backend._cache)
    if client is None:
        client = _clients[backend._cache] = backend._cache.get_client(key, write=True)
    return client


def throttle_count(*, scope: str, subject: str, window_seconds: int = HOUR) -> int:
    """The attempts counted so far in this window (a read: it counts nothing)."""
    return int(cache.get(_key(scope, subject, window_seconds), 0))


def throttle_hit(
    *, scope: str, subject: str, limit: int, window_seconds: int = HOUR
) -> ThrottleHit:
    """Count one attempt, atomically, and say whether it is within `limit`.

    Refused attempts are counted too: a client that keeps trying stays refused until the
    window ends."""
    now = time.time()
    key = _key(scope, subject, window_seconds, now)
    # The window is in the key, so the timeout only lets the cache drop it once the
    # window is over.
    return ThrottleHit(
        key=key,
        count=cache_count(key, timeout=window_seconds),
        limit=limit,
        window_ends=window_end(window_seconds, now),
    )


def throttle_release(hit: ThrottleHit) -> None:
    """Give back an allowed attempt whose work did not happen (it failed)."""
    with contextlib.suppress(ValueError):  # the window's key is already gone
        cache.decr(hit.key)
