"""Recording where a player signs in from, and forgetting it in time (issue 32).

On every sign-in (Django's `user_logged_in`, connected in `fairplay.apps`: the login form,
sign-up, the admin's) the client address and the device cookie are stored as keyed
hashes of the player's (`Trace`). Nothing else is recorded: not every request, not a
browser fingerprint.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import salted_hmac

from fairplay.middleware import device_of
from fairplay.models import Trace

# Namespaces the keyed hash, so that a digest here matches no other of the site's HMACs.
DIGEST_SALT = "fairplay.trace"


def digest(kind: str, value: str) -> str:
    """The stored form of an address or device id: HMAC-SHA256 under SECRET_KEY, so that
    the table of digests cannot be reversed by hashing every IPv4 address without the key.
    The kind is part of the input: an address and a device never share a digest."""
    return salted_hmac(DIGEST_SALT, f"{kind}:{value}", algorithm="sha256").hexdigest()


def traces_record(
    *, user: Any, address: str = "", device: str = "", now: datetime.datetime | None = None
) -> int:
    """Store (or see again) the player's address and device; how many were given. One
    statement: a trace already known only moves its `last_seen`."""
    now = now or timezone.now()
    rows = [
        Trace(user=user, kind=kind, digest=digest(kind, value), first_seen=now, last_seen=now)
        for kind, value in ((Trace.Kind.ADDRESS, address), (Trace.Kind.DEVICE, device))
        if value
    ]
    if rows:
        Trace.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["user", "kind", "digest"],
            update_fields=["last_seen"],
        )
    return len(rows)


def record_sign_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """`user_logged_in`: the request's address and device cookie (the one the request
    brought, or the one `DeviceCookie` is about to set on its answer)."""
    if request is None or user is None or getattr(user, "is_bot", False):
        return
    traces_record(
        user=user,
        # Behind the proxy daphne takes it from X-Forwarded-For (docs/deployment.md).
        address=str(request.META.get("REMOTE_ADDR", "")),
        device=device_of(request),
    )


def traces_purge(*, now: datetime.datetime | None = None) -> int:
    """Delete the traces not seen for FAIRPLAY_TRACE_RETENTION_DAYS; how many."""
    cutoff = (now or timezone.now()) - datetime.timedelta(
        days=settings.FAIRPLAY_TRACE_RETENTION_DAYS
    )
    deleted, _ = Trace.objects.filter(last_seen__lt=cutoff).delete()
    return deleted
