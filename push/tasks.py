"""Web Push's Celery tasks: one delivery per notice (queued once its decision commits), and
the reminders' beat entry (config/settings.py CELERY_BEAT_SCHEDULE, `push-reminders`; the
embedded ticker runs it without a broker)."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from push.sending import notice_deliver
from push.services import reminders_send


@shared_task(name="push.tasks.push_deliver", ignore_result=True)
def push_deliver(notice_id: int) -> int:
    """Send one notice to its player's browsers. Not retried: the news would be stale."""
    return notice_deliver(notice_id=notice_id, now=timezone.now())


@shared_task(name="push.tasks.push_reminders", ignore_result=True)
def push_reminders() -> int:
    """«Турнир начинается через 5 минут» to the entrants of the events about to start."""
    return reminders_send(now=timezone.now())
