from celery import shared_task
from django.dispatch import receiver
from django.utils import timezone

from tables.reviews import game_review
from tables.services import deadlines_sweep
from tables.signals import game_ended


@shared_task(name="tables.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Beat runs this every DEADLINE_SWEEP_SECONDS (settings.CELERY_BEAT_SCHEDULE)."""
    return deadlines_sweep(now=timezone.now())


@shared_task(name="tables.tasks.review_game", ignore_result=True)
def review_game(game_id: int) -> int:
    """Store the decisions of a game that just ended (tables.reviews)."""
    return game_review(game_id)


@receiver(game_ended, dispatch_uid="tables_review_when_ended")
def review_when_ended(sender: object, game_id: int, **kwargs: object) -> None:
    """A game ended (tables.signals.game_ended, on commit): a worker reviews it."""
    review_game.delay(game_id)
