"""Settings for the test suite (pytest's DJANGO_SETTINGS_MODULE): development mode, as
`make test` has it, also when pytest is run by hand. The settings default to production.
"""

import os

os.environ.setdefault("DEBUG", "true")
# Tests sign many players up from one address; tests/accounts/test_throttling.py checks
# the limit itself with its own value.
os.environ.setdefault("SIGNUP_LIMIT_PER_HOUR", "100000")
# The same for opening tables (a counter per user and clock hour, kept in Redis between
# runs); tests/lobby/test_lobby_limits.py checks the limit with its own value.
os.environ.setdefault("TABLE_OPENS_PER_HOUR", "100000")
# The pause between classic rounds is short, so tests that play whole matches stay quick;
# tests of the pause set their own value.
os.environ.setdefault("CLASSIC_ROUND_PAUSE_SECONDS", "0.5")
# None in blackjack unless a test asks for it: its tests play many rounds on the AI's clock.
os.environ.setdefault("BLACKJACK_ROUND_PAUSE_SECONDS", "0")
# The test database's commits do not wait for the write-ahead log to reach the disk: a
# commit is as visible to every other session as before, and a test database is never
# kept past its run. The waits were a good part of every flush between transactional
# tests (a TRUNCATE of every table, then content types and permissions written again,
# commit by commit). libpq reads PGOPTIONS on connecting, here and in every process the
# tests start (daphne, Celery, manage.py).
os.environ.setdefault("PGOPTIONS", "-c synchronous_commit=off")
# Tests claim the bonus and enter freerolls with accounts made a moment ago;
# tests/fairplay checks the minimum age and decisions with their own values.
os.environ.setdefault("FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS", "0")


def _per_worker_redis(url: str, worker: str) -> str:
    """The Redis URL of one of pytest-xdist's processes (gw0, gw1, …): the database after
    the configured one by the worker's number, so that each process has its own cache,
    Celery queue and channel-layer keys."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    number = base + int(worker.removeprefix("gw"))
    if number > 15:
        raise RuntimeError(f"{worker} would use Redis database {number}: set REDIS_URL lower")
    return urlunsplit(parts._replace(path=f"/{number}"))


# Under pytest-xdist every process has its own test database (pytest-django adds the
# worker's name to it) and here its own Redis database and channel prefix: PUBLISH
# channels are shared by all of a server's databases. Set in the environment, so that the
# daphne and Celery processes the tests start inherit them.
# A process started with this environment already has them (the prefix says so).
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker and os.environ.get("CHANNEL_LAYER_PREFIX") != f"asgi-{_worker}":
    os.environ["CHANNEL_LAYER_PREFIX"] = f"asgi-{_worker}"
    if os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = _per_worker_redis(os.environ["REDIS_URL"], _worker)

from config.settings import *  # noqa: E402, F403

# The suite's PostgreSQL flushes with DELETE, not TRUNCATE (config/testdb/base.py says why).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "config.testdb"  # noqa: F405
