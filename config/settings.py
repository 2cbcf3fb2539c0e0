"""Settings for Twenty-One.

This module is the one place that reads the environment (through django-environ). Every
variable read here is listed in `.env.example` and in the README's table; a test keeps
the three in step.

Two modes follow from the environment:
- embedded (no DATABASE_URL / REDIS_URL): SQLite, the in-memory channel layer and an
  in-process ticker that sweeps turn deadlines, so `make run` needs nothing installed;
- services (DATABASE_URL / REDIS_URL set): PostgreSQL, the channels_redis layer, and
  Celery on Redis with beat sweeping the deadlines.
"""

import datetime
import tempfile
from pathlib import Path

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from play.clock.schedules import DeadlinesDue

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# --- Mode and secrets ------------------------------------------------------------------

# Production unless told otherwise: a server started any other way than `make run` /
# `make test` (which set DEBUG=true, as config/test_settings.py does for pytest) without
# a SECRET_KEY refuses to start instead of signing sessions with the published key below.
DEBUG = env.bool("DEBUG", default=False)

# Only ever used when DEBUG is on: production refuses it below.
DEV_SECRET_KEY = "django-insecure-twentyone-development-key-never-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default=DEV_SECRET_KEY)

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

if not DEBUG:
    # The same three checks as Django's security.W009, but fatal: a production process
    # with a guessable key signs sessions anyone can forge.
    if (
        SECRET_KEY == DEV_SECRET_KEY
        or SECRET_KEY.startswith("django-insecure")
        or len(SECRET_KEY) < 50
        or len(set(SECRET_KEY)) < 5
    ):
        raise ImproperlyConfigured(
            "DEBUG is off (production mode) but SECRET_KEY is missing or weak: set "
            "SECRET_KEY to a random string of at least 50 characters, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(64))'. "
            "For development set DEBUG=true (make run and make test do)."
        )
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured(
            "DEBUG is off (production mode) but ALLOWED_HOSTS is empty: set ALLOWED_HOSTS "
            "to the comma-separated host names the site is served under."
        )

# --- Applications ----------------------------------------------------------------------

INSTALLED_APPS = [
    "daphne",  # makes `manage.py runserver` serve the ASGI app (HTTP + WebSockets)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "csp",  # its system check refuses django-csp 3's CSP_* settings
    "axes",  # sign-in throttling (see Auth below)
    "accounts",
    # One app per concern, each importing only those listed above it (tests/test_architecture.py).
    "tables",
    "play",
    "lobby",
    "insights",
    "history",
    "people",
    "chat",
    "moderation",
    "tournaments",
    "push",
    "fairplay",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The device cookie a sign-in records, hashed (fairplay: linked accounts, issue 32).
    "fairplay.middleware.DeviceCookie",
    # `Authorization: Bearer` (personal access tokens) on the JSON endpoints.
    "config.bearer.BearerRequests",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "accounts.context_processors.wallet",
                "moderation.context_processors.notices",
            ],
        },
    },
]

# --- Database --------------------------------------------------------------------------

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Embedded mode: SQLite ignores SELECT ... FOR UPDATE, so every transaction takes the
    # write lock when it begins; chip transfers from the web threads and the ticker then
    # run one after another instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
else:
    # 0 by default: under ASGI, Django advises against persistent connections (each
    # sync_to_async thread would keep its own); raise it only behind a pooler.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Connections are reused through Django's PostgreSQL pool (psycopg_pool) instead:
    # opening one per database call was half the cost of every move under load
    # (make bench-live: p99 at 100 players 584 ms without reuse, 185 ms with it). A
    # connection that broke (the server restarted, the backend was terminated) is
    # discarded by the pool, not handed out again.
    if env.bool("DATABASE_POOL", default=True) and not DATABASES["default"]["CONN_MAX_AGE"]:
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": env.int("DATABASE_POOL_SIZE", default=20),
            "timeout": 10,
        }
# The test database's name: set it apart to run two test sessions on one machine at once.
DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_DATABASE_NAME", default="test_twentyone")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer and Celery ---------------------------------------------------

REDIS_URL = env.str("REDIS_URL", default="")

