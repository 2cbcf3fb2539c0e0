"""What tournaments put on other apps' pages: the lobby's next events, a profile's (and
the history's) results, a heat's replay's link to the comparison. Those apps do not import
tournaments; their templates load this library, and each part is built as one that may
fail alone (tables.parts)."""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Count, Q

from tables.parts import Parts
from tournaments.models import Entry, Tournament

register = template.Library()

NEXT_SHOWN = 3
RESULTS_SHOWN = 10


def next_events() -> list[Tournament]:
    return list(
        Tournament.objects.filter(
            status__in=[Tournament.Status.REGISTERING, Tournament.Status.SCHEDULED]
        ).order_by("starts_at", "pk")[:NEXT_SHOWN]
    )


@register.inclusion_tag("tournaments/lobby_next.html")
def lobby_tournaments() -> dict[str, Any]:
    parts = Parts("lobby")
    return {"events": parts.build("tournaments", next_events, []), "unavailable": parts.failed}


def results_of(player: Any) -> list[Entry]:
    """The player's places in finished events, latest first, each with its field's size
    (`entrants`)."""
    return list(
        Entry.objects.filter(
            player=player,
            status=Entry.Status.FINISHED,
            tournament__status=Tournament.Status.FINISHED,
        )
        .select_related("tournament")
        .annotate(
            entrants=Count(
                "tournament__entries",
                filter=Q(tournament__entries__status=Entry.Status.FINISHED),
            )
        )
        .order_by("-tournament__ends_at", "-pk")[:RESULTS_SHOWN]
    )


@register.inclusion_tag("tournaments/profile_results.html")
def tournament_results(player: Any) -> dict[str, Any]:
    parts = Parts("profile")
    return {
        "results": parts.build("tournaments", lambda: results_of(player), []),
        "unavailable": parts.failed,
    }


@register.inclusion_tag("tournaments/heat_compare_link.html")
def heat_compare_link(game: Any) -> dict[str, Any]:
    """On a duplicate heat's replay, once its event is over: a link to the heat beside
    another entrant's on the same cards (`tournament_compare`), this heat first."""
    entry = (
        Entry.objects.select_related("tournament", "player")
        .filter(
            table_id=game.table_id,
            tournament__format=Tournament.Format.DUPLICATE,
            tournament__status=Tournament.Status.FINISHED,
        )
        .first()
    )
    return {"entry": entry}
