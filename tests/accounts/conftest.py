from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest


def _reset_throttle_counts() -> None:
    """Forget every sign-up and password-reset count (accounts.throttling).

    They live in the cache, which is Redis when REDIS_URL is set and outlives a test run:
    a run an hour after another would start over some limits. Only the throttle's keys
    are deleted there — the Redis database also holds the channel layer's."""
    from django.conf import settings
    from django.core.cache import cache

    from accounts.throttling import KEY_PREFIX

    backend = settings.CACHES["default"]["BACKEND"]
    if backend == "django.core.cache.backends.redis.RedisCache":
        import redis

        client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
        try:
            keys = list(client.scan_iter(match=cache.make_key(f"{KEY_PREFIX}:*")))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
    else:
        cache.clear()


@pytest.fixture(autouse=True)
def _fresh_throttle_counts() -> Iterator[None]:
    _reset_throttle_counts()
    yield


@pytest.fixture
def reset_throttle_counts() -> Callable[[], None]:
    """For a test that switches the cache (settings.CACHES) and so its counts."""
    return _reset_throttle_counts
