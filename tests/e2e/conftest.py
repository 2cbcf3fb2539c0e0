"""Browser end-to-end tests: a real daphne on the test database, driven by Chromium.

- `daphne_server`: daphne as a subprocess on a free port, on pytest-django's test database
  (the SQLite file named by TEST_DATABASE_NAME, or PostgreSQL with DATABASE_URL) and
  Redis when REDIS_URL is set, DEBUG on; ready once /healthz answers. It serves module
  after module while they ask for the same environment (`DAPHNE_ENV`, a name from
  tests/e2e/daphne_envs.py; a start is seconds of the suite's time). Tests that use it
  also take `transactional_db`, so that what they write is committed and daphne sees it;
  `demo_tables` runs `manage.py demo_setup` on that database.
- `browser`: Debian's chromium (/usr/bin/chromium, headless, --no-sandbox: we may run as
  root) through pytest-playwright's fixtures; Playwright's own browser download is never
  used. Without chromium the tests skip, or fail when REQUIRE_SERVICES=1 (CI).
- `console`: collects JavaScript errors, failed loads and CSP violations of a page;
  `assert_clean()` fails the test on any, and it is checked again at teardown.
- `shoot(page, name)`: full-page screenshots under test-artifacts/ at 360x740 and
  1280x800.

Playwright's sync API keeps its own event loop marked as running in this thread while it
is started. So it lives only while browser tests follow each other in this process
(pytest-playwright's session-wide fixtures are re-scoped below, and Playwright and its
browser are kept from module to module like daphne, a launch being a second or two of
the suite's time): the asyncio tests that run after need the thread to themselves. While
it lives, Django's async-safety guard would mistake that loop for an async caller and
refuse ORM calls (fixtures, the database flush), so the guard is lifted for that time
only: no Django code runs on Playwright's loop.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from contract.lobby import LobbyFrame
from contract.reading import Problem, read
from contract.tournament import TournamentFrame
from tests.conftest import REQUIRE_SERVICES, _missing
from tests.contract.frames import spec_problem, table_frame_problem
from tests.e2e.daphne_envs import ENVS, daphne_env_name

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
if not (BIN / "daphne").exists():  # pragma: no cover - pytest run from outside the venv
    BIN = ROOT / ".venv" / "bin"

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
VIEWPORTS = {"phone": (360, 740), "desktop": (1280, 800)}
STARTUP_TIMEOUT = 40.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


# --- the server ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url() -> str:
    """pytest-django's test database as a URL, for the subprocess."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        # A file named by TEST_DATABASE_NAME, relative to pytest's working directory.
        name = str(db["NAME"])
        assert name != ":memory:" and "mode=memory" not in name, (
            "an in-memory SQLite test database cannot be shared with daphne"
        )
        return f"sqlite:///{Path(name).resolve()}"
    assert connection.vendor == "postgresql", connection.vendor
    user = quote(db["USER"] or "", safe="")
    password = quote(db["PASSWORD"] or "", safe="")
    auth = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = db["HOST"] or "127.0.0.1"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{auth}{host}{port}/{quote(db['NAME'], safe='')}"


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    finally:
        conn.close()


