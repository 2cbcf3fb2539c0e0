"""The answer to a sign-in that django-axes refuses (settings AXES_LOCKOUT_CALLABLE):
axes' page, with `Retry-After`, or the JSON refusal of limit `sign_ins` to a request
asking for JSON (docs/protocol.md §3)."""

from __future__ import annotations

import math
import time
from typing import Any

from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from lib.bodies import rate_limited, retry_later


def _retry_after(request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """Whole seconds until the cool-off has ended: axes keeps one attempt row per user name and
    address, stamped with its latest failure, and counts it for the cool-off after it."""
    cool_off = get_cool_off(request)
    if cool_off is None:  # a lockout without end (not configured so): say the whole hour
        return 3600
    latest = (
        AccessAttempt.objects.filter(
            username=get_client_username(request, credentials),
            ip_address=getattr(request, "axes_ip_address", None),
        )
        .order_by("-attempt_time")
        .values_list("attempt_time", flat=True)
        .first()
    )
    ends = (latest or timezone.now()) + cool_off
    # Strictly after: axes still counts a failure exactly the cool-off old.
    return max(1, math.floor(ends.timestamp() - time.time()) + 1)


def locked_out(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    retry_after = _retry_after(request, credentials)
    if "application/json" in request.headers.get("Accept", ""):
        return rate_limited(
            _("Вход под этим именем с вашего адреса временно закрыт."), "sign_ins", retry_after
        )
    page = render(request, settings.AXES_LOCKOUT_TEMPLATE, status=429)
    return retry_later(page, retry_after)
