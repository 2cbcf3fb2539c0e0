from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from insights.coach import option_label
from insights.models import Decision
from play.admin import admin_json
from play.models import Game


@admin.register(Decision)
class DecisionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Players' reviewed decisions (insights/reviews.py), read-only. Only games that are over:
    a decision of a game in play names the player's hand («16 против десятки»), which an
    administrator seated in that game must not see."""

    list_display = ("game", "user", "variant", "round", "situation", "chosen_label", "loss")
    list_filter = ("variant", "timeout")
    search_fields = ("user__username", "situation")
    list_select_related = ("game__table", "user")
    readonly_fields = (
        "game",
        "user",
        "variant",
        "seat",
        "number",
        "round",
        "situation",
        "options_json",
        "chosen_label",
        "best_label",
        "loss",
        "timeout",
        "reviewed_at",
    )
    exclude = ("options", "chosen", "best")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Decision]:
        return super().get_queryset(request).exclude(game__status=Game.Status.PLAYING)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("Выбрано"))
    def chosen_label(self, decision: Decision) -> str:
        return option_label(decision.chosen)

    @admin.display(description=gettext_lazy("Лучшее"))
    def best_label(self, decision: Decision) -> str:
        return option_label(decision.best)

    @admin.display(description=gettext_lazy("Варианты"))
    def options_json(self, decision: Decision) -> str:
        return admin_json(decision.options)
