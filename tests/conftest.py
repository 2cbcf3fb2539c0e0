"""Shared fixtures.

The suite runs on the embedded stack (SQLite, in-memory channel layer) by default. Tests
that need a real PostgreSQL or Redis use the `postgres` / `redis_url` fixtures (and the
`services` marker): they skip when the service is not configured, and fail instead when
REQUIRE_SERVICES=1 (CI), so a misconfigured CI cannot pass by skipping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.transaction import TransactionManagementError

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"

# Hypothesis: every example in CI (.ci/run sets HYPOTHESIS_PROFILE=ci), a tenth of them
# otherwise, for a quick inner loop. A property test asks `examples(n)` for its count: n
# in CI. The deals still differ from run to run; the steps drawn are the same.
hypothesis.settings.register_profile("ci", max_examples=100)
hypothesis.settings.register_profile("dev", max_examples=10)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def examples(full: int) -> int:
    """How many examples a property test runs under the loaded profile: `full` in CI."""
    return max(1, full * hypothesis.settings.default.max_examples // 100)


def _missing(what: str) -> None:
    if REQUIRE_SERVICES:
        pytest.fail(f"REQUIRE_SERVICES=1 but {what}", pytrace=False)
    pytest.skip(what)


# The fixtures through which a test uses the database (besides the django_db marker).
_DATABASE_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"}
)


# The modules that take longest, first: pytest-xdist hands modules out in this order, so
# that no process is left running one of them at the end while the others wait. Within a
# module the order stays as written.
_LONGEST_FIRST = (
    "tests/e2e/test_table_phone.py",
    "tests/e2e/test_lobby.py",
    "tests/play/test_live_properties.py",
    "tests/benchmarks/test_bench_live.py",
    "tests/integration/",
    "tests/games/test_properties.py",
    "tests/e2e/",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = Path(item.path).relative_to(config.rootpath).as_posix()
        return next(
            (i for i, prefix in enumerate(_LONGEST_FIRST) if path.startswith(prefix)),
            len(_LONGEST_FIRST),
        )

    items.sort(key=rank)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "breaks_conservation(reason): the test leaves the chip ledger unbalanced on purpose"
        " (the autouse chip-conservation check is skipped for it)",
    )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """The test database's flushes empty the chip ledger, which the database refuses
    outside ledger maintenance (accounts/migrations/0004): the test database is in it.

    At the end, sessions other threads left open on PostgreSQL (the async tests' worker
    threads keep theirs) are ended, so that the test database can be dropped."""
    from accounts.services import ledger_maintenance_begin

    with django_db_blocker.unblock():
        ledger_maintenance_begin("the test database is flushed between tests")
    yield
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    # A request in English leaves English active in the thread; each test starts Russian.
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture(autouse=True)
def _test_settings(settings: Any) -> None:
    # The embedded ticker starts with the first ASGI connection; tests that drive the
    # ASGI app must not leave a thread sweeping the test database behind them.
    settings.DEADLINE_TICKER = False
    # Games deal as soon as they start, unless a test waits for client seeds itself.
    settings.CLIENT_SEED_SECONDS = 0
    # The real hasher is slow on purpose; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    # Each async test runs in its own event loop, and channels_redis's layer keeps locks
    # and connections bound to the loop that first used them: give every test its own.
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def _uses_database(request: pytest.FixtureRequest) -> bool:
    return request.node.get_closest_marker("django_db") is not None or bool(
        _DATABASE_FIXTURES & set(request.fixturenames)
    )


def chips_unbalanced() -> str | None:
    """None when every wallet plus every escrow equals what the grants account put in
    (issue 7: after every test); else what differs."""
    from django.db.models import Q, Sum

    from accounts.models import Account
    from accounts.services import GRANTS_ACCOUNT_CODE, chips_in_circulation

    sums = Account.objects.aggregate(
        granted=Sum("balance", filter=Q(code=GRANTS_ACCOUNT_CODE)),
        system=Sum("balance", filter=Q(kind=Account.Kind.SYSTEM)),
    )
    held = chips_in_circulation()
    granted, system = (sums[k] or 0 for k in ("granted", "system"))
    if held == -granted == -system:
        return None
    return f"wallets + escrow hold {held}, the grants account put in {-granted}" + (
        f" (all system accounts: {-system})" if system != granted else ""
    )


@pytest.fixture(autouse=True)
def _chips_conserved(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every test that used the database: the sum of all wallets plus escrow equals
    what grants put in (issue 7, Deliver 3).

    Tests that never touch the database are left alone (no query, no database set up).
    For the others the database fixture is set up first, so that this check runs before
    its teardown rolls the test back (or flushes it). A test whose database connection
    is gone, or whose transaction is broken, by the end is not checked: there is nothing
    left to read. A test that unbalances the ledger on purpose says so with the marker
    `breaks_conservation`."""
    if not _uses_database(request) or request.node.get_closest_marker("breaks_conservation"):
        yield
        return
    request.getfixturevalue("_django_db_helper")
    yield
    try:
        problem = chips_unbalanced()
    except (DatabaseError, TransactionManagementError):
        return
    if problem is not None:
        pytest.fail(f"chips were created or destroyed: {problem}", pytrace=False)


@pytest.fixture
def postgres() -> None:
    """Require the real PostgreSQL (DATABASE_URL=postgres://...)."""
    if connection.vendor != "postgresql":
        _missing(f"DATABASE_URL is not PostgreSQL (the database is {connection.vendor})")


@pytest.fixture
def redis_url() -> Iterator[str]:
    """Require the real Redis (REDIS_URL=redis://...), answering a ping."""
    url: str = settings.REDIS_URL
    if not url:
        _missing("REDIS_URL is not set")
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        _missing(f"Redis at {url} does not answer: {exc}")
    finally:
        client.close()
    yield url


@pytest.fixture
def make_user(db: Any) -> Any:
    from accounts.models import User

    counter = iter(range(1, 10_000))

    def make(username: str | None = None, password: str = "correct-horse-9", **extra: Any) -> Any:
        n = next(counter)
        username = username or f"player{n}"
        extra.setdefault("email", f"{username}@example.com")
        return User.objects.create_user(username=username, password=password, **extra)

    return make


def reset_throttle_counts() -> None:
    """Forget every throttle count (accounts.throttling: sign-ups, password resets, table
    opens) and every socket count (play.edge.connections).

    They live in the cache, which is Redis when REDIS_URL is set and outlives a test run:
    a run an hour after another would start over some limits. Only the throttle's keys
    are deleted there — the Redis database also holds the channel layer's."""
    from django.conf import settings
    from django.core.cache import cache

    from accounts.throttling import KEY_PREFIX
    from play.edge import connections

    backend = settings.CACHES["default"]["BACKEND"]
    if backend == "django.core.cache.backends.redis.RedisCache":
        import redis

        client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
        try:
            keys = [
                key
                for prefix in (KEY_PREFIX, connections.KEY_PREFIX)
                for key in client.scan_iter(match=cache.make_key(f"{prefix}:*"))
            ]
            if keys:
                client.delete(*keys)
        finally:
            client.close()
    else:
        cache.clear()
