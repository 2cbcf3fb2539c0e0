"""Chat in Django admin: the messages, read-only, with what was written next to what
players were shown (moderators read both); the words an admin adds to the filter."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from chat.models import ChatMessage, FilterWord


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("created_at", "table", "author", "text", "shown", "held")
    list_filter = ("held",)
    search_fields = ("text", "author__username", "table__name")
    date_hierarchy = "created_at"
    list_select_related = ("table", "author")
    readonly_fields = (
        "table",
        "game",
        "author",
        "text",
        "shown",
        "phrase",
        "created_at",
        "held",
        "withheld_from",
        "released_at",
    )
    raw_id_fields = ("table", "game", "author")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(FilterWord)
class FilterWordAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("word", "created_at")
    search_fields = ("word",)
    fields = ("word",)
