"""Settings for the test suite (pytest's DJANGO_SETTINGS_MODULE): development mode, as
`make test` has it, also when pytest is run by hand. The settings default to production.
"""

import os

os.environ.setdefault("DEBUG", "true")
# Tests sign many players up from one address; tests/accounts/test_throttling.py checks
# the limit itself with its own value.
os.environ.setdefault("SIGNUP_LIMIT_PER_HOUR", "100000")
# The same for opening tables (a counter per user and clock hour, kept in Redis between
# runs); tests/lobby/test_lobby_limits.py checks the limit with its own value.
os.environ.setdefault("TABLE_OPENS_PER_HOUR", "100000")
# The pause between classic rounds is short, so tests that play whole matches stay quick;
# tests of the pause set their own value.
os.environ.setdefault("CLASSIC_ROUND_PAUSE_SECONDS", "0.5")
# None in blackjack unless a test asks for it: its tests play many rounds on the AI's clock.
os.environ.setdefault("BLACKJACK_ROUND_PAUSE_SECONDS", "0")

from config.settings import *  # noqa: F403
