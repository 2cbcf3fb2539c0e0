from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.conftest import reset_throttle_counts as _reset_throttle_counts


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
