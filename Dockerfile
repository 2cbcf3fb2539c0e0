# The production image: daphne (web), Celery worker and beat all run from it
# (docker-compose.yml picks the command). The build context is .dockerignore's allow-list.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBUG=false

WORKDIR /app

# Dependencies first, so code changes reuse this layer: exactly the production lock (no
# pytest, mypy, ruff, playwright or hypothesis), every file checked against its hash, and
# no resolution of its own (--no-deps: the lock is already complete).
COPY requirements/prod.txt requirements/prod.txt
RUN pip install --require-hashes --no-deps -r requirements/prod.txt

COPY . .

# The project itself adds no packages; its build backend (setuptools) came from the lock.
RUN pip install --no-deps --no-build-isolation --no-index .

# collectstatic runs without the real secrets: build-time values only, never used at runtime.
RUN SECRET_KEY=build-only-collectstatic-key-0123456789-abcdefghijklmnopqrstuvwxyz \
    ALLOWED_HOSTS=build.invalid \
    python manage.py collectstatic --noinput

RUN useradd --create-home --uid 1000 app && chown -R app:app /app
USER app

EXPOSE 8000
# The same as docker-compose.yml's web command (a test keeps them equal): migrations (a
# no-op when up to date), then daphne in place of the shell (exec: it gets the stop signal)
# with --proxy-headers, the client's address from the proxy's X-Forwarded-For.
CMD ["sh", "-c", "python manage.py migrate --noinput && exec daphne --proxy-headers -b 0.0.0.0 -p 8000 config.asgi:application"]
