"""docker-compose.yml, the Dockerfile, .env.example, the Makefile and the README agree.

Docker cannot run on the development machines, so these files are checked by parsing.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _command(service: dict) -> str:
    command = service["command"]
    return command if isinstance(command, str) else shlex.join(command)


def _git(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], input=stdin, capture_output=True, text=True
    )


def test_compose_has_the_five_services_and_a_named_database_volume(compose):
    services = compose["services"]
    assert set(services) == {"proxy", "db", "redis", "web", "worker", "beat"}
    assert services["db"]["image"].startswith("postgres:16")
    assert any(v.startswith("pgdata:/var/lib/postgresql/data") for v in services["db"]["volumes"])
    assert "pgdata" in compose["volumes"]
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["redis"]["healthcheck"]["test"][-2:] == ["redis-cli", "ping"]


def test_compose_app_services_build_the_image_read_env_and_wait_for_healthy_services(compose):
    for name in ("web", "worker", "beat"):
        service = compose["services"][name]
        assert service["build"] == "."
        assert service["env_file"] == ".env"
        assert service["depends_on"] == {
            "db": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"] == "redis://redis:6379/0"


def test_compose_commands_migrate_then_serve_and_run_celery(compose):
    services = compose["services"]
    web = _command(services["web"])
    assert web.index("manage.py migrate") < web.index("daphne")
    assert "daphne --proxy-headers -b 0.0.0.0 -p 8000 config.asgi:application" in web
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    assert _command(services["worker"]).startswith("celery -A config worker")
    assert _command(services["beat"]).startswith("celery -A config beat")


def test_compose_serves_https_through_caddy_in_front_of_daphne(compose):
    services = compose["services"]
    proxy = services["proxy"]
    assert proxy["image"].startswith("caddy:2")
    published = {str(p).split(":")[-1] for p in proxy["ports"]}
    assert {"80", "443"} <= published
    assert "ports" not in services["web"], "daphne is reached only through the proxy"
    assert proxy["depends_on"] == {"web": {"condition": "service_healthy"}}
    mount = next(v for v in proxy["volumes"] if v.endswith(":/etc/caddy/Caddyfile:ro"))
    caddyfile = (ROOT / mount.split(":")[0]).read_text()
    assert "{$SITE_ADDRESS:localhost} {" in caddyfile  # localhost: Caddy's internal CA
    assert "reverse_proxy {" in caddyfile and "dynamic a {" in caddyfile
    assert "name web" in caddyfile and "port 8000" in caddyfile  # every web process
    assert {"caddy_data", "caddy_config"} <= set(compose["volumes"])
    # The web process trusts the proxy's headers: the scheme (secure cookies, no redirect
    # loop, the WebSocket origin check) and the client's address (sign-in throttling).
    assert services["web"]["environment"]["USE_X_FORWARDED_PROTO"] == "true"
    example = (ROOT / ".env.example").read_text()
    assert "ALLOWED_HOSTS=localhost\n" in example
    assert "CSRF_TRUSTED_ORIGINS=https://localhost\n" in example


def test_compose_database_settings_come_from_env_file_variables(compose):
    db_env = compose["services"]["db"]["environment"]
    example = _env_example()
    for variable in ("POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD"):
        assert variable in db_env and variable in example


def _dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (OP, arguments), continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text()
    return [
        (op.upper(), args)
        for op, args in (
            line.split(None, 1)
            for line in re.sub(r"\\\n", " ", text).splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        )
    ]


def test_dockerfile_installs_the_lock_collects_static_and_runs_as_non_root():
    instructions = _dockerfile()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    runs = [args for op, args in instructions if op == "RUN"]
    assert any("manage.py collectstatic --noinput" in r for r in runs)
    users = [args.strip() for op, args in instructions if op == "USER"]
    assert users and users[-1] not in {"root", "0"}
    ops = [op for op, _ in instructions]
    assert ops.index("COPY") < ops.index("RUN")  # the lock is copied before installing
    assert "DEBUG=false" in (ROOT / "Dockerfile").read_text()  # production by default


def test_dockerfile_installs_only_the_hashed_production_lock_then_the_project_without_deps():
    instructions = _dockerfile()
    installs = [
        (index, args)
        for index, (op, args) in enumerate(instructions)
        if op == "RUN" and "pip install" in args
    ]
    assert [shlex.split(args) for _, args in installs] == [
        ["pip", "install", "--require-hashes", "--no-deps", "-r", "requirements/prod.txt"],
        # The project adds no packages and fetches nothing: its build backend is locked.
        ["pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "."],
    ]
    # Only the lock is in the image when the dependencies are installed (the layer cache),
    # and the project's own files come after them.
    copies = [
        (index, args.split()) for index, (op, args) in enumerate(instructions) if op == "COPY"
    ]
    assert copies[0][1] == ["requirements/prod.txt", "requirements/prod.txt"]
    assert copies[0][0] < installs[0][0] < copies[1][0] < installs[1][0]
    assert copies[1][1] == [".", "."]
    assert "dev" not in " ".join(args for _, args in instructions)


def test_dockerfile_default_command_is_compose_web_command(compose):
    (cmd,) = [args for op, args in _dockerfile() if op == "CMD"]
    web = compose["services"]["web"]["command"]
    assert json.loads(cmd) == web
    script = web[-1]
    assert script.index("manage.py migrate --noinput") < script.index("daphne")
    # exec: daphne replaces the shell, so the container's stop signal reaches it.
    assert "exec daphne --proxy-headers -b 0.0.0.0 -p 8000 config.asgi:application" in script


# --- the build context: .dockerignore, by Docker's own matching rules --------------------


def _dockerignore() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _build_context(root: Path) -> set[str]:
    """The files `docker build` sends from `root` with the project's .dockerignore."""
    from docker.utils.build import exclude_paths

    sent = exclude_paths(str(root), _dockerignore())
    return {path for path in sent if (root / path).is_file()}


