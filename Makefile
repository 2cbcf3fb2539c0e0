# Entry points. A fresh machine needs only python3 (3.11+) and make:
#   make run    install into .venv, migrate, demo data, serve on http://127.0.0.1:8000
#   make test   install into .venv, run the whole test suite
#   make test-fast   the inner loop: no browser, no servers of the tests' own
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Touched after a successful install; reinstall only when the dependencies change.
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

# The locks: every package at an exact version, with the hash of each of its files.
# PROD_LOCK is what the image installs (pyproject.toml's dependencies); DEV_LOCK is the same
# pins plus the [dev] extra's, for .venv. Both target the image's interpreter: CPython 3.11
# on Linux.
PROD_LOCK := requirements/prod.txt
DEV_LOCK  := requirements/dev.txt
PIP       := $(BIN)/python -m pip --quiet --disable-pip-version-check

.PHONY: install run test test-fast lint format bench bench-live bench-fairplay messages lock audit clean spec examples bot

# AsyncAPI's own JSON Schema of AsyncAPI 3.0.0, which the suite validates
# docs/asyncapi.yaml against (scripts/asyncapi_schema.py: pinned, hash-checked).
ASYNCAPI_SCHEMA := $(VENV)/share/asyncapi/3.0.0.json

install: $(STAMP) $(ASYNCAPI_SCHEMA)

$(ASYNCAPI_SCHEMA): scripts/asyncapi_schema.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python scripts/asyncapi_schema.py $@

# Hash-checked, and no dependency resolution at install time: what is installed is exactly
# the lock. The project itself adds no packages (--no-deps), and its build backend is in the
# lock (requirements/build.in), so that step fetches nothing (--no-index).
$(STAMP): pyproject.toml $(PROD_LOCK) $(DEV_LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --require-hashes --no-deps -r $(DEV_LOCK)
	$(PIP) install --no-deps --no-build-isolation --no-index -e .
	@touch $(STAMP)

# Regenerate both locks from pyproject.toml (and requirements/build.in). uv keeps every pin
# already in a lock that still fits: to move one, LOCK_ARGS='--upgrade-package NAME'. The
# dev lock is resolved under the production lock as constraints, so the two never differ
# on a shared package.
UV_COMPILE := $(BIN)/uv pip compile --quiet --python-version 3.11 --python-platform linux \
	--generate-hashes --custom-compile-command 'make lock' $(LOCK_ARGS)

lock: $(STAMP)
	$(UV_COMPILE) pyproject.toml requirements/build.in -o $(PROD_LOCK)
	$(UV_COMPILE) --extra dev -c $(PROD_LOCK) pyproject.toml requirements/build.in -o $(DEV_LOCK)

# Known vulnerabilities in the production lock's pins (pip-audit against PyPI's advisory
# data: needs the network, so it is not part of the test suite or CI). --strict: a package
# it could not look up fails the audit instead of being skipped in silence.
audit: $(STAMP)
	$(BIN)/pip-audit --progress-spinner off --strict --require-hashes --disable-pip -r $(PROD_LOCK)

# Development mode (DEBUG on, the development key) for these targets only: the
# settings default to production (config/settings.py).
run test test-fast messages: export DEBUG ?= true

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_setup --base-url http://$(HOST):$(PORT)
	@echo "Serving Twenty-One on http://$(HOST):$(PORT)/ (Ctrl+C stops)"
	$(BIN)/daphne -b $(HOST) -p $(PORT) config.asgi:application

# The suite on every core (pytest-xdist): a process per core, each with its own test
# database and Redis database (config/test_settings.py). --dist loadscope keeps a module's
# tests in one process, so that the browser and the servers a module starts start once;
# --no-loadscope-reorder hands the modules out in tests/conftest.py's order, longest
# first (the default would order them by their number of tests).
# TEST_WORKERS=0 runs in this process (for a debugger).
TEST_WORKERS ?= auto
XDIST := -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder
test: $(STAMP) $(ASYNCAPI_SCHEMA)
	$(BIN)/pytest $(XDIST) $(PYTEST_ARGS)

# The inner loop: everything but the browser tests (e2e) and the tests that start servers
# of their own (slow: daphne, Celery, redis-server), with a tenth of the property tests'
# examples unless HYPOTHESIS_PROFILE=ci.
test-fast: $(STAMP) $(ASYNCAPI_SCHEMA)
	$(BIN)/pytest $(XDIST) -m "not e2e and not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# Live tables under load against an echo baseline (benchmarks/live/): starts daphne, a
# Celery worker and beat on this machine's PostgreSQL and Redis (BENCH_PG_URL, default
# postgres://postgres@127.0.0.1:5432/postgres; BENCH_REDIS_URL, default db 13, flushed),
# in a database of its own. About 10 minutes; BENCH_ARGS=--quick for a one-minute smoke.
bench-live: $(STAMP)
	$(BIN)/python -m benchmarks.live $(BENCH_ARGS)

# The fair-play detector measured (docs/fair-play.md "Measured"): a simulated population
# plays banker36 (or salon: BENCH_ARGS=--variant salon) through the real services in a
# throwaway SQLite database; the last line
# gives rings flagged, decisions until flagged, recall, precision, false-positive rate.
# About 12 minutes; BENCH_ARGS="--honest 12 --dumping 2 --soft 1 --sessions 4" for a quicker look.
bench-fairplay: $(STAMP)
	@dir=$$(mktemp -d); db="sqlite:///$$dir/fairplay.sqlite3"; \
	DEBUG=true DATABASE_URL=$$db REDIS_URL= $(BIN)/python manage.py migrate --no-input -v 0 \
	&& DEBUG=true DATABASE_URL=$$db REDIS_URL= $(BIN)/python manage.py fairplay_bench $(BENCH_ARGS); \
	status=$$?; rm -rf "$$dir"; exit $$status

# The reference bot (bot/README.md) against `make run`'s server (BOT_SERVER to change it):
#   make bot TOKEN=t21_... TABLE=5            play table 5
#   make bot TOKEN=t21_... BOT_ARGS='--open solo'   open a table through the lobby, play it
# The token goes through the environment, not the command line the process list shows.
BOT_SERVER ?= http://$(HOST):$(PORT)
bot: $(STAMP)
	@BOT_TOKEN='$(TOKEN)' $(BIN)/python -m bot --server $(BOT_SERVER) $(if $(TABLE),--table $(TABLE)) $(BOT_ARGS)

# Recompile translations after editing locale/*/LC_MESSAGES/django{,js}.po (needs gettext's
# msgfmt). The compiled .mo files are committed, so `make run` never needs gettext.
# docs/asyncapi.yaml and docs/openapi.yaml from the message definitions (contract/).
spec: $(STAMP)
	$(BIN)/python -m contract.spec

# docs/protocol.md §16's transcripts, rewritten from a run of its sessions through the server
# (tests/contract/examples.py); tests/contract/test_protocol_examples.py holds them equal.
examples: $(STAMP)
	PROTOCOL_EXAMPLES=write $(BIN)/pytest -q -p no:cacheprovider tests/contract/test_protocol_examples.py

messages: $(STAMP)
	$(BIN)/python manage.py makemessages --locale en --ignore '.venv/*' --ignore 'games/*' --ignore 'tests/*'
	$(BIN)/python manage.py makemessages --locale en --domain djangojs --ignore '.venv/*' --ignore 'staticfiles/*' --ignore 'tests/*' --ignore 'test-artifacts/*'
	$(BIN)/python manage.py compilemessages --locale en --ignore '.venv/*'

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache .mypy_cache