# Which channels_redis layer carries the live frames (docs/deployment.md, "The channel
# layer"): `pubsub`, Redis PUBLISH/SUBSCRIBE (one subscription per web process and group,
# no per-channel capacity to overflow, no receive lock), or `core`, channels_redis's
# list-based layer (every socket of a process behind one Redis list, read a message at a
# time).
CHANNEL_LAYER = env.str("CHANNEL_LAYER", default="pubsub")
if CHANNEL_LAYER not in ("core", "pubsub"):
    raise ImproperlyConfigured(f"CHANNEL_LAYER must be core or pubsub, not {CHANNEL_LAYER!r}")
# What the layer's Redis keys and PUBLISH channels begin with. PUBLISH/SUBSCRIBE channels
# are shared by every database of a Redis server, so two deployments (or two test
# processes) on one server need prefixes of their own, not only databases of their own.
CHANNEL_LAYER_PREFIX = env.str("CHANNEL_LAYER_PREFIX", default="asgi")

if REDIS_URL and CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_LAYER_PREFIX},
        }
    }
elif REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.channel_layer.RedisChannelLayer",  # channels_redis, a race closed
            # capacity: messages waiting per channel before channels_redis drops more.
            # Every consumer of a web process receives through one Redis list, read a
            # message at a time, so the default 100 is shared by all its sockets: at 400
            # players a busy process dropped hundreds of table updates a minute (make
            # bench-live; each costs its client a snapshot): better late than lost.
            "CONFIG": {"hosts": [REDIS_URL], "capacity": 1000, "prefix": CHANNEL_LAYER_PREFIX},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds short-lived counters shared by every web process: the per-user message
# budget of the sockets (play/edge/sockets.py) and the sign-up and password-reset limits
# (accounts/throttling.py). On Redis when there is one, so that all the
# processes behind a load balancer count together; in-process memory when embedded.
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        # LocMem culls a third of its keys beyond MAX_ENTRIES (300 by default): a flood of
        # throwaway keys would then forget the limits' counts. 100,000 small keys are a
        # few megabytes.
        else {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    )
}

# Without Redis there is no broker: tasks run in the caller's process, and the in-process
# ticker (play.clock.ticker) stands in for beat.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# How often due clocks are played and due games started (Celery beat, or the embedded
# ticker). A quarter of a second, not one: a timeout is played within about 0.25 s of its
# deadline, and the games whose interludes end together are announced in four smaller
# waves a second — each announcement brings every player's client seed and then a deal
# at once, and at 400 players one wave a second was what the other commands queued
# behind (make bench-live: p99 198 → 145 ms, timeouts' lateness p99 992 → 276 ms).
DEADLINE_SWEEP_SECONDS = env.float("DEADLINE_SWEEP_SECONDS", default=0.25)
# Beat asks the database every tick when the next deadline falls due and sends the sweep
# only then (play.clock.schedules: idle tables cost no Celery task), and at least once a minute
# for the sweep's housekeeping.
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "tables.tasks.sweep_deadlines",
        "schedule": DeadlinesDue(run_every=60.0, tick=DEADLINE_SWEEP_SECONDS),
        # A sweep that waited more than two seconds for a worker is stale: the next one
        # covers the same deadlines, so let it expire rather than pile up.
        "options": {"expires": 2.0},
    },
    # Chat messages older than CHAT_RETENTION_DAYS are deleted hourly (chat.tasks): one
    # indexed delete per batch, nothing when there is nothing to delete.
    # Tournaments open registration, start and end on time (tournaments.tasks): a few
    # indexed reads when nothing is due.
    "tournaments-advance": {
        "task": "tournaments.tasks.tournaments_advance",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    },
    # Web Push (push.tasks): «Турнир начинается через 5 минут» to the entrants of the events
    # about to start, once each; nothing at all while push is off (no VAPID keys).
    "push-reminders": {
        "task": "push.tasks.push_reminders",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    "chat-prune": {
        "task": "chat.tasks.chat_prune",
        "schedule": 3600.0,
        "options": {"expires": 600.0},
    },
    # Sign-in traces not seen for FAIRPLAY_TRACE_RETENTION_DAYS are deleted daily
    # (fairplay.tasks): one indexed delete.
    # The fair-play detector (fairplay.tasks): leaks of newly reviewed decisions, then the
    # cases; a few aggregate queries when nothing is new.
    "fairplay-scan": {
        "task": "fairplay.tasks.scan",
        "schedule": 600.0,
        "options": {"expires": 300.0},
    },
    "fairplay-traces-purge": {
        "task": "fairplay.tasks.traces_purge",
        "schedule": 86400.0,
        "options": {"expires": 3600.0},
    },
}
# Beat's own state (when each entry last ran; the schedule is the one above) lives in the
# temporary directory, not the working directory: a `celery beat` started in a checkout
# leaves no celerybeat-schedule.* files there. --schedule overrides it (docker compose, the
# integration tests and make bench-live give each beat a file of its own).
CELERY_BEAT_SCHEDULE_FILENAME = str(Path(tempfile.gettempdir()) / "twentyone-celerybeat-schedule")

