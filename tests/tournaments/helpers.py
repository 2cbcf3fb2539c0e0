from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone

from tournaments.models import Tournament


def make_tournament(**fields: Any) -> Tournament:
    """A duplicate event whose registration is open now, starting in an hour: at `salon`,
    which plays no heats (admin refuses it; the database takes it), so its stacks are what
    a test sets (heats: test_heats.py, test_heats_classic_solo.py)."""
    now = timezone.now()
    values: dict[str, Any] = {
        "name": "Вечерний заезд",
        "variant": "salon",
        "format": Tournament.Format.DUPLICATE,
        "registration_opens_at": now - datetime.timedelta(minutes=1),
        "starts_at": now + datetime.timedelta(hours=1),
        "ends_at": now + datetime.timedelta(hours=2),
        "buy_in": 100,
        "max_entrants": 16,
        "min_entrants": 2,
    }
    values.update(fields)
    return Tournament.objects.create(**values)