# What must never reach the builder, wherever it lies in the checkout.
NEVER_SENT = [
    ".env",
    ".env.production",
    "config/.env",
    "tables/.env.local",
    ".git/config",
    ".git/objects/ab/cdef",
    ".venv/bin/python",
    ".venv/lib/python3.11/site-packages/django/__init__.py",
    "venv/pyvenv.cfg",
    "db.sqlite3",
    "db.sqlite3-journal",
    "accounts/db.sqlite3",
    "test_twentyone.sqlite3",
    "test_wt_x.sqlite3",
    "celerybeat-schedule",
    "celerybeat-schedule.bak",
    "celerybeat-schedule.dat",
    "celerybeat-schedule.dir",
    "config/celerybeat-schedule.db",
    "node_modules/axe-core/axe.js",
    "static/node_modules/x/index.js",
    "tables/__pycache__/models.cpython-311.pyc",
    "games/engine.pyc",
    ".pytest_cache/v/cache/lastfailed",
    ".mypy_cache/3.11/games.json",
    ".ruff_cache/content",
    ".hypothesis/examples/x",
    "test-artifacts/trace.zip",
    "test-results/report.xml",
    "staticfiles/css/site.css",
    "media/avatar.png",
    "twenty_one.egg-info/PKG-INFO",
    "server.pem",
    "config/tls.key",
    "requirements/dev.txt",
    "tests/test_x.py",
    "benchmarks/live/__main__.py",
]
# What the image runs.
SENT = [
    "manage.py",
    "pyproject.toml",
    "requirements/prod.txt",
    "config/settings.py",
    "accounts/services.py",
    "games/engine.py",
    "tables/models.py",
    "play/edge/consumers.py",
    "lobby/consumers.py",
    "insights/stats.py",
    "history/replays.py",
    "templates/base.html",
    "static/js/table/main.js",
    "locale/en/LC_MESSAGES/django.mo",
]


def test_dockerignore_keeps_secrets_vcs_venvs_databases_and_caches_out_of_the_context(
    tmp_path: Path,
):
    for relative in [*NEVER_SENT, *SENT]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("x")
    (tmp_path / ".dockerignore").write_text((ROOT / ".dockerignore").read_text())
    sent = _build_context(tmp_path)
    assert set(NEVER_SENT) & sent == set()
    assert set(SENT) <= sent


def _packages_imported_by(folders: set[str]) -> set[str]:
    """The project's top-level packages (folders with an __init__.py at the root) that a
    module in `folders` imports."""
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    found: set[str] = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                else:
                    continue
                found |= {name.split(".")[0] for name in names} & packages
    return found