@dataclass
class DaphneServer:
    port: int
    log: Path
    env: dict[str, str] = field(repr=False)
    proc: subprocess.Popen[bytes] = field(repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`manage.py` with daphne's environment: on the same database."""
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def log_tail(self, lines: int = 80) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def daphne_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """Extra environment for the module's daphne: the one the module names with
    `DAPHNE_ENV` (tests/e2e/daphne_envs.py), for example the deadline ticker (AI moves,
    timeouts, the next game) with short delays."""
    return ENVS[daphne_env_name(request.module)]


def _daphne_start(env: dict[str, str], log: Path) -> DaphneServer:
    port = _free_port()
    with log.open("wb") as out:
        # Its own session, so that a signal reaches it (and only it) by its group id.
        proc = subprocess.Popen(
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = DaphneServer(port=port, log=log, env=env, proc=proc)
    end = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if proc.poll() is not None:
            pytest.fail(f"daphne exited (code {proc.returncode}):\n{server.log_tail()}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            if _get(port, "/healthz") == 200:
                return server
        if time.monotonic() > end:
            server.stop()
            pytest.fail(f"daphne did not answer /healthz:\n{server.log_tail()}")
        time.sleep(0.05)


class _Daphnes:
    """The daphne of this test process: one at a time, kept from module to module while
    the browser tests ask for the same environment, replaced when one asks for another,
    stopped when the next test is not a browser test. Never two at once, and none behind
    other tests: a daphne running the deadline ticker would sweep the clocks of tables it
    does not serve. What a test wrote is flushed after it, as within a module."""

    def __init__(self) -> None:
        self.server: DaphneServer | None = None

    def serving(self, env: dict[str, str], log: Path) -> DaphneServer:
        if self.server is not None and self.server.env == env and self.server.proc.poll() is None:
            return self.server
        self.stop()
        self.server = _daphne_start(env, log)
        return self.server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


_DAPHNES = _Daphnes()
# A run stopped by an error or Ctrl+C leaves no daphne behind.
atexit.register(_DAPHNES.stop)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    # After the fixtures' own teardown (trylast): the sockets are closed, the test's rows
    # flushed. The next browser test, if any, keeps the server when its settings match.
    here = Path(__file__).parent
    if nextitem is None or here not in Path(nextitem.path).parents:
        _DAPHNES.stop()
        _BROWSERS.stop()


@pytest.fixture(scope="module")
def daphne_server(
    django_db_setup: None,
    django_db_blocker: Any,
    tmp_path_factory: pytest.TempPathFactory,
    daphne_env: dict[str, str],
) -> DaphneServer:
    with django_db_blocker.unblock():
        database_url = _database_url()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "DEBUG": "1",
        "DEADLINE_TICKER": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # config.settings with the suite's fast password hasher (tests/e2e/daphne_settings.py).
        "DJANGO_SETTINGS_MODULE": "tests.e2e.daphne_settings",
        "PYTHONUNBUFFERED": "1",
        **daphne_env,
    }
    # pytest's own variables name the running test: they differ from module to module.
    env = {k: v for k, v in env.items() if k != "PYTEST_CURRENT_TEST"}
    return _DAPHNES.serving(env, tmp_path_factory.mktemp("e2e") / "daphne.log")


@pytest.fixture
def demo_tables(daphne_server: DaphneServer, transactional_db: None) -> str:
    """One open table per variant and the demo admin, as `make run` sets them up.

    `manage.py demo_setup` runs as a subprocess on the test database, as daphne does: in
    this process, Playwright's loop would stand in the way of the lobby broadcast.
    """
    done = daphne_server.manage("demo_setup")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(autouse=True)
def _sockets_closed_before_the_flush(
    request: pytest.FixtureRequest, transactional_db: None
) -> Iterator[None]:
    """After each test, close every browser context it left open and wait until daphne
    has let go of their table connections, before the test database is flushed: the
    disconnects write (presence, the reconnect grace), and on PostgreSQL those writes
    could deadlock with the flush's locks (config/testdb). Set up after `transactional_db`, so torn
    down before it."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            with contextlib.suppress(Exception):
                context.close()
    from play.models import Presence

    end = time.monotonic() + 15
    while Presence.objects.exists() and time.monotonic() < end:
        time.sleep(0.05)
    _until_daphne_is_quiet(deadline=time.monotonic() + 10)


# How long daphne's database connections must stay idle before the flush: longer than
# the lobby's coalescing (lobby.broadcast.LOBBY_COALESCE_SECONDS), after which the
# lobby's list is read — a read that, run as the flush takes its locks, can
# deadlock with it (a CI run lost the flush of test_lobby that way).
QUIET_SECONDS = 0.4


def _until_daphne_is_quiet(*, deadline: float) -> None:
    """Wait until no other connection to the test database runs a query or holds a
    transaction open, for QUIET_SECONDS in a row (PostgreSQL only: SQLite's flush takes
    the one write lock and waits)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                " AND state <> 'idle'"
            )
            busy = cursor.fetchone()[0]
        now = time.monotonic()
        if busy:
            quiet_since = now
        elif now - quiet_since >= QUIET_SECONDS:
            return
        time.sleep(0.05)


# --- the browser: pytest-playwright's fixtures, for one module at a time ---------------


@pytest.fixture(scope="module")
def chromium_path() -> str:
    path = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    if not path:
        _missing(
            f"no Chromium at {CHROMIUM} (apt-get install chromium)"
            + ("" if REQUIRE_SERVICES else ": the browser tests skip")
        )
    assert path
    return path


class _Browsers:
    """Playwright and its browser in this test process: started by the first browser test,
    kept from module to module while browser tests follow, stopped (with Django's async
    guard put back) when the next test is not one (pytest_runtest_teardown above). What a
    test leaves in the browser is in its contexts, which are closed after every test."""

    def __init__(self) -> None:
        self.pw: Any = None
        self.browser: Any = None
        self.guard: str | None = None

    def playwright(self) -> Any:
        if self.pw is None:
            from playwright.sync_api import sync_playwright

            self.guard = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "1"
            self.pw = sync_playwright().start()
        return self.pw

    def launched(self, launch: Callable[[], Any]) -> Any:
        if self.browser is None or not self.browser.is_connected():
            self.browser = launch()
        return self.browser

    def stop(self) -> None:
        if self.browser is not None:
            with contextlib.suppress(Exception):
                self.browser.close()
            self.browser = None
        if self.pw is not None:
            self.pw.stop()
            self.pw = None
            if self.guard is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = self.guard


_BROWSERS = _Browsers()
atexit.register(_BROWSERS.stop)


@pytest.fixture(scope="session", autouse=True)
def _stopped_before_the_test_database_is_dropped(django_db_setup: None) -> Iterator[None]:
    """When the run ends with a browser test, its browser and daphne are stopped before
    the test database is dropped (a fixture set up after django_db_setup is torn down
    before it): a daphne still running would connect again (its ticker, a page's socket)
    and the drop would fail."""
    yield
    _BROWSERS.stop()
    _DAPHNES.stop()


@pytest.fixture(scope="module")
def playwright(chromium_path: str) -> Any:
    return _BROWSERS.playwright()


@pytest.fixture(scope="module")
def browser_type(playwright: Any, browser_name: str) -> Any:
    if browser_name != "chromium":
        pytest.skip("only Debian's chromium is installed here")
    return playwright.chromium


@pytest.fixture(scope="module")
def launch_browser(
    browser_type_launch_args: dict[str, Any], browser_type: Any, chromium_path: str
) -> Callable[..., Any]:
    def launch(**kwargs: Any) -> Any:
        # pytest-playwright's options (--headed, --slowmo) with Debian's browser.
        options = {"executable_path": chromium_path, "args": ["--no-sandbox"]}
        return browser_type.launch(**{**browser_type_launch_args, **options, **kwargs})

    return launch


@pytest.fixture(scope="module")
def browser(launch_browser: Callable[..., Any]) -> Any:
    return _BROWSERS.launched(launch_browser)


@pytest.fixture(scope="module")
def browser_context_args(daphne_server: DaphneServer) -> dict[str, Any]:
    width, height = VIEWPORTS["desktop"]
    return {
        "base_url": daphne_server.url,
        "locale": "ru-RU",
        "viewport": {"width": width, "height": height},
    }


# --- console errors and CSP violations ---------------------------------------------------

# Chromium logs each CSP violation as a console error too; the event names the directive.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
});
"""


class Console:
    """What went wrong in a page: console errors, uncaught exceptions, failed loads, and
    a socket frame the protocol does not describe (the same checks as every socket test
    client's, tests/contract/frames.py)."""

    def __init__(self, page: Any) -> None:
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        page.on("requestfailed", self._failed)
        page.on("websocket", self._socket)
        page.add_init_script(REPORT_CSP_VIOLATIONS)

    def _socket(self, socket: Any) -> None:
        if "/ws/tables/" in socket.url:
            socket.on("framereceived", self._table_frame)
        elif "/ws/lobby/" in socket.url:
            socket.on("framereceived", self._lobby_frame)
        elif "/ws/tournaments/" in socket.url:
            socket.on("framereceived", self._tournament_frame)

    def _table_frame(self, payload: Any) -> None:
        problem = table_frame_problem(payload if isinstance(payload, str) else payload.decode())
        if problem is not None:
            self.problems.append(f"table frame out of the protocol: {problem}")

    def _lobby_frame(self, payload: Any) -> None:
        frame = json.loads(payload)
        found = read(frame, LobbyFrame)
        problem = (
            f"{found.reason} at {found.field}: {found.detail}"
            if isinstance(found, Problem)
            else spec_problem(frame, "lobby")
        )
        if problem is not None:
            self.problems.append(f"lobby frame out of the protocol: {problem}")

    def _tournament_frame(self, payload: Any) -> None:
        frame = json.loads(payload)
        found = read(frame, TournamentFrame)  # type: ignore[arg-type]
        problem = (
            f"{found.reason} at {found.field}: {found.detail}"
            if isinstance(found, Problem)
            else spec_problem(frame, "tournament")
        )
        if problem is not None:
            self.problems.append(f"tournament frame out of the protocol: {problem}")

    def _console(self, message: Any) -> None:
        if message.type in ("error", "assert"):
            self.problems.append(f"console.{message.type}: {message.text} ({message.location})")
        elif "Content Security Policy" in message.text:
            self.problems.append(f"console.{message.type}: {message.text}")

    def _failed(self, request: Any) -> None:
        # Leaving a page while its favicon or a fetch of its data (lobby.json, the
        # balance) still loads aborts that request: not a fault.
        aborted = "ERR_ABORTED" in str(request.failure)
        if aborted and (request.url.endswith("favicon.svg") or request.resource_type == "fetch"):
            return
        self.problems.append(f"request failed: {request.url} ({request.failure})")

    def take(self) -> list[str]:
        taken, self.problems = self.problems, []
        return taken

    def assert_clean(self, where: str = "") -> None:
        problems = self.take()
        assert not problems, f"browser errors {where}:\n" + "\n".join(problems)


@pytest.fixture
def console(page: Any) -> Iterator[Console]:
    collector = Console(page)
    yield collector
    collector.assert_clean("(at teardown)")


# --- screenshots -------------------------------------------------------------------------


# The PNGs under test-artifacts/ are for a person to look at (a page at 360 and 1280 px),
# not checked by a test: written when E2E_SCREENSHOTS=1, left out otherwise, since
# full-page captures were an eighth of the browser tests' time.
SCREENSHOTS = os.environ.get("E2E_SCREENSHOTS") == "1"


def screenshot(target: Any, path: Path | str, **options: Any) -> Path:
    """`target.screenshot` (a page or a locator) to `path`, when screenshots are asked for."""
    path = Path(path)
    if SCREENSHOTS:
        path.parent.mkdir(parents=True, exist_ok=True)
        target.screenshot(path=str(path), **options)
    return path


def shoot(page: Any, name: str) -> list[Path]:
    """Full-page screenshots of the current page at each viewport (E2E_SCREENSHOTS=1);
    returns their paths.

    At the phone width the page must not scroll sideways: checked whether or not the
    screenshots are taken.
    """
    paths = []
    for label, (width, height) in VIEWPORTS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_load_state("load")
        path = screenshot(page, ARTIFACTS / f"{name}-{width}x{height}.png", full_page=True)
        paths.append(path)
        if label == "phone":
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"{name}: {scroll}px wide at {width}px ({path})"
    return paths


# --- accessibility -------------------------------------------------------------------------


def check_accessibility(page: Any, name: str, context: str | None = None) -> None:
    """axe-core (bundled with axe-playwright-python): no serious or critical violation
    (in the element `context` selects, if given; else in the whole page)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context)
    bad = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"{name}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}" for v in bad
    )
