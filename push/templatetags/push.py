"""`{% push_optin %}`: the button that turns Web Push on for this browser, shown to a
signed-in player when push is configured (the pages load it; their apps do not import
push)."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings
from django.urls import reverse

from push.services import push_enabled

register = template.Library()


@register.inclusion_tag("push/optin.html", takes_context=True)
def push_optin(context: dict[str, Any]) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    shown = push_enabled() and user is not None and user.is_authenticated
    return {
        "shown": shown,
        "public_key": settings.WEBPUSH_VAPID_PUBLIC_KEY if shown else "",
        "url": reverse("push_subscriptions"),
    }
