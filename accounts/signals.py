from typing import Any

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.services import welcome_grant


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts_welcome_grant")
def grant_welcome_chips(
    sender: Any, instance: Any, created: bool, raw: bool, **kwargs: Any
) -> None:
    """Every new user, however created, gets a wallet and the welcome chips."""
    if created and not raw:
        welcome_grant(user=instance)
