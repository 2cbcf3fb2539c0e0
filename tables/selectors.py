"""Reads for the lobby (HTTP page and WebSocket share them)."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, Count, Q, QuerySet, Value, When
from django.utils.translation import gettext as _

from tables.models import Table
from tables.variants import VARIANTS


def lobby_tables() -> QuerySet[Table]:
    return (
        Table.objects.filter(status=Table.Status.OPEN, private=False)
        .annotate(seats_taken=Count("seats"))
        .annotate(
            playing=Count("games", filter=Q(games__status="playing")),
        )
        # Variants in the registry's order (classic first), then by name.
        .annotate(
            variant_order=Case(
                *(When(variant=key, then=Value(i)) for i, key in enumerate(VARIANTS)),
                default=Value(len(VARIANTS)),
            )
        )
        .order_by("variant_order", "name", "id")
    )


def table_stakes_label(table: Table) -> str:
    """How the table is played for, in one short phrase."""
    spec = table.variant_spec
    if table.stake is not None and "stake" in spec.stake_defaults:
        return _("ставка %(stake)d") % {"stake": table.stake}
    if "min_bet" in spec.stake_defaults:
        return _("ставки %(min)d–%(max)d") % {"min": table.min_bet, "max": table.max_bet}
    if spec.currency == "points":
        return _("на очки, партия из %(n)d раздач") % {"n": table.match_length}
    if spec.currency == "coins":
        return _("на монеты игры, не фишки")
    return _("учебные единицы, не фишки")


def lobby_payload() -> list[dict[str, Any]]:
    """The lobby as JSON-ready dicts (the WebSocket sends this on connect)."""
    return [
        {
            "id": t.pk,
            "name": t.name,
            "variant": t.variant,
            "variant_name": str(t.variant_spec.name),
            "seats_taken": t.seats_taken,
            "seat_count": t.seat_count,
            "stakes": table_stakes_label(t),
            "options": t.engine_options(),
            "entry_limit": t.entry_limit,
            "playing": bool(t.playing),
        }
        for t in lobby_tables()
    ]
