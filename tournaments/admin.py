from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from tournaments.models import Entry, Tournament
from tournaments.services import tournament_cancel


class EntryInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Entry
    extra = 0
    can_delete = False
    fields = ("player", "status", "registered_at", "stack", "place", "prize")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # players register themselves; chips move only through the services


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "name",
        "variant",
        "format",
        "status",
        "starts_at",
        "buy_in",
        "max_entrants",
        "repeat",
    )
    list_filter = ("status", "variant", "format", "repeat")
    search_fields = ("name",)
    readonly_fields = ("status", "commitment", "created_by", "created_at", "previous")
    # Once registration has opened, what entrants registered for (and paid into the
    # escrow by) stays as it was: only the name can change.
    FIXED_ONCE_OPEN = (
        "variant",
        "format",
        "repeat",
        "registration_opens_at",
        "starts_at",
        "ends_at",
        "late_registration_minutes",
        "buy_in",
        "freeroll_pool",
        "prize_table",
        "max_entrants",
        "min_entrants",
        "rounds",
        "starting_stack",
        "stake",
        "min_account_age_days",
        "min_games_played",
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fixed = obj is not None and obj.status != Tournament.Status.SCHEDULED
        return (*self.readonly_fields, *(self.FIXED_ONCE_OPEN if fixed else ()))

    inlines = [EntryInline]
    actions = ["cancel"]
    fieldsets = (
        (None, {"fields": ("name", "variant", "format", "status", "repeat")}),
        (
            _("Время"),
            {
                "fields": (
                    "registration_opens_at",
                    "starts_at",
                    "ends_at",
                    "late_registration_minutes",
                )
            },
        ),
        (
            _("Фишки и места"),
            {
                "fields": (
                    "buy_in",
                    "freeroll_pool",
                    "prize_table",
                    "max_entrants",
                    "min_entrants",
                    "rounds",
                    "starting_stack",
                    "stake",
                )
            },
        ),
        (_("Кого принимают"), {"fields": ("min_account_age_days", "min_games_played")}),
        (_("Честность"), {"fields": ("commitment", "created_by", "created_at", "previous")}),
    )

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # an event with buy-ins is cancelled (refunded), never deleted

    @admin.action(description=_("Отменить и вернуть взносы"))
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            tournament_cancel(tournament=tournament)
        self.message_user(request, _("Отменено, взносы возвращены."), messages.SUCCESS)