def test_dockerignore_sends_every_tracked_file_the_image_runs_and_nothing_git_ignores():
    sent = _build_context(ROOT)
    tracked = set(_git("ls-files").stdout.splitlines())
    # Every app of the project's own (a new one is sent without anyone remembering to).
    apps = {app for app in settings.INSTALLED_APPS if (ROOT / app / "apps.py").is_file()}
    assert {"accounts", "tables", "play", "lobby", "insights", "history"} <= apps
    runs = {"config", "lib", "games", "contract", "templates", "static", "locale", *apps}
    # And every package of the project's that the image's code imports: a new one (the
    # message definitions, contract/, were once left out and the image could not start).
    # (benchmarks: only config.routing's echo mount, under the benchmark's own settings.)
    assert _packages_imported_by(runs) - runs == {"benchmarks"}
    needed = {path for path in tracked if path.split("/", 1)[0] in runs}
    needed |= {"manage.py", "pyproject.toml", "requirements/prod.txt"}
    assert needed - sent == set()
    # Of the tracked files, only those (and the two that Docker always reads) are sent.
    assert (sent & tracked) - needed <= {"Dockerfile", ".dockerignore"}
    # Of this checkout's untracked files, none that git ignores (a virtualenv, a local
    # database, caches, an .env) would be sent: exit status 1 is "none is ignored".
    check = _git("check-ignore", "--stdin", stdin="\n".join(sorted(sent - tracked)))
    assert check.returncode != 0 and check.stdout == "", check.stdout


# --- the locks ---------------------------------------------------------------------------

PROD_LOCK = ROOT / "requirements" / "prod.txt"
DEV_LOCK = ROOT / "requirements" / "dev.txt"
# Never in the image: the test, lint and browser tools (and the lock and audit tools).
DEV_TOOLS = {"pytest", "mypy", "ruff", "playwright", "hypothesis", "uv", "pip-audit", "docker"}


