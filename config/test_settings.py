"""Settings for the test suite (pytest's DJANGO_SETTINGS_MODULE): development mode, as
`make test` has it, also when pytest is run by hand. The settings default to production.
"""

import os

os.environ.setdefault("DEBUG", "true")

from config.settings import *  # noqa: F403