# The in-process deadline ticker runs only in embedded mode, and only under the server
# (it starts with the first ASGI connection, never in tests or management commands).
DEADLINE_TICKER = env.bool("DEADLINE_TICKER", default=not REDIS_URL)

# --- Live tables ---------------------------------------------------------------------

# An AI seat's decision waits this long, so people can follow its play.
AI_DECISION_SECONDS = env.float("AI_DECISION_SECONDS", default=1.0)
# The pause between one game (a bank, a shoe) and the next, to read the results.
GAME_INTERLUDE_SECONDS = env.float("GAME_INTERLUDE_SECONDS", default=3.0)
# In `classic`, the pause after a settled round before the next round's clock starts, to
# read the round's summary (0: none).
CLASSIC_ROUND_PAUSE_SECONDS = env.float("CLASSIC_ROUND_PAUSE_SECONDS", default=4.0)
# The same in `blackjack`, where the next round is dealt in the move that settles one: the
# settled hands stay on the felt with their outcomes this long before the next clock starts.
BLACKJACK_ROUND_PAUSE_SECONDS = env.float("BLACKJACK_ROUND_PAUSE_SECONDS", default=3.0)
# How long a game's announced commitment waits for the players' client seeds before the
# cards are dealt without the missing ones (docs/fairness.md); 0 deals at once.
CLIENT_SEED_SECONDS = env.float("CLIENT_SEED_SECONDS", default=3.0)

# The daily bonus (accounts/bonus.py): a player whose wallet holds fewer chips than this
# may claim, once per calendar day in their time zone, chips up to it — so that a player
# who lost everything can come back tomorrow. An admin turns it off in Django admin
# (DailyBonusSwitch), not here: that needs no restart.
DAILY_BONUS_FLOOR = env.int("DAILY_BONUS_FLOOR", default=1_000)

# Fair play (fairplay/, docs/fair-play.md). Free chips — the daily bonus, a freeroll's
# entry — go to accounts at least this many days old or with at least this many reviewed
# decisions at the tables (either 0: to every account), so a farm of fresh accounts
# feeding one earns nothing. Sign-in traces (hashed addresses and device cookies) are kept
# this many days after last seen; two accounts whose link score (shared addresses a,
# devices f: a + f + a·f) reaches FAIRPLAY_LINK_SCORE_APART never sit at one player-bank or
# tournament table.
FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS = env.int("FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS", default=3)
FREE_CHIPS_MIN_DECISIONS = env.int("FREE_CHIPS_MIN_DECISIONS", default=100)
FAIRPLAY_TRACE_RETENTION_DAYS = env.int("FAIRPLAY_TRACE_RETENTION_DAYS", default=90)
FAIRPLAY_LINK_SCORE_APART = env.int("FAIRPLAY_LINK_SCORE_APART", default=3)
# The directed EV leak's test (fairplay.leak, docs/fair-play.md "The test"): over the last
# FAIRPLAY_LEAK_WINDOW_DAYS, an ordered pair with at least FAIRPLAY_LEAK_MIN_DECISIONS
# decisions toward one bank (FAIRPLAY_LEAK_MIN_KIND_DECISIONS of the kind tested) is
# flagged when its one-sided z reaches FAIRPLAY_LEAK_Z; a
# giver's own loss rate toward other banks counts as honest play's once they made at least
# FAIRPLAY_LEAK_OWN_DECISIONS there.
FAIRPLAY_LEAK_WINDOW_DAYS = env.int("FAIRPLAY_LEAK_WINDOW_DAYS", default=30)
FAIRPLAY_LEAK_MIN_DECISIONS = env.int("FAIRPLAY_LEAK_MIN_DECISIONS", default=20)
# ... of which at least this many of the kind tested (a bet, a draw, a salon banker's draw).
FAIRPLAY_LEAK_MIN_KIND_DECISIONS = env.int("FAIRPLAY_LEAK_MIN_KIND_DECISIONS", default=10)
FAIRPLAY_LEAK_Z = env.float("FAIRPLAY_LEAK_Z", default=4.0)
FAIRPLAY_LEAK_OWN_DECISIONS = env.int("FAIRPLAY_LEAK_OWN_DECISIONS", default=50)
# Many-to-one chip flows (docs/fair-play.md "Chip flows"): a player who won on balance, at
# banker36/salon tables in the window, from at least FAIRPLAY_FLOW_GIVERS accounts that are
# new (joined within FAIRPLAY_NEW_ACCOUNT_DAYS) or linked to them, FAIRPLAY_FLOW_CHIPS in
# all, gets a case.
FAIRPLAY_NEW_ACCOUNT_DAYS = env.int("FAIRPLAY_NEW_ACCOUNT_DAYS", default=7)
FAIRPLAY_FLOW_GIVERS = env.int("FAIRPLAY_FLOW_GIVERS", default=3)
FAIRPLAY_FLOW_CHIPS = env.int("FAIRPLAY_FLOW_CHIPS", default=1000)

