"""What insights puts on other apps' pages: the lobby's leaderboards.

The lobby page (lobby/views.py) does not import insights; its template loads this
library and places `{% lobby_leaderboards %}`, which builds the boards as a part of the
page that may fail alone (tables.parts): a failing board leaves the lobby rendering with
a note in its place."""

from __future__ import annotations

from typing import Any

from django import template

from insights.skill import MIN_DECISIONS
from insights.stats import lobby_leaderboards as boards
from tables.parts import Parts

register = template.Library()


@register.inclusion_tag("insights/lobby_leaderboards.html", takes_context=True)
def lobby_leaderboards(context: template.Context) -> dict[str, Any]:
    parts = Parts("lobby")
    return {
        "leaderboards": parts.build("leaderboards", boards, []),
        "min_decisions": MIN_DECISIONS,
        "unavailable": parts.failed,
        "user": context.get("user"),
    }
