"""Production mode refuses weak configuration; `check --deploy` is clean under it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k9#Qe2!vR7zL0pW4xN8sT1yB6mH3jD5fG-aZcUoIbEwYrKtPnAqSlVdXg"


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "DJANGO_SETTINGS_MODULE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_without_a_secret_key_fails_with_a_clear_message():
    done = _manage("check", DEBUG="false", ALLOWED_HOSTS="twentyone.example.com")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "SECRET_KEY" in done.stderr and "at least 50 characters" in done.stderr


def test_a_server_started_without_debug_or_a_secret_key_refuses_to_start():
    """Production is the default: only `make run` / `make test` (and the test settings)
    turn development mode on, so the published development key is never used by a server
    started any other way."""
    done = _manage("check", ALLOWED_HOSTS="twentyone.example.com")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and "SECRET_KEY" in done.stderr
    assert "DEBUG=true" in done.stderr  # says how to get development mode


def test_make_run_make_test_and_make_test_fast_turn_development_mode_on():
    makefile = (ROOT / "Makefile").read_text()
    assert "run test test-fast messages: export DEBUG ?= true" in makefile
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "-f", "-", "show"],
        cwd=ROOT,
        input=makefile + "\nshow:\n\t@echo $$DEBUG\n",
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "DEBUG"},
    )
    assert done.stdout.strip() == ""  # other targets stay in production mode


@pytest.mark.parametrize(
    "key",
    ["short-key", "django-insecure-" + "x1y2z3" * 10, "a" * 60],
)
def test_production_refuses_a_weak_secret_key(key):
    done = _manage("check", DEBUG="false", ALLOWED_HOSTS="h.example", SECRET_KEY=key)
    assert done.returncode != 0 and "SECRET_KEY" in done.stderr


def test_production_without_allowed_hosts_fails_with_a_clear_message():
    done = _manage("check", DEBUG="false", SECRET_KEY=STRONG_KEY)
    assert done.returncode != 0
    assert "ALLOWED_HOSTS" in done.stderr and "ImproperlyConfigured" in done.stderr


def test_check_deploy_is_clean_under_production_settings():
    done = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "DEBUG",
        DEBUG="false",
        SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="twentyone.example.com",
        CSRF_TRUSTED_ORIGINS="https://twentyone.example.com",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_embedded_defaults_without_service_urls():
    code = (
        "import django; django.setup(); from django.conf import settings as s;"
        "print(s.DEBUG, s.DATABASES['default']['ENGINE'],"
        " s.CHANNEL_LAYERS['default']['BACKEND'], s.DEADLINE_TICKER, s.CELERY_TASK_ALWAYS_EAGER)"
    )
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "DEADLINE_TICKER"}
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**base, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "config.settings"},
        check=True,
    )
    assert done.stdout.split() == [
        "True",
        "django.db.backends.sqlite3",
        "channels.layers.InMemoryChannelLayer",
        "True",
        "True",
    ]


def test_service_urls_switch_to_postgres_redis_layer_and_celery_broker():
    code = (
        "import django; django.setup(); from django.conf import settings as s;"
        "from config.celery import app;"
        "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.DEADLINE_TICKER, app.conf.broker_url, app.conf.task_always_eager)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": "postgres://u:p@db.invalid:5432/x",
            "REDIS_URL": "redis://redis.invalid:6379/0",
        },
    )
    assert done.stdout.split() == [
        "django.db.backends.postgresql",
        "config.channel_layer.RedisPubSubChannelLayer",
        "False",
        "redis://redis.invalid:6379/0",
        "False",
    ]


def test_postgresql_connections_are_pooled_unless_persistent_ones_are_asked_for():
    code = (
        "import django; django.setup(); from django.conf import settings as s;"
        "d = s.DATABASES['default'];"
        "print(bool(d.get('OPTIONS', {}).get('pool')), d['CONN_MAX_AGE'])"
    )
    base = {k: v for k, v in os.environ.items() if k not in {"CONN_MAX_AGE", "DATABASE_POOL"}}

    def run(**env: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={
                **base,
                "DEBUG": "true",
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": "postgres://u@db.invalid:5432/x",
                **env,
            },
            check=True,
        )
        return done.stdout.split()

    assert run() == ["True", "0"]
    assert run(DATABASE_POOL="false") == ["False", "0"]
    assert run(CONN_MAX_AGE="60") == ["False", "60"]  # Django refuses both at once
