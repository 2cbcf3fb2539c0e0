"""Chat's periodic work (Celery beat: config/settings.py CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from chat.services import messages_prune


@shared_task(name="chat.tasks.chat_prune")
def chat_prune() -> int:
    """Delete the messages older than CHAT_RETENTION_DAYS."""
    return messages_prune()
