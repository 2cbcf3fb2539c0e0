"""What Web Push keeps (docs/decisions.md, «Web Push»): a browser's subscription, each
notification decided (so that nothing is sent twice), and whether each open table page is
visible (so that «Ваш ход» never reaches a player looking at the table)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Subscription(models.Model):
    """One browser's push subscription (PushSubscription: its push service's endpoint and
    the keys its messages are encrypted for). Deleted when the player unsubscribes, and
    when the push service answers 404 or 410 (the browser dropped it)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
    )
    endpoint = models.URLField(_("адрес службы уведомлений"), max_length=1000, unique=True)
    # The browser's P-256 public key and authentication secret (base64url), RFC 8291.
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    # The language the notifications are written in: the site's when the player subscribed.
    language = models.CharField(_("язык"), max_length=8, default="ru")
    # A short label of the browser ("Chrome · Android"), so the player can tell two apart.
    user_agent = models.CharField(_("браузер"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("подписка"), auto_now_add=True)
    last_success_at = models.DateTimeField(_("последняя доставка"), null=True, blank=True)

    class Meta:
        verbose_name = _("подписка на уведомления")
        verbose_name_plural = _("подписки на уведомления")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.user_agent or self.endpoint[:40]}"


class Notice(models.Model):
    """A notification decided for a player: one per (player, kind, key), so that a beat
    run twice, or a signal heard twice, sends nothing twice. Its `tag` is its table's (or
    event's): the browser shows one notification per tag, a newer replacing an older, and
    a «Ваш ход» waits while a notice of its table is still `open_until` (one notification
    per table; looking at the table closes them)."""

    class Kind(models.TextChoices):
        TOURNAMENT_SOON = "tournament_soon", _("турнир скоро начнётся")
        TABLE_READY = "table_ready", _("стол готов")
        TURN = "turn", _("ваш ход")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_notices"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # What it is about: `<tournament id>`, `<table id>`, `<game id>:<version>`.
    key = models.CharField(max_length=64)
    tag = models.CharField(max_length=32)
    url = models.CharField(max_length=200)
    # What its text names (the event's or the table's name), written in the language of
    # each subscription when it is sent (push.sending).
    context = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    # Past this the news is stale: the push service may drop it undelivered (its TTL).
    open_until = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "key"], name="push_notice_once")
        ]
        indexes = [models.Index(fields=["user", "tag", "open_until"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} → {self.user_id}"


class PageView(models.Model):
    """Whether the table page of one table socket (its channel name, as the socket's
    `play.models.Presence` row) is visible, as the page last said (`visibility`,
    docs/protocol.md §5.6). A row whose socket is gone counts for nothing: it is read
    together with the presence rows, and pruned with the reminders."""

    channel_name = models.CharField(max_length=200, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    table_id = models.BigIntegerField(db_index=True)
    visible = models.BooleanField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}@{self.table_id}: {'visible' if self.visible else 'hidden'}"
