from celery import shared_task
from django.utils import timezone

from play.clock.sweep import deadlines_sweep


# The task's name is what the web processes and beat put on the queue: it keeps the name
# it had before live play had a room of its own, so that workers and beat of two releases
# side by side during a deploy understand each other.
@shared_task(name="tables.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Beat sends this when something is due (play.clock.schedules,
    settings.CELERY_BEAT_SCHEDULE)."""
    return deadlines_sweep(now=timezone.now())
