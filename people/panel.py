"""The lobby's friends panel as data: for the template tag (people.templatetags.people),
the polled HTML fragment and `GET /friends/panel.json` alike."""

from __future__ import annotations

import datetime
from typing import Any

from django.urls import reverse

from people import friends as svc


def _table_json(line: svc.FriendLine) -> dict[str, Any] | None:
    table = line.table
    if table is None:
        return None
    url = reverse("table", args=[table.pk])
    return {
        "id": table.pk,
        "name": table.name,
        "variant": table.variant,
        "variant_name": str(table.variant_spec.name),
        "private": table.private,
        "seated": line.seated,
        "watch_url": url,
        # A private table shown here is one the viewer is a guest at: no invite needed.
        "sit_url": f"{url}?sit=1",
    }


def panel(user: Any) -> dict[str, Any]:
    """Friends (online first), pending requests and live invites of `user`."""
    incoming, outgoing = svc.requests_of(user)
    invites = svc.live_invites(user)
    lines = svc.friends_online(user)
    return {
        "friends": [
            {
                "name": line.name,
                "profile": reverse("people:profile", args=[line.name]),
                "online": line.online,
                "table": _table_json(line),
            }
            for line in lines
        ],
        "online": sum(1 for line in lines if line.online),
        "incoming": [
            {
                "name": r.sender.username,
                "profile": reverse("people:profile", args=[r.sender.username]),
                "sent_at": r.created_at.isoformat(),
            }
            for r in incoming
        ],
        "outgoing": [
            {
                "name": r.recipient.username,
                "profile": reverse("people:profile", args=[r.recipient.username]),
                "sent_at": r.created_at.isoformat(),
            }
            for r in outgoing
        ],
        "invites": [
            {
                "id": invite.pk,
                "from": invite.sender.username,
                "from_profile": reverse("people:profile", args=[invite.sender.username]),
                "table": {
                    "id": invite.table.pk,
                    "name": invite.table.name,
                    "variant": invite.table.variant,
                    "variant_name": str(invite.table.variant_spec.name),
                },
                "join_url": svc.invite_join_url(invite.table),
                "dismiss_url": reverse("people:invite_dismiss", args=[invite.pk]),
                "sent_at": invite.created_at.isoformat(),
                "expires_at": (
                    invite.created_at + datetime.timedelta(hours=svc.INVITE_HOURS)
                ).isoformat(),
            }
            for invite in invites
        ],
    }
