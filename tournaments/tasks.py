"""Tournaments' clock (Celery beat: config/settings.py CELERY_BEAT_SCHEDULE; the embedded
ticker runs the same entry without a broker)."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from tournaments.services import tournaments_advance


@shared_task(name="tournaments.tasks.tournaments_advance")
def advance() -> int:
    """Open registration, start and end the events that are due."""
    return tournaments_advance(now=timezone.now())
