"""Sign-in traces in Django admin: moderators only, read-only (they are evidence, and
they expire on their own: fairplay.tasks)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from fairplay.models import Trace


@admin.register(Trace)
class TraceAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "short_digest", "first_seen", "last_seen")
    list_filter = ("kind",)
    search_fields = ("user__username", "digest")
    readonly_fields = ("user", "kind", "digest", "first_seen", "last_seen")
    ordering = ("-last_seen",)

    @admin.display(description=_("хеш"))
    def short_digest(self, obj: Trace) -> str:
        return obj.digest[:12]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
