# Entry points. A fresh machine needs only python3 (3.11+) and make:
#   make run    install into .venv, migrate, demo data, serve on http://127.0.0.1:8000
#   make test   install into .venv, run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Touched after a successful install; reinstall only when the dependencies change.
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install run test lint format bench bench-live messages clean

install: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[dev]'
	@touch $(STAMP)

# Development mode (DEBUG on, the development key) for these targets only: the
# settings default to production (config/settings.py).
run test messages: export DEBUG ?= true

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_setup --base-url http://$(HOST):$(PORT)
	@echo "Serving Twenty-One on http://$(HOST):$(PORT)/ (Ctrl+C stops)"
	$(BIN)/daphne -b $(HOST) -p $(PORT) config.asgi:application

test: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# Live tables under load against an echo baseline (benchmarks/live.py): starts daphne, a
# Celery worker and beat on this machine's PostgreSQL and Redis (BENCH_PG_URL, default
# postgres://postgres@127.0.0.1:5432/postgres; BENCH_REDIS_URL, default db 13, flushed),
# in a database of its own. About 10 minutes; BENCH_ARGS=--quick for a one-minute smoke.
bench-live: $(STAMP)
	$(BIN)/python -m benchmarks.live $(BENCH_ARGS)

# Recompile translations after editing locale/*/LC_MESSAGES/django{,js}.po (needs gettext's
# msgfmt). The compiled .mo files are committed, so `make run` never needs gettext.
messages: $(STAMP)
	$(BIN)/python manage.py makemessages --locale en --ignore '.venv/*' --ignore 'games/*' --ignore 'tests/*'
	$(BIN)/python manage.py makemessages --locale en --domain djangojs --ignore '.venv/*' --ignore 'staticfiles/*' --ignore 'tests/*' --ignore 'test-artifacts/*'
	$(BIN)/python manage.py compilemessages --locale en --ignore '.venv/*'

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache
