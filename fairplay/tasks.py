"""Fair play's periodic work (Celery beat: config/settings.py CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from fairplay.cases import fairplay_scan
from fairplay.traces import traces_purge


@shared_task(name="fairplay.tasks.traces_purge")
def fairplay_traces_purge() -> int:
    """Delete the sign-in traces older than FAIRPLAY_TRACE_RETENTION_DAYS."""
    return traces_purge()


# A pass reviews at most this many games' records: a backlog is worked through over passes.
SCAN_GAMES_PER_PASS = 500


@shared_task(name="fairplay.tasks.scan")
def fairplay_scan_task() -> int:
    """The leaks of newly reviewed decisions, then the cases (docs/fair-play.md)."""
    return fairplay_scan(games=SCAN_GAMES_PER_PASS)
