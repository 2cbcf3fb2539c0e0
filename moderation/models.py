"""Reports of abuse and what moderators did about them.

A `Report` is one player's complaint about another, with a copy of the evidence as it
stood (chat messages expire after CHAT_RETENTION_DAYS, and a moderator may read a report
later than that). A `Sanction` is one moderator's decision — a warning, a mute, a ban, or
dismissing a report — recorded with who, when and why; a mute or a ban runs until
`ends_at` unless it is lifted early (also recorded, on the same row).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

NOTE_MAX_LENGTH = 500
REASON_MAX_LENGTH = 500


class Report(models.Model):
    class Reason(models.TextChoices):
        INSULT = "insult", _("оскорбления")
        COLLUSION = "collusion", _("сговор")
        SPAM = "spam", _("спам")
        OTHER = "other", _("другое")

    class Status(models.TextChoices):
        OPEN = "open", _("открыта")
        HANDLED = "handled", _("рассмотрена")

    # None: a case the fair-play detector opened (fairplay.cases), not a player's report.
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кто пожаловался"),
        on_delete=models.CASCADE,
        related_name="reports_made",
        null=True,
        blank=True,
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("на кого"),
        on_delete=models.CASCADE,
        related_name="reports_received",
    )
    # A fair-play case is about a pair: `reported` gained, `partner` gave (docs/fair-play.md).
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("второй игрок пары"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="fairplay_cases_as_partner",
    )
    reason = models.CharField(_("причина"), max_length=16, choices=Reason.choices)
    note = models.CharField(_("пояснение"), max_length=NOTE_MAX_LENGTH, blank=True)
    message = models.ForeignKey(
        "chat.ChatMessage",
        verbose_name=_("сообщение"),
        on_delete=models.SET_NULL,  # messages expire; the evidence below stays
        null=True,
        blank=True,
        related_name="+",
    )
    table = models.ForeignKey(
        "tables.Table",
        verbose_name=_("стол"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    game = models.ForeignKey(
        "play.Game",
        verbose_name=_("игра"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    evidence = models.JSONField(
        _("доказательства"),
        default=dict,
        blank=True,
        help_text=_(
            "Снимок на момент жалобы: сообщение, как оно написано, и сообщения вокруг него "
            "за тем же столом (автор, исходный текст, время)."
        ),
    )
    status = models.CharField(
        _("состояние"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    created_at = models.DateTimeField(_("когда"), default=timezone.now)
    # A dump reversed by a moderator (moderation.services.dump_reverse): the ledger entry
    # that moved the chips back from `reported` to `partner`, and who decided it.
    reversal = models.ForeignKey(
        "accounts.LedgerEntry",
        verbose_name=_("возврат фишек"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    reversed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кто вернул фишки"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("жалоба")
        verbose_name_plural = _("жалобы")
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["status", "created_at"], name="moderation_report_queue"),
            models.Index(fields=["reported", "created_at"], name="moderation_report_reported"),
        ]

    def __str__(self) -> str:
        return _("Жалоба №%(id)s на %(player)s") % {"id": self.pk, "player": self.reported}


class SanctionQuerySet(models.QuerySet["Sanction"]):
    def in_force(self, *, now: Any = None) -> SanctionQuerySet:
        """Mutes and bans running now: not ended, not lifted."""
        return self.filter(
            kind__in=Sanction.RESTRICTING,
            ends_at__gt=now or timezone.now(),
            lifted_at__isnull=True,
        )


class Sanction(models.Model):
    """One moderator's decision about a player (with or without a report)."""

    class Kind(models.TextChoices):
        WARN = "warn", _("предупреждение")
        MUTE = "mute", _("запрет писать в чат")
        BAN = "ban", _("запрет садиться за стол")
        DISMISS = "dismiss", _("жалоба отклонена")

    RESTRICTING = (Kind.MUTE, Kind.BAN)
    # What the player is told of (a dismissed report is not theirs to hear about).
    NOTIFIED = (Kind.WARN, Kind.MUTE, Kind.BAN)

    kind = models.CharField(_("мера"), max_length=16, choices=Kind.choices)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.CASCADE,
        related_name="sanctions",
    )
    report = models.ForeignKey(
        Report,
        verbose_name=_("жалоба"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sanctions",
    )
    reason = models.CharField(_("причина"), max_length=REASON_MAX_LENGTH)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("модератор"),
        on_delete=models.PROTECT,  # who decided is part of the record
        related_name="sanctions_given",
    )
    created_at = models.DateTimeField(_("когда"), default=timezone.now)
    ends_at = models.DateTimeField(
        _("до"), null=True, blank=True, help_text=_("Для запрета писать и запрета садиться.")
    )
    lifted_at = models.DateTimeField(_("снята"), null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кто снял"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="sanctions_lifted",
    )
    lift_reason = models.CharField(_("почему снята"), max_length=REASON_MAX_LENGTH, blank=True)
    acknowledged_at = models.DateTimeField(
        _("игрок прочитал"),
        null=True,
        blank=True,
        help_text=_("Пока пусто, игрок видит уведомление на каждой странице."),
    )

    objects = SanctionQuerySet.as_manager()

    class Meta:
        verbose_name = _("мера модерации")
        verbose_name_plural = _("меры модерации")
        ordering = ("-created_at", "-id")
        indexes = [
            # The enforcement check (one per chat message, one per seat taken): a player's
            # mutes or bans still running. Partial, so it holds only the unlifted ones.
            models.Index(
                fields=["player", "kind", "ends_at"],
                name="moderation_sanction_in_force",
                condition=Q(lifted_at__isnull=True),
            ),
            # The notice on every page: a player's decisions not yet read.
            models.Index(
                fields=["player"],
                name="moderation_sanction_unread",
                condition=Q(acknowledged_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.player}"

    @property
    def is_restricting(self) -> bool:
        return self.kind in self.RESTRICTING

    def in_force(self, now: Any = None) -> bool:
        return (
            self.is_restricting
            and self.lifted_at is None
            and self.ends_at is not None
            and self.ends_at > (now or timezone.now())
        )
