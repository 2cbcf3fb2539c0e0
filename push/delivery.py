"""The Celery task that delivers one notice (push.sending), queued by push.services once a
notice's decision commits. A module of its own, below the services that queue it and the
beat's task module (push.tasks) that imports them, which is how a worker registers it."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from push.sending import notice_deliver


@shared_task(name="push.tasks.push_deliver", ignore_result=True)
def push_deliver(notice_id: int) -> int:
    """Send one notice to its player's browsers. Not retried: the news would be stale."""
    return notice_deliver(notice_id=notice_id, now=timezone.now())
