"""`manage.py review_games`: review every game whose decisions are not all stored yet
(games played before the decision review existed, or whose review task was lost)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.strategy.review import REVIEWED
from insights.reviews import games_review
from play.models import Game


class Command(BaseCommand):
    help = "Store the decision review of every game not fully reviewed yet."

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.filter(variant__in=REVIEWED).select_related("table").order_by("pk")
        reviewed, stored = games_review(games.iterator(chunk_size=200))
        self.stdout.write(f"reviewed {reviewed} game(s), stored {stored} decision(s)")
