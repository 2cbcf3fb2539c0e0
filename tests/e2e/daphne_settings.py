"""The browser tests' daphne: the site's own settings (config.settings), with the suite's
fast password hasher. The users a test makes sign in through the real login form; with
Django's PBKDF2 each of them cost a quarter of a second to make in the test process and
as much again to check in daphne, and what these tests check is the pages, not the
hashing (tests/accounts does that, with the site's hashers)."""

from django.conf import global_settings

from config.settings import *  # noqa: F403

# MD5 first (what the test process makes), and the site's own after it, so that a hash
# a test made otherwise (a quick PBKDF2: tests/e2e/table_helpers.py) still signs in.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    *global_settings.PASSWORD_HASHERS,
]
