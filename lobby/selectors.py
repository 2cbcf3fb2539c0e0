"""Reads for the lobby (HTTP page and WebSocket share them)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Case, Count, F, Q, QuerySet, Value, When
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import Account
from accounts.templatetags.numbers import number
from tables.models import Seat, Table
from tables.parts import Parts
from tables.variants import VARIANTS

# The lobby's page (and lobby.json, and the lobby socket's first list) shows at most this
# many tables: with one player's 2,000 tables the whole list made `GET /` take up to two
# seconds and 2 MiB for everyone.
LOBBY_PAGE_SIZE = 50


def _listed(
    variant: str = "", min_entry: int | None = None, max_entry: int | None = None
) -> QuerySet[Table]:
    """The open, public tables, filtered by variant and entry limit (in the database)."""
    tables = Table.objects.filter(status=Table.Status.OPEN, private=False)
    if variant:
        tables = tables.filter(variant=variant)
    if min_entry is not None:
        tables = tables.filter(entry_limit__gte=min_entry)
    if max_entry is not None:
        tables = tables.filter(entry_limit__lte=max_entry)
    return tables


def lobby_tables(
    variant: str = "", min_entry: int | None = None, max_entry: int | None = None
) -> QuerySet[Table]:
    return (
        _listed(variant, min_entry, max_entry)
        # distinct: two to-many joins (seats, games) multiply each other's rows.
        .annotate(seats_taken=Count("seats", distinct=True))
        .annotate(
            playing=Count("games", filter=Q(games__status="playing"), distinct=True),
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


def quick_seat_tables(
    *, variant: str, balance: int, player: Any, with_company: bool = False
) -> QuerySet[Table]:
    """The tables of `variant` a quick seat («Играть», `lobby.services.table_quick_seat`)
    may take, best first: open, public, not closing, with a free seat, an entry limit
    within `balance` (0 at the variants without chips, so no wallet condition there), and
    no seat of `player` (one they are leaving: they cannot sit there again yet). Most
    players waiting first (people, not AI seats), then the oldest (lowest id).
    `play.seating.seat_take` checks all of it again under the table's lock.

    `with_company`: only tables where a person is already seated, or that `player`
    hosts — where AI seats can fill a game, an empty table hosted by someone else is
    one a lone player can neither fill nor start (only its host adds AI seats)."""
    tables = (
        Table.objects.filter(
            status=Table.Status.OPEN,
            private=False,
            closing=False,
            variant=variant,
            entry_limit__lte=balance,
        )
        .exclude(pk__in=Seat.objects.filter(player=player).values("table_id"))
        .annotate(
            taken=Count("seats"),
            waiting=Count("seats", filter=Q(seats__player__isnull=False)),
        )
        .filter(taken__lt=F("seat_count"))
    )
    if with_company:
        tables = tables.filter(Q(waiting__gt=0) | Q(created_by=player))
    return tables.order_by("-waiting", "pk")


def lobby_row(t: Table) -> dict[str, Any]:
    """One table of the lobby as JSON (a table of `lobby_tables`, in the active language)."""
    return {
        "id": t.pk,
        "name": t.name,
        "variant": t.variant,
        "variant_name": str(t.variant_spec.name),
        "seats_taken": t.seats_taken,
        "seat_count": t.seat_count,
        "stakes": t.stakes_label(),
        "options": t.engine_options(),
        "entry_limit": t.entry_limit,
        "playing": bool(t.playing),
    }


def lobby_rows(tables: Any) -> list[dict[str, Any]]:
    """The lobby rows of `tables`. A table whose row cannot be built is left out (and
    logged), not the whole list (tables.parts); a row reads nothing more from the
    database, so it needs no savepoint."""
    parts = Parts("lobby list")
    rows = [
        parts.build(f"table {t.pk}", partial(lobby_row, t), None, savepoint=False) for t in tables
    ]
    return [row for row in rows if row is not None]


def lobby_counts(min_entry: int | None = None, max_entry: int | None = None) -> dict[str, int]:
    """How many open, public tables each variant has (under the entry-limit filters, if
    any; every variant present, 0 when it has none): one grouped query. lobby.json and
    the lobby socket's first message count under their filters; the socket's
    `lobby_counts`, sent once per batch of diffs (play.broadcast), with none."""
    counts = dict.fromkeys(VARIANTS, 0)
    for row in (
        _listed("", min_entry, max_entry).values("variant").annotate(n=Count("pk")).order_by()
    ):
        counts[row["variant"]] = row["n"]
    return counts


def lobby_listing(
    variant: str = "",
    min_entry: int | None = None,
    max_entry: int | None = None,
    page: int | str | None = 1,
) -> dict[str, Any]:
    """One page of the lobby (LOBBY_PAGE_SIZE tables) under the filters, with how many
    tables there are in all and of each variant (under the entry-limit filters): what
    the page, lobby.json and the lobby socket's first message show (docs/protocol.md)."""
    paginator = Paginator(lobby_tables(variant, min_entry, max_entry), LOBBY_PAGE_SIZE)
    shown = paginator.get_page(page)  # a page past the end: the last one
    counts = lobby_counts(min_entry, max_entry)
    return {
        "tables": lobby_rows(shown),
        "page": shown.number,
        "pages": paginator.num_pages,
        "total": paginator.count,
        "counts": counts,
        # Over all variants (under the entry-limit filters): the «Все» filter's count.
        "counts_total": sum(counts.values()),
    }


def empty_listing() -> dict[str, Any]:
    """The listing's form with no table: what a page shows when its list failed."""
    counts = dict.fromkeys(VARIANTS, 0)
    return {"tables": [], "page": 1, "pages": 1, "total": 0, "counts": counts, "counts_total": 0}


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
    seats = list(seats)
    seated = {seat.table_id for seat in seats}
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
        # The open tables the viewer opened (private ones too): findable whatever page or
        # filter the lobby shows, and the ones to close at the limit of open tables.
        "tables": [
            {
                "table": t.pk,
                "name": t.name,
                "variant": t.variant,
                "private": t.private,
                "seated": t.pk in seated,
            }
            for t in Table.objects.filter(created_by=user, status=Table.Status.OPEN).order_by("pk")
        ],
    }


# Variants whose players' chips may be in play at one table at a time (play.seating.seat_take).
_ONE_CHIP_TABLE = ("salon", "banker36")


def join_state(table: dict[str, Any], me: dict[str, Any] | None) -> dict[str, Any]:
    """Whether the viewer may sit at a lobby table (an item of `lobby_listing`'s tables), checked
    in the order `play.seating.seat_take` checks them: {"state": "join" | "seated" |
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
            ngettext(
                "Нужно не меньше %(limit)s фишки, у вас %(balance)s.",
                "Нужно не меньше %(limit)s фишек, у вас %(balance)s.",
                table["entry_limit"],
            )
            % {"limit": number(table["entry_limit"]), "balance": number(me["balance"])},
        )
    if table["seats_taken"] >= table["seat_count"]:
        return _refused("table_full", _("Свободных мест нет."))
    return {"state": "join", "code": "", "message": ""}


def _refused(code: str, message: str) -> dict[str, Any]:
    return {"state": "refused", "code": code, "message": message}
