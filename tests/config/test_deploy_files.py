"""docker-compose.yml, the Dockerfile, .env.example, the Makefile and the README agree.

Docker cannot run on the development machines, so these files are checked by parsing.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

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


def test_dockerfile_installs_the_lock_collects_static_and_runs_as_non_root():
    text = (ROOT / "Dockerfile").read_text()
    instructions = [
        line.split(None, 1)
        for line in re.sub(r"\\\n", " ", text).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    first = instructions[0]
    assert first == ["FROM", "python:3.11-slim"]
    runs = [args for op, args in instructions if op == "RUN"]
    assert any("pip install -r requirements.lock" in r for r in runs)
    assert any("manage.py collectstatic --noinput" in r for r in runs)
    users = [args.strip() for op, args in instructions if op == "USER"]
    assert users and users[-1] not in {"root", "0"}
    ops = [op for op, _ in instructions]
    assert ops.index("COPY") < ops.index("RUN")  # the lock is copied before installing
    assert "DEBUG=false" in text  # the image is production by default
    cmd = [args for op, args in instructions if op == "CMD"][-1]
    assert "config.asgi:application" in cmd


@pytest.mark.django_db(transaction=True)
def test_asgi_health_endpoint_answers_without_host_check():
    import asyncio

    from asgiref.testing import ApplicationCommunicator

    from config.asgi import application

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
    assert status == 200 and b'"ok"' in body


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
    assert "-c requirements.lock -e '.[dev]'" in text
    assert "daphne -b $(HOST) -p $(PORT) config.asgi:application" in text


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
