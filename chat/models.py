"""A table's chat messages, kept for `CHAT_RETENTION_DAYS`."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

MAX_LENGTH = 200


class ChatMessage(models.Model):
    """One message at a table. `text` is what its author wrote (moderators see it);
    `shown` is the same with filtered words masked, the only text players are sent."""

    table = models.ForeignKey(
        "tables.Table",
        verbose_name=_("стол"),
        on_delete=models.CASCADE,
        related_name="chat_messages",
    )
    game = models.ForeignKey(
        "play.Game",
        verbose_name=_("игра"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Игра, которая шла за столом, когда сообщение написано."),
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("автор"),
        on_delete=models.CASCADE,
        related_name="chat_messages",
    )
    text = models.CharField(_("текст как написан"), max_length=MAX_LENGTH)
    shown = models.CharField(_("текст для игроков"), max_length=MAX_LENGTH)
    created_at = models.DateTimeField(_("время"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("сообщение чата")
        verbose_name_plural = _("сообщения чата")
        ordering = ("created_at", "id")
        indexes = [models.Index(fields=["table", "created_at"], name="chat_table_time")]

    def __str__(self) -> str:
        return f"{self.author}: {self.shown}"
