"""Live play's one clock: every service reads the time as `wall.now()` (the module's
attribute, not a name imported from it), so that a test that moves it moves it everywhere."""

from __future__ import annotations

import datetime

from django.utils import timezone


def now() -> datetime.datetime:
    return timezone.now()


def seconds(value: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=value)
