from celery import shared_task
from django.dispatch import receiver

from insights.reviews import game_review
from play.signals import game_ended


# The name it had before insights had a room of its own (play/tasks.py says why).
@shared_task(name="tables.tasks.review_game", ignore_result=True)
def review_game(game_id: int) -> int:
    """Store the decisions of a game that just ended (insights/reviews.py)."""
    return game_review(game_id)


@receiver(game_ended, dispatch_uid="insights_review_when_ended")
def review_when_ended(sender: object, game_id: int, **kwargs: object) -> None:
    """A game ended (play.signals.game_ended, on commit): a worker reviews it."""
    review_game.delay(game_id)
