"""Run the fair-play detector's pass now (what Celery beat runs every 10 minutes): the
leaks of newly reviewed decisions, then the cases. For the embedded mode, which has no
beat, and for a moderator who does not want to wait."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from fairplay.cases import fairplay_scan


class Command(BaseCommand):
    help = "Write the leaks of newly reviewed decisions and open cases for flagged pairs."

    def handle(self, *args: Any, **options: Any) -> None:
        touched = fairplay_scan()
        self.stdout.write(f"cases opened or updated: {touched}")
