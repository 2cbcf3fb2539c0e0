"""Who blocked whom (issue 21). A minimal stand-in of the people contract, for the table
chat's tests; helper P's version replaces it at merge."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Block(models.Model):
    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="people_block_once")
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} → {self.blocked_id}"
