"""Reads for the lobby (HTTP page and WebSocket share them)."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Case, Count, F, Q, QuerySet, Value, When

from play.services.seating import sitter_of
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
    return with_row_facts(_listed(variant, min_entry, max_entry))


def with_row_facts(tables: QuerySet[Table]) -> QuerySet[Table]:
    """`tables` with what a lobby row shows of each (`lobby_row`), in the lobby's order."""
    return (
        tables
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
    `play.services.seating.seat_take` checks all of it again under the table's lock.

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
        "bots": t.allows_bots,
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
    `lobby_counts`, sent once per batch of diffs (play.frames.broadcast), with none."""
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
    """What the lobby needs to know about the viewer to say whether they may sit where
    (play.services.seating.sitter_of: their chip balance and the open tables they sit at) and the
    tables they opened. None when not signed in."""
    if user is None or not user.is_authenticated:
        return None
    sitter = sitter_of(user)
    seated = {seat.table for seat in sitter.seats}
    return {
        "balance": sitter.balance,
        "seats": [asdict(seat) for seat in sitter.seats],
        "bot": sitter.is_bot,
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
