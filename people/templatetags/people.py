"""What the people app puts on other apps' pages, without them importing it (as the
lobby shows insights' leaderboards): the lobby's friends panel and the private table's
«Пригласить друга». Each is a part of the page that may fail alone (tables.parts)."""

from __future__ import annotations

from typing import Any

from django import template

from people import friends as svc
from people.panel import panel
from tables.models import Table
from tables.parts import Parts

register = template.Library()


def friends_panel_context(user: Any, request: Any) -> dict[str, Any]:
    parts = Parts("lobby")
    data = parts.build("friends", lambda: panel(user), None)
    svc.mark_online(user)
    return {
        "panel": data,
        "unavailable": parts.failed,
        "user": user,
        "request": request,
        "poll_seconds": svc.PANEL_POLL_SECONDS,
    }


@register.inclusion_tag("people/lobby_friends.html", takes_context=True)
def lobby_friends(context: template.Context) -> dict[str, Any]:
    """The lobby's friends panel: invites, friends online and where, requests. Nothing
    for an anonymous visitor. Viewing it marks the viewer online (people.friends)."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return {"panel": None, "user": user}
    return friends_panel_context(user, context.get("request"))


@register.inclusion_tag("people/table_invite.html", takes_context=True)
def table_invite(context: template.Context, table: Table) -> dict[str, Any]:
    """«Пригласить друга» at a private table, for its host or a player seated there (at
    the page's rendering): a friend picked from a list."""
    user = context.get("user")
    if user is None or not table.private or not svc.may_invite(table, user):
        return {"shown": False}
    parts = Parts("table")
    friends = parts.build("invite", lambda: svc.friends_of(user), [])
    return {
        "shown": True,
        "table": table,
        "friends": [name for _pk, name in friends],
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
    }