# Reports («Пожаловаться», moderation/views.py) a player may file per hour, counted in the
# shared cache; beyond it a report is refused with `rate_limited` (HTTP 429).
REPORTS_PER_HOUR = env.int("REPORTS_PER_HOUR", default=10)

# Table chat (chat/, docs/protocol.md §17): messages are kept this many days (then the
# hourly beat task deletes them; nor does a reconnect restore older ones), and each user
# may send at most CHAT_RATE_MESSAGES messages per CHAT_RATE_WINDOW_SECONDS window, over
# every table and web process (counted in the shared cache).
CHAT_RETENTION_DAYS = env.int("CHAT_RETENTION_DAYS", default=30)
CHAT_RATE_MESSAGES = env.int("CHAT_RATE_MESSAGES", default=5)
CHAT_RATE_WINDOW_SECONDS = env.int("CHAT_RATE_WINDOW_SECONDS", default=10)

# A public lobby's limits on opening tables (lobby.services.table_open; staff have none):
# one player opening 2,000 tables made the lobby slow and heavy for everyone.
# How many tables a player may have open at once (the ones they opened, public or private;
# the one-click «Играть» tables, one per variant and reused, do not count).
TABLES_OPEN_PER_USER = env.int("TABLES_OPEN_PER_USER", default=3)
# How many tables a player may open per clock hour (counted in the shared cache).
TABLE_OPENS_PER_HOUR = env.int("TABLE_OPENS_PER_HOUR", default=10)
# Sockets open at once (both kinds, every web process: counted in the shared cache,
# play/edge/connections.py) per signed-in user and per client address (behind the proxy
# daphne takes it from X-Forwarded-For). A socket over either limit is closed at once
# with 4430 (docs/protocol.md §3).
WS_CONNECTIONS_PER_USER = env.int("WS_CONNECTIONS_PER_USER", default=10)
WS_CONNECTIONS_PER_ADDRESS = env.int("WS_CONNECTIONS_PER_ADDRESS", default=50)

# Web Push (push/, docs/decisions.md «Web Push»): the site's VAPID key pair (RFC 8292),
# base64url as `manage.py webpush_keys` prints it — the public key is the browser's
# applicationServerKey, the private one signs every push — and the contact the push
# services may write to (a mailto: or https: URL). Without both keys push is off: no opt-in
# button, no notification, nothing stored.
WEBPUSH_VAPID_PUBLIC_KEY = env.str("WEBPUSH_VAPID_PUBLIC_KEY", default="")
WEBPUSH_VAPID_PRIVATE_KEY = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_VAPID_SUBJECT = env.str("WEBPUSH_VAPID_SUBJECT", default="mailto:admin@localhost")

# --- Auth ------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

