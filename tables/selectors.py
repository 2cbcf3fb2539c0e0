"""Reads for the lobby (HTTP page and WebSocket share them)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db.models import Case, Count, Q, QuerySet, Value, When
from django.utils.translation import gettext as _

from accounts.models import Account
from tables.models import Seat, Table
from tables.parts import Parts
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


def _lobby_row(t: Table) -> dict[str, Any]:
    return {
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


def lobby_payload() -> list[dict[str, Any]]:
    """The lobby as JSON-ready dicts (the WebSocket sends this on connect). A table whose
    row cannot be built is left out (and logged), not the whole list (tables.parts); a
    row reads nothing more from the database, so it needs no savepoint."""
    parts = Parts("lobby list")
    rows = [
        parts.build(f"table {t.pk}", partial(_lobby_row, t), None, savepoint=False)
        for t in lobby_tables()
    ]
    return [row for row in rows if row is not None]


def player_lobby_state(user: Any) -> dict[str, Any] | None:
    """What the lobby needs to know about the viewer to say whether they may sit where:
    their chip balance and the open tables they sit at. None when not signed in."""
    if user is None or not user.is_authenticated:
        return None
    seats = (
        Seat.objects.filter(player=user, table__status=Table.Status.OPEN)
        .select_related("table")
        .order_by("table_id")
    )
    return {
        "balance": int(
            Account.objects.filter(owner=user, kind=Account.Kind.PLAYER)
            .values_list("balance", flat=True)
            .first()
            or 0
        ),
        "seats": [
            {
                "table": seat.table_id,
                "name": seat.table.name,
                "variant": seat.table.variant,
                "leaving": seat.leaving,
            }
            for seat in seats
        ],
    }


# Variants whose players' chips may be in play at one table at a time (services.seat_take).
_ONE_CHIP_TABLE = ("salon", "banker36")


def join_state(table: dict[str, Any], me: dict[str, Any] | None) -> dict[str, Any]:
    """Whether the viewer may sit at a lobby table (an item of `lobby_payload`), checked
    in the order `services.seat_take` checks them: {"state": "join" | "seated" |
    "refused", "code", "message"}. static/js/lobby.js repeats this for live updates."""
    if me is None:
        return _refused("not_signed_in", _("Войдите, чтобы сесть за стол."))
    if table.get("closed"):
        return _refused("table_closed", _("Стол закрыт."))
    here = next((s for s in me["seats"] if s["table"] == table["id"]), None)
    if here is not None:
        if here["leaving"]:
            return _refused(
                "leaving",
                _("Вы встали из-за стола: место освободится, когда закончится эта игра."),
            )
        return {"state": "seated", "code": "", "message": ""}
    if table["variant"] in _ONE_CHIP_TABLE:
        elsewhere = next((s for s in me["seats"] if s["variant"] in _ONE_CHIP_TABLE), None)
        if elsewhere is not None:
            return _refused(
                "seated_elsewhere",
                _("Вы уже играете на фишки за столом «%(name)s»: встаньте оттуда сначала.")
                % {"name": elsewhere["name"]},
            )
    if me["balance"] < table["entry_limit"]:
        return _refused(
            "below_entry_limit",
            _("Нужно не меньше %(limit)s фишек, у вас %(balance)s.")
            % {"limit": table["entry_limit"], "balance": me["balance"]},
        )
    if table["seats_taken"] >= table["seat_count"]:
        return _refused("table_full", _("Свободных мест нет."))
    return {"state": "join", "code": "", "message": ""}


def _refused(code: str, message: str) -> dict[str, Any]:
    return {"state": "refused", "code": code, "message": message}
