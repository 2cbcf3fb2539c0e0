"""The tournaments' production stack: daphne, a Celery worker and beat on PostgreSQL and
Redis, as subprocesses (tests/integration/live_stack.py), for the tests that ask for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.live_stack import Stack, make_stack, stack_env, start_stack


@pytest.fixture
def stack(
    postgres: None, redis_url: str, transactional_db: None, tmp_path: Path
) -> Iterator[Stack]:
    env = stack_env(redis_url, BLACKJACK_ROUND_PAUSE_SECONDS="0", AI_DECISION_SECONDS="0.2")
    processes = start_stack(make_stack(env, tmp_path))
    try:
        yield processes
    finally:
        processes.stop()