# Password guessing is throttled by django-axes: after AXES_FAILURE_LIMIT failed sign-ins
# for one user name from one address, that pair is refused for AXES_COOLOFF_TIME (HTTP
# 429, templates/security/locked_out.html), in the sign-in page and the admin alike.
# Keyed on the pair, so that nobody can lock a player out from elsewhere by guessing
# their password. Behind a proxy daphne runs with --proxy-headers, so the address is the
# client's (X-Forwarded-For), not the proxy's.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = datetime.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "security/locked_out.html"
# Its page (or JSON) with the seconds left in `Retry-After` (docs/protocol.md §3).
AXES_LOCKOUT_CALLABLE = "accounts.lockout.locked_out"
# New accounts per client address per hour (each gets the welcome chips: throwaway
# accounts to funnel chips from are what this slows down). Beyond it: HTTP 429.
SIGNUP_LIMIT_PER_HOUR = env.int("SIGNUP_LIMIT_PER_HOUR", default=5)
# Password-reset requests per client address, and per target e-mail address, per hour
# (each sends a mail: a flood of them is spam from our server, and guessing material).
# Beyond either: HTTP 429, counted alike for registered and unknown addresses.
PASSWORD_RESET_LIMIT_PER_HOUR = env.int("PASSWORD_RESET_LIMIT_PER_HOUR", default=5)
PASSWORD_RESET_EMAIL_LIMIT_PER_HOUR = env.int("PASSWORD_RESET_EMAIL_LIMIT_PER_HOUR", default=3)

# Personal access tokens (accounts/tokens.py, docs/protocol.md §2.2.1): active tokens per
# user, and refused `Authorization: Bearer` attempts per client address per hour, past
# which that address is refused (HTTP 429, socket close 4429) until the hour is over.
ACCESS_TOKENS_PER_USER = env.int("ACCESS_TOKENS_PER_USER", default=10)
# Bot accounts a person may register (accounts/bots.py, /account/bots/).
BOTS_PER_PLAYER = env.int("BOTS_PER_PLAYER", default=3)
BEARER_FAILURES_PER_HOUR = env.int("BEARER_FAILURES_PER_HOUR", default=20)

# Tournaments (docs/tournaments.md): a player who did not come to their heat (the clock
# made every decision) may not register for this many minutes, doubled with each more
# no-show within the last TOURNAMENT_NO_SHOW_MEMORY_DAYS (lichess's rule).
TOURNAMENT_NO_SHOW_MINUTES = env.int("TOURNAMENT_NO_SHOW_MINUTES", default=15)
TOURNAMENT_NO_SHOW_MEMORY_DAYS = env.int("TOURNAMENT_NO_SHOW_MEMORY_DAYS", default=7)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- E-mail (password reset) -----------------------------------------------------------

# consolemail:// prints messages to the server's output: the development default.
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Twenty-One <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Internationalisation --------------------------------------------------------------

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", _("Русский")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Moscow")
USE_TZ = True

# --- Static files ----------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # With DEBUG on, WhiteNoise serves straight from the apps' static folders (no
    # collectstatic); in production it serves the hashed, compressed collectstatic output.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Read here, while DEBUG is the process's own (the test runner turns DEBUG off later).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# --- Security (production) -------------------------------------------------------------

if not DEBUG:
    # Secure defaults; each can be relaxed from the environment (e.g. behind a proxy
    # that already redirects to HTTPS). `manage.py check --deploy` is clean with them.
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)

if env.bool("USE_X_FORWARDED_PROTO", default=False):
    # Only behind a proxy that sets X-Forwarded-Proto itself; otherwise clients could
    # claim HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp), in every mode: the pages load scripts, styles,
# fonts and images from this site only, and nothing inline (no 'unsafe-inline': put
# scripts and styles in static files). connect-src 'self' covers the site's own ws:/wss:
# too: CSP Level 3 matches 'self' against the same host with the WebSocket scheme
# (http -> ws, https -> wss), as current browsers do; tests/e2e checks it in Chromium.
# Django's DEBUG error pages (404/500) are sent without it: they use inline styles.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        # The web app manifest (config/urls.py: web_manifest); default-src would cover it,
        # but named it stays 'self' whatever default-src becomes.
        "manifest-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# --- Logging ---------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
