from __future__ import annotations

from collections.abc import Iterator

import pytest


def forget_online_marks() -> None:
    """The lobby's online marks (people.friends) live in the cache, which outlives a test
    (and a user id is reused after a rollback): each test starts with nobody online."""
    from django.conf import settings
    from django.core.cache import cache

    if settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
        import redis

        client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
        try:
            keys = list(client.scan_iter(match=cache.make_key("people:online:*")))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
    else:
        cache.clear()


@pytest.fixture(autouse=True)
def _nobody_online() -> Iterator[None]:
    from tests.conftest import reset_throttle_counts

    forget_online_marks()
    reset_throttle_counts()  # the friend requests and invites sent per hour
    yield
