from celery import shared_task
from django.utils import timezone

from tables.services import deadlines_sweep


@shared_task(name="tables.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Beat runs this every DEADLINE_SWEEP_SECONDS (settings.CELERY_BEAT_SCHEDULE)."""
    return deadlines_sweep(now=timezone.now())


@shared_task(name="tables.tasks.review_game", ignore_result=True)
def review_game(game_id: int) -> int:
    """Store the decisions of a game that just ended (tables.reviews)."""
    from tables.reviews import game_review

    return game_review(game_id)
