"""The device cookie: a random id the browser keeps, so that two accounts signed in from
one browser are known to share it (issue 32). First-party, HttpOnly, not readable by the
page's scripts; stored server-side only as a hash, and only at a sign-in
(`fairplay.traces`)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

DEVICE_COOKIE = "t21_device"
# Browsers cap a cookie's life at 400 days (RFC 6265bis); asking for more gains nothing.
DEVICE_COOKIE_MAX_AGE = 400 * 24 * 3600
# What this middleware makes (secrets.token_urlsafe(24)); anything else is replaced, so a
# client cannot store a chosen or oversized value in the traces.
_WELL_FORMED = re.compile(r"[A-Za-z0-9_-]{32}")


def device_of(request: HttpRequest) -> str:
    """The request's device id: set by `DeviceCookie` (brought, or new on this answer)."""
    return str(getattr(request, "fairplay_device", "") or "")


class DeviceCookie:
    """Gives a browser without a well-formed device cookie a new one."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        brought = request.COOKIES.get(DEVICE_COOKIE, "")
        fresh = not _WELL_FORMED.fullmatch(brought)
        device = secrets.token_urlsafe(24) if fresh else brought
        request.fairplay_device = device  # type: ignore[attr-defined]
        response: HttpResponse = self.get_response(request)
        if fresh:
            response.set_cookie(
                DEVICE_COOKIE,
                device,
                max_age=DEVICE_COOKIE_MAX_AGE,
                httponly=True,
                samesite="Lax",
                secure=request.is_secure(),
            )
        return response