def _lock(path: Path) -> dict[str, tuple[str, frozenset[str]]]:
    """A lock as {name: (version, hashes)}; every entry must be `name==version` + hashes."""
    from packaging.utils import canonicalize_name

    text = re.sub(r"\\\n", " ", path.read_text())
    entries: dict[str, tuple[str, frozenset[str]]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(
            r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", line
        )
        assert match, f"{path.name}: not a hashed exact pin: {line[:80]}"
        name, version, hashes = match.groups()
        entries[canonicalize_name(name)] = (version, frozenset(hashes.split()))
    return entries


def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_locks_pin_every_package_exactly_with_hashes_and_satisfy_pyproject():
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = _pyproject()
    prod, dev = _lock(PROD_LOCK), _lock(DEV_LOCK)
    build = [
        line
        for line in (ROOT / "requirements" / "build.in").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert build == project["build-system"]["requires"]
    for lock, requirements in (
        (prod, [*project["project"]["dependencies"], *build]),
        (dev, [*project["project"]["optional-dependencies"]["dev"], *build]),
    ):
        for requirement in map(Requirement, requirements):
            name = canonicalize_name(requirement.name)
            assert name in lock, requirement
            assert requirement.specifier.contains(lock[name][0], prereleases=True), requirement


def test_production_lock_holds_no_dev_only_package_and_dev_lock_extends_it():
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    prod, dev = _lock(PROD_LOCK), _lock(DEV_LOCK)
    dev_extra = {
        canonicalize_name(Requirement(r).name)
        for r in _pyproject()["project"]["optional-dependencies"]["dev"]
    }
    assert dev_extra >= DEV_TOOLS
    assert (
        set(prod) & (dev_extra | {"pytest-django", "pytest-asyncio", "pytest-playwright"}) == set()
    )
    # The same version and the same hashes for every package of the production lock.
    assert {name: dev.get(name) for name in prod} == prod


def test_production_lock_is_complete_for_an_install_without_dependency_resolution():
    """The image installs the lock with --no-deps: every package that pyproject.toml's
    dependencies need, transitively (as this interpreter evaluates the markers), is in it.
    The dependencies are read from the installed packages' metadata (.venv is the dev lock,
    which has the production lock's versions)."""
    from importlib.metadata import distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    prod = _lock(PROD_LOCK)
    pending = [Requirement(r) for r in _pyproject()["project"]["dependencies"]]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        assert name in prod, f"{name} (for {requirement}) is missing from {PROD_LOCK.name}"
        dist = distribution(name)
        assert canonicalize_name(dist.version) == canonicalize_name(prod[name][0]), name
        for text in dist.requires or []:
            needed = Requirement(text)
            if needed.marker is None or any(
                needed.marker.evaluate({"extra": extra}) for extra in {"", *requirement.extras}
            ):
                pending.append(needed)
    assert len(seen) > len(_pyproject()["project"]["dependencies"])


@pytest.mark.django_db(transaction=True)
def test_asgi_health_endpoint_answers_without_host_check():
    import asyncio

    import msgspec
    from asgiref.testing import ApplicationCommunicator

    from config.asgi import application
    from contract.http import Health

    async def get():
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/healthz",
            "headers": [(b"host", b"not-an-allowed-host.invalid")],
            "query_string": b"",
        }
        comm = ApplicationCommunicator(application, scope)
        await comm.send_input({"type": "http.request", "body": b""})
        start = await comm.receive_output(5)
        body = await comm.receive_output(5)
        return start["status"], body["body"]

    status, body = asyncio.run(get())
    assert status == 200
    # Its body as docs/openapi.yaml's `health` defines it.
    assert msgspec.json.decode(body, type=Health, strict=True) == Health(status="ok")


# --- environment variables: settings, .env.example and the README stay in step ---------


def _env_example() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^([A-Z][A-Z0-9_]*)=", text, re.M))


def _settings_variables() -> set[str]:
    text = (ROOT / "config" / "settings.py").read_text()
    return set(re.findall(r"env(?:\.\w+)?\(\s*\"([A-Z][A-Z0-9_]*)\"", text))


def test_every_environment_variable_in_settings_is_in_env_example_and_readme():
    read = _settings_variables()
    assert {"SECRET_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS"} <= read
    example = _env_example()
    readme = (ROOT / "README.md").read_text()
    assert read - example == set(), "missing from .env.example"
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)`", readme, re.M))
    assert (read | example) - documented == set(), "missing from the README's table"


def test_readme_quick_start_is_exactly_make_run_and_make_test():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```(?:\w+)?\n(.*?)```", section, re.S)
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert commands == ["make run", "make test"]


def test_makefile_has_the_entry_points():
    text = (ROOT / "Makefile").read_text()
    for target in ("run", "test", "lint", "bench", "install"):
        assert re.search(rf"^{target}:", text, re.M), target
    assert "$(BIN)/python -m benchmarks" in text
    assert "daphne -b $(HOST) -p $(PORT) config.asgi:application" in text


def test_makefile_installs_the_dev_lock_with_hashes_and_regenerates_and_audits_the_locks():
    text = (ROOT / "Makefile").read_text()
    assert "PROD_LOCK := requirements/prod.txt" in text
    assert "DEV_LOCK  := requirements/dev.txt" in text
    # A changed lock reinstalls.
    assert re.search(r"^\$\(STAMP\): pyproject.toml \$\(PROD_LOCK\) \$\(DEV_LOCK\)$", text, re.M)
    assert "install --require-hashes --no-deps -r $(DEV_LOCK)" in text
    assert "install --no-deps --no-build-isolation --no-index -e ." in text
    assert "[dev]" not in text.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    for target in ("lock", "audit"):
        assert re.search(rf"^{target}: \$\(STAMP\)$", text, re.M), target
    lock = text.split("\nlock:", 1)[1].split("\n\n", 1)[0]
    assert "-o $(PROD_LOCK)" in lock and "-o $(DEV_LOCK)" in lock
    assert "--extra dev -c $(PROD_LOCK)" in lock  # dev: the production pins, plus dev's
    assert "--generate-hashes" in text.split("UV_COMPILE :=", 1)[1].split("\n\n", 1)[0]
    audit = text.split("\naudit:", 1)[1].split("\n\n", 1)[0]
    assert "$(BIN)/pip-audit" in audit and "-r $(PROD_LOCK)" in audit


# --- Celery beat's state file ------------------------------------------------------------


def test_beat_state_file_is_outside_the_checkout_and_never_in_git(compose):
    from config.celery import app

    state = Path(app.conf.beat_schedule_filename)
    assert state.is_absolute() and ROOT not in state.parents
    beat = compose["services"]["beat"]["command"]
    assert beat[beat.index("--schedule") + 1].startswith("/tmp/")
    assert "celerybeat-schedule*" in (ROOT / ".gitignore").read_text().splitlines()
    assert _git("ls-files", "celerybeat-schedule*", "**/celerybeat-schedule*").stdout == ""


def test_ci_script_starts_services_and_requires_them():
    text = (ROOT / ".ci" / "run").read_text()
    assert text.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in text
    for needle in (
        "pg_ctlcluster --skip-systemctl-redirect",
        "redis-server --daemonize yes",
        "REQUIRE_SERVICES=1",
        "postgres://postgres@",
        "redis://127.0.0.1:6379/0",
        "make test",
        "apt-get install -y chromium",  # the browser tests (tests/e2e)
    ):
        assert needle in text, needle
    assert text.index("apt-get install -y chromium") < text.rindex("make test")
