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


# pytest-xdist hands a module's tests to one process (`make test`: --dist loadscope), module
# after module in the order of the collection (--no-loadscope-reorder; its default would
# order them by their number of tests). The order: the modules that take longest first (as
# measured: whole-suite runs on 2 cores), so that no process is left running one of them at
# the end while the others wait; the rest after them as collected. "e2e:NAME" stands for
# the browser modules of daphne environment NAME (tests/e2e/daphne_envs.py) not listed on
# their own: they follow each other, so that a process keeps its daphne from one to the
# next. Within a module the order stays as written.
_LONGEST_FIRST = (
    "tests/e2e/test_table_phone.py",
    "e2e:one-game",
    "tests/play/test_live_properties.py",
    "tests/e2e/test_lobby.py",
    "tests/e2e/test_history.py",
    "tests/e2e/test_pages.py",
    "e2e:pages",
    "tests/integration/test_faults.py",
    "tests/games/test_ai_review.py",
    "tests/benchmarks/test_bench_live.py",
    "tests/games/test_properties.py",
    "e2e:ticker",
    "tests/contract/test_protocol_examples.py",
    "e2e:quick-rounds",
    "tests/bot/test_bot_plays_in_process.py",
    "tests/chat/test_chat_socket.py",
    "tests/play/test_ws_errors.py",
    "tests/play/test_live_races.py",
    "tests/play/test_fair_play.py",
    "e2e:seed-intercepted",
    "e2e:blackjack-round-pause",
    "tests/integration/",
    "tests/tournaments/",
    "tests/bot/",
)


def _place(item: pytest.Item) -> int:
    from tests.e2e.daphne_envs import daphne_env_name

    path = Path(item.path).relative_to(item.config.rootpath).as_posix()
    for i, entry in enumerate(_LONGEST_FIRST):
        if (entry.endswith("/") and path.startswith(entry)) or path == entry:
            return i
    if path.startswith("tests/e2e/"):
        block = f"e2e:{daphne_env_name(getattr(item, 'module', None))}"
        if block in _LONGEST_FIRST:
            return _LONGEST_FIRST.index(block)
    return len(_LONGEST_FIRST)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Last: after pytest's own reordering (by fixture scope), which would otherwise have
    # the last word. A stable sort: a module's tests keep their order.
    items.sort(key=_place)


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
