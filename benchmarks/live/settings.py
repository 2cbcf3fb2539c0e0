"""Settings of the processes `make bench-live` starts (benchmarks/live/): production
settings (config/settings.py, read from the same environment) with four changes, none
of which touches a live table:

- the echo baseline's route is mounted (`BENCH_ECHO`, config/routing.py);
- passwords are hashed with a cheap hasher, so that a thousand players sign in through
  the real login form in seconds — PBKDF2's deliberate quarter of a CPU-second per
  sign-in would cost the web process minutes before anything is measured;
- static files are served by their plain names from the apps' folders (as in
  development), so that the benchmark needs no collectstatic in the checkout: the pages
  are only read for the sign-in form, never their assets;
- every simulated player connects from this machine's one address, so the limit of
  sockets per client address (WS_CONNECTIONS_PER_ADDRESS) is lifted.

A knob for experiments (`--env NAME=VALUE`, printed with the figures), unset by
default: SWITCH_INTERVAL (the interpreter's GIL switch interval, seconds).
"""

import os

from config.settings import *  # noqa: F403

BENCH_ECHO = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WS_CONNECTIONS_PER_ADDRESS = 1_000_000

if "SWITCH_INTERVAL" in os.environ:
    import sys

    sys.setswitchinterval(float(os.environ["SWITCH_INTERVAL"]))
