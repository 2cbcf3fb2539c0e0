"""Fixtures of the chat's tests."""

from __future__ import annotations

import pytest

from tests.conftest import reset_throttle_counts


@pytest.fixture(autouse=True)
def _fresh_chat_budgets() -> None:
    # The chat's rate counts live in the cache, which is Redis when REDIS_URL is set and
    # outlives a run: user ids start again at 1 in each run's fresh database.
    reset_throttle_counts()
