"""Web Push's beat entry (config/settings.py CELERY_BEAT_SCHEDULE, `push-reminders`; the
embedded ticker runs it without a broker). The delivery task, `push.tasks.push_deliver`,
is push.delivery's, registered through the services imported here."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from push.services import reminders_send


@shared_task(name="push.tasks.push_reminders", ignore_result=True)
def push_reminders() -> int:
    """«Турнир начинается через 5 минут» to the entrants of the events about to start."""
    return reminders_send(now=timezone.now())
