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
    phrase = models.CharField(
        _("быстрая фраза"),
        max_length=32,
        blank=True,
        help_text=_("Ключ быстрой фразы или реакции: каждый видит её на своём языке."),
    )
    from_spectator = models.BooleanField(
        _("от зрителя"),
        default=False,
        help_text=_("Автор не сидел за столом, когда писал."),
    )
    held = models.BooleanField(
        _("удержано"),
        default=False,
        help_text=_(
            "Написано зрителем во время раздачи: сидящим игрокам доставляется только "
            "после её конца (без подсказок с трибуны)."
        ),
    )
    withheld_from = models.JSONField(
        _("скрыто от игроков"),
        default=list,
        blank=True,
        help_text=_("Id игроков, сидевших за столом, когда сообщение удержано."),
    )
    released_at = models.DateTimeField(
        _("доставлено игрокам"),
        null=True,
        blank=True,
        help_text=_("Когда раздача кончилась и удержанное сообщение ушло игрокам."),
    )

    class Meta:
        verbose_name = _("сообщение чата")
        verbose_name_plural = _("сообщения чата")
        ordering = ("created_at", "id")
        indexes = [
            models.Index(fields=["table", "created_at"], name="chat_table_time"),
            # The deal's end looks for the held messages still to deliver: few, if any.
            models.Index(
                fields=["table"],
                name="chat_held_pending",
                condition=models.Q(held=True, released_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author}: {self.shown}"


class FilterWord(models.Model):
    """A word the chat filter masks, next to the built-in list (chat/wordfilter.py):
    added by an admin. Matched as a word root, case-insensitive, ё as е."""

    word = models.CharField(
        _("слово или корень"),
        max_length=40,
        unique=True,
        help_text=_(
            "Маскируется каждое слово, которое начинается с этого (регистр, ё/е и "
            "латинские буквы-двойники не важны)."
        ),
    )
    created_at = models.DateTimeField(_("добавлено"), default=timezone.now)

    class Meta:
        verbose_name = _("запрещённое слово")
        verbose_name_plural = _("запрещённые слова")
        ordering = ("word",)

    def __str__(self) -> str:
        return self.word
