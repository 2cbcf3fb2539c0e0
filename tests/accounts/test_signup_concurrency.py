"""Sign-ups posted at once from one address cannot get past the hourly limit.

Each thread posts through its own test client with its own database connection, and the
sign-ups commit for real (transactional_db): what keeps the count is the cache's atomic
add + incr, taken before the account is made.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from accounts.models import LedgerEntry, User

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "Tuz-i-desyatka-21"
THREADS = 12
LIMIT = 5
ADDRESS = "203.0.113.21"


def _sign_up_at_once(count: int) -> list[int]:
    """`count` different sign-ups from ADDRESS, released together; their status codes."""
    go = threading.Event()

    def sign_up(i: int) -> int:
        client = Client()  # one per thread: a client is not thread-safe
        try:
            go.wait(timeout=30)
            response = client.post(
                reverse("signup"),
                {
                    "username": f"farm{i}",
                    "email": f"farm{i}@example.com",
                    "password1": PASSWORD,
                    "password2": PASSWORD,
                },
                REMOTE_ADDR=ADDRESS,
            )
            return int(response.status_code)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(sign_up, i) for i in range(count)]
        go.set()
        return [f.result() for f in futures]


def _assert_exactly_the_limit_made(statuses: list[int]) -> None:
    assert sorted(statuses) == [302] * LIMIT + [429] * (THREADS - LIMIT)
    assert User.objects.filter(username__startswith="farm").count() == LIMIT
    assert LedgerEntry.objects.filter(reason="welcome_grant").count() == LIMIT


def test_twelve_concurrent_sign_ups_from_one_address_make_exactly_the_limit(
    settings: Any,
) -> None:
    # The embedded stack's cache, whatever REDIS_URL says: the database is what varies.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.SIGNUP_LIMIT_PER_HOUR = LIMIT
    _assert_exactly_the_limit_made(_sign_up_at_once(THREADS))


@pytest.mark.services
def test_twelve_concurrent_sign_ups_on_postgresql_and_the_redis_cache_make_exactly_the_limit(
    settings: Any, postgres: None, redis_url: str, reset_throttle_counts: Any
) -> None:
    assert connection.vendor == "postgresql"
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}
    }
    settings.SIGNUP_LIMIT_PER_HOUR = LIMIT
    reset_throttle_counts()  # the counts of the cache now in use
    _assert_exactly_the_limit_made(_sign_up_at_once(THREADS))
