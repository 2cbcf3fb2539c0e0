"""What links two accounts: the sign-in traces of each (issue 32).

A `Trace` is one client address or one device (the first-party cookie
`fairplay.middleware.DEVICE_COOKIE`) a player signed in from, kept only as a keyed hash
(HMAC-SHA256 under the site's SECRET_KEY, `fairplay.traces.digest`): two accounts can be
compared, but the address itself is not stored. A trace seen again moves `last_seen`;
traces not seen for FAIRPLAY_TRACE_RETENTION_DAYS are deleted (`fairplay.tasks`).
Moderators alone read them (Django admin); docs/decisions.md says what and for how long.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Trace(models.Model):
    class Kind(models.TextChoices):
        ADDRESS = "address", _("адрес")
        DEVICE = "device", _("устройство")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.CASCADE,
        related_name="fairplay_traces",
    )
    kind = models.CharField(_("что"), max_length=8, choices=Kind.choices)
    digest = models.CharField(_("хеш"), max_length=64)
    first_seen = models.DateTimeField(_("впервые"), default=timezone.now)
    last_seen = models.DateTimeField(_("последний раз"), default=timezone.now)

    class Meta:
        verbose_name = _("след входа")
        verbose_name_plural = _("следы входов")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "digest"], name="fairplay_trace_once")
        ]
        indexes = [
            # Who else signed in from this address or device (the link score's one query).
            models.Index(fields=["kind", "digest"], name="fairplay_trace_shared"),
            models.Index(fields=["last_seen"], name="fairplay_trace_age"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.kind} {self.digest[:8]}"


class Leak(models.Model):
    """One reviewed decision at a player-bank table with the chips it gave away (the
    coach's EV loss, `insights.Decision.loss`, in chips) and who gains them: the player
    holding the bank in that duel or deal, or for a `salon` banker's own decision the
    ponter with the largest stake (`taker`; None when the bank is no person's).
    Written by `fairplay.leak.leaks_record`, read per ordered pair by the detector."""

    decision = models.OneToOneField(
        "insights.Decision", verbose_name=_("решение"), on_delete=models.CASCADE, related_name="+"
    )
    game = models.ForeignKey(
        "play.Game", verbose_name=_("игра"), on_delete=models.CASCADE, related_name="+"
    )
    number = models.PositiveIntegerField(_("ход №"))
    giver = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кто отдал"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    taker = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кому"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    loss = models.FloatField(_("потеря в фишках"))
    # The decision's kind (`leak.decision_kind`: "bet", "total", "stake", "bank"): honest
    # play is measured per kind, since a cautious bet and a bad draw lose on other scales.
    kind = models.CharField(_("вид решения"), max_length=8, default="", blank=True)
    # The chips the decision was played for (`leak._stake`): the test compares losses per
    # chip at stake, so a big bettor's ordinary mistakes do not look like a leak.
    stake = models.PositiveIntegerField(_("на кону"), default=0)
    made_at = models.DateTimeField(_("когда"), default=timezone.now)

    class Meta:
        verbose_name = _("утечка ожидания")
        verbose_name_plural = _("утечки ожидания")
        indexes = [
            models.Index(fields=["giver", "taker"], name="fairplay_leak_pair"),
            models.Index(fields=["made_at"], name="fairplay_leak_time"),
        ]

    def __str__(self) -> str:
        return f"{self.giver_id} → {self.taker_id}: {self.loss}"


class Flow(models.Model):
    """The chips one player lost to another in one finished player-bank game (`banker36`,
    `salon`), from its settlements: `giver` lost `chips` to `taker` there (a ponter's
    loss to the banker, or the banker's payout to a ponter; both directions of a pair
    are rows of their own). Written once per game by `fairplay.flows.flows_record`, so
    that the many-to-one signal sums rows instead of reading every game's events on every
    pass."""

    game = models.ForeignKey(
        "play.Game", verbose_name=_("игра"), on_delete=models.CASCADE, related_name="+"
    )
    giver = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кто отдал"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    taker = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("кому"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    chips = models.PositiveIntegerField(_("фишек"))
    finished_at = models.DateTimeField(_("игра окончена"))

    class Meta:
        verbose_name = _("поток фишек")
        verbose_name_plural = _("потоки фишек")
        constraints = [
            models.UniqueConstraint(fields=["game", "giver", "taker"], name="fairplay_flow_once")
        ]
        indexes = [
            models.Index(fields=["finished_at"], name="fairplay_flow_time"),
            models.Index(fields=["giver", "taker"], name="fairplay_flow_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.giver_id} → {self.taker_id}: {self.chips}"


class FlowGame(models.Model):
    """A finished player-bank game whose flows are written (with or without rows: a game
    of AI seats moves no player's chips), so that no pass reads it again."""

    game = models.OneToOneField(
        "play.Game",
        verbose_name=_("игра"),
        on_delete=models.CASCADE,
        related_name="+",
        primary_key=True,
    )

    class Meta:
        verbose_name = _("игра с записанными потоками")
        verbose_name_plural = _("игры с записанными потоками")

    def __str__(self) -> str:
        return f"flows of game {self.game_id}"
