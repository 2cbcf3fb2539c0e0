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


@pytest.fixture(autouse=True)
def _mail_tasks_run_in_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    # accounts.tasks.mail_send goes to the worker when REDIS_URL is set; here no worker
    # runs, and the mail is checked in the test's outbox: run tasks where they are called.
    from config.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)


@pytest.fixture
def reset_throttle_counts() -> Callable[[], None]:
    """For a test that switches the cache (settings.CACHES) and so its counts."""
    return _reset_throttle_counts
