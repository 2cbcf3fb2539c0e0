# The production image: daphne (web), Celery worker and beat all run from it
# (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBUG=false

WORKDIR /app

# Dependencies first, pinned by the lock, so code changes reuse this layer.
COPY requirements.lock ./
RUN pip install -r requirements.lock

COPY . .

# collectstatic runs without the real secrets: build-time values only, never used at runtime.
RUN SECRET_KEY=build-only-collectstatic-key-0123456789-abcdefghijklmnopqrstuvwxyz \
    ALLOWED_HOSTS=build.invalid \
    python manage.py collectstatic --noinput

RUN useradd --create-home --uid 1000 app && chown -R app:app /app
USER app

EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
