"""The decision review's rows: one per decision a player made, with what every option
was worth (insights/reviews.py writes them once a game has ended).

Made by the `tables` app before insights had a room of its own; the database table keeps
its name (`db_table`: insights/migrations/0001 moved only Django's idea of it)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.strategy.review import MISTAKE_EPSILON
from play.models import Game
from tables.variants import variant_choices


class Decision(models.Model):
    """One decision a player made, with the value of every option they had, computed from
    their seat's view alone (games.strategy.review). Written only by insights.reviews."""

    game = models.ForeignKey(
        Game, verbose_name=_("игра"), on_delete=models.CASCADE, related_name="decisions"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("игрок"),
        on_delete=models.CASCADE,
        related_name="decisions",
    )
    variant = models.CharField(_("вариант"), max_length=16, choices=variant_choices)
    seat = models.CharField(_("место"), max_length=160)
    # The index of the decision's action in the game's record, and its round there.
    number = models.PositiveIntegerField(_("ход №"))
    round = models.PositiveIntegerField(_("раздача"))
    # e.g. "hard16:T", "soft18:A", "pair8:T", "total14", "bet:A" (games.strategy.review)
    situation = models.CharField(_("положение"), max_length=32)
    options = models.JSONField(_("варианты"))  # [{"action", "amount"?, "value"}]
    chosen = models.JSONField(_("выбрано"))
    best = models.JSONField(_("лучшее"))
    loss = models.FloatField(_("потеря"))  # best value − chosen value, ≥ 0
    timeout = models.BooleanField(_("время вышло"), default=False)
    reviewed_at = models.DateTimeField(_("разобрано"), auto_now_add=True)

    class Meta:
        db_table = "tables_decision"
        verbose_name = _("решение")
        verbose_name_plural = _("решения")
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="decision_once_per_action")
        ]
        indexes = [models.Index(fields=["user", "variant"], name="decision_user_variant")]

    def __str__(self) -> str:
        return f"{self.game} #{self.number} {self.situation}"

    @property
    def mistake(self) -> bool:
        return self.loss > MISTAKE_EPSILON
