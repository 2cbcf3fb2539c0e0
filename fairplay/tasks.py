"""Fair play's periodic work (Celery beat: config/settings.py CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from fairplay.traces import traces_purge


@shared_task(name="fairplay.tasks.traces_purge")
def fairplay_traces_purge() -> int:
    """Delete the sign-in traces older than FAIRPLAY_TRACE_RETENTION_DAYS."""
    return traces_purge()
