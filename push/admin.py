from __future__ import annotations

from django.contrib import admin

from push.models import Subscription


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Who receives notifications, on which browsers: to look at, or to delete one."""

    list_display = ("user", "user_agent", "language", "created_at", "last_success_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    readonly_fields = (
        "user",
        "endpoint",
        "p256dh",
        "auth",
        "language",
        "user_agent",
        "created_at",
        "last_success_at",
    )

    def has_add_permission(self, request: object) -> bool:
        return False
