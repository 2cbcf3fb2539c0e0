from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tables import services
from tables.models import Seat, Table
from tables.selectors import table_stakes_label


class SeatInline(admin.TabularInline):  # type: ignore[type-arg]
    """Who sits where. Players sit down themselves; an admin can only free a seat."""

    model = Seat
    extra = 0
    fields = ("number", "player", "seated_at")
    readonly_fields = fields
    can_delete = True
    ordering = ("number",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "name",
        "variant",
        "status",
        "seats_taken_total",
        "stakes",
        "entry_limit",
        "decision_seconds",
        "created_at",
    )
    list_filter = ("variant", "status")
    search_fields = ("name",)
    inlines = [SeatInline]
    actions = ["close_tables", "reopen_tables"]
    readonly_fields = ("created_by", "created_at", "closed_at")
    fieldsets = [
        (None, {"fields": ("variant", "name", "status", "seat_count")}),
        (
            gettext_lazy("Ставки"),
            {
                "fields": ("stake", "min_bet", "max_bet", "entry_limit"),
                "description": gettext_lazy(
                    "Очко с банкиром: ставка стола. Салонная игра: минимальная и "
                    "максимальная ставки. Пустые поля получат значения по умолчанию."
                ),
            },
        ),
        (
            gettext_lazy("Время и партия"),
            {"fields": ("decision_seconds", "reconnect_grace_seconds", "match_length")},
        ),
        (gettext_lazy("История"), {"fields": ("created_by", "created_at", "closed_at")}),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return super().get_queryset(request).annotate(seats_taken=Count("seats"))

    @admin.display(description=gettext_lazy("Места"), ordering="seats_taken")
    def seats_taken_total(self, table: Table) -> str:
        return f"{table.seats_taken}/{table.seat_count}"  # type: ignore[attr-defined]

    @admin.display(description=gettext_lazy("Ставки"))
    def stakes(self, table: Table) -> str:
        return table_stakes_label(table)

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        # Closing or reopening by the status field does what the list actions do.
        if change and "status" in form.changed_data:
            if obj.status == Table.Status.CLOSED:
                services.table_close(table=obj)
            else:
                services.table_reopen(table=obj)

    @admin.action(description=gettext_lazy("Закрыть выбранные столы"))
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        count = 0
        for table in queryset:
            services.table_close(table=table)
            count += 1
        self.message_user(
            request,
            ngettext("Закрыт %(n)d стол.", "Закрыто столов: %(n)d.", count) % {"n": count},
            messages.SUCCESS,
        )

    @admin.action(description=gettext_lazy("Открыть выбранные столы"))
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        for table in queryset:
            services.table_reopen(table=table)
        self.message_user(request, _("Готово."), messages.SUCCESS)
