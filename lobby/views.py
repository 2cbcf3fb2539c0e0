from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from contract.http import LobbyState
from lib.bodies import json_answer, refusal, retry_later
from lobby import rows, services
from lobby.forms import FIELD_VARIANTS, LobbyFilterForm, TableOpenForm
from lobby.selectors import empty_listing, lobby_listing, player_lobby_state
from play.services import errors, seating
from tables.parts import Parts
from tables.variants import BLACKJACK, SOLO, VARIANTS

if TYPE_CHECKING:
    from tables.models import Table

# The one-click tables: a private table of its own for the player; blackjack training
# gets company at these AI levels (games.ai.LEVELS["blackjack"]).
QUICK_START = (SOLO, BLACKJACK)
TRAINING_AI_LEVELS = ("medium", "hard")


def _variant_specs() -> dict[str, dict[str, Any]]:
    """The variants' limits and defaults for the open-table form's script."""
    return {
        v.key: {
            "min_seats": v.min_seats,
            "max_seats": v.max_seats,
            "default_seats": v.default_seats,
            "defaults": {
                **v.stake_defaults,
                "entry_limit": v.default_entry_limit,
                "seat_count": v.default_seats,
                **({"match_length": v.default_match_length} if v.match_lengths else {}),
            },
        }
        for v in VARIANTS.values()
    }


def _quick_seat_cards() -> list[dict[str, Any]]:
    """One «Играть» per variant: its name, and what it plays for in a few words (for the
    variants that stake chips, the entry limit of a table it opens)."""
    cards = []
    for v in VARIANTS.values():
        if v.stakes_chips:
            note = gettext("на фишки, вход от %(n)d") % {"n": v.default_entry_limit}
        elif v.currency == "points":
            note = gettext("на очки, не фишки")
        elif v.currency == "coins":
            note = gettext("один против банкира, монеты игры")
        else:
            note = gettext("тренировка с ИИ, не фишки")
        cards.append({"variant": v, "note": note})
    return cards


def _page_query(request: HttpRequest, page: int) -> str:
    """The lobby's query string (its filters) for another page."""
    query = request.GET.copy()
    query["page"] = str(page)
    return query.urlencode()


def _lobby(request: HttpRequest, form: TableOpenForm | None = None, status: int = 200) -> Any:
    parts = Parts("lobby")  # each part fails alone (tables.parts)
    filters_form = LobbyFilterForm(request.GET)
    filters = filters_form.filters()
    listing = parts.build("tables", lambda: lobby_listing(**filters), empty_listing())
    tables = listing["tables"]
    me = parts.build("me", lambda: player_lobby_state(request.user), None)
    sitter = rows.sitter_from(me)
    counts = listing["counts"]
    page = listing["page"]
    context = {
        "rows": [rows.row_html(table, rows.verdict(table, sitter)) for table in tables],
        "tables": tables,
        "listing": listing,
        "filters_form": filters_form,
        "filters": filters,
        "previous_query": _page_query(request, page - 1) if page > 1 else "",
        "next_query": _page_query(request, page + 1) if page < listing["pages"] else "",
        "me": me,
        "variants": [(v, counts[v.key]) for v in VARIANTS.values()],
        "selected_variant": filters["variant"],
        "form": form or TableOpenForm(user=request.user),
        # «Открыть стол» at the top of the page links here with ?open=1 (no script needed).
        "form_open": form is not None or request.GET.get("open") == "1",
        "quick_seat": _quick_seat_cards(),
        "variant_specs": _variant_specs(),
        "field_variants": {name: list(keys) for name, keys in FIELD_VARIANTS.items()},
        "unavailable": parts.failed,
    }
    return render(request, "lobby/lobby.html", context, status=status)


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    return _lobby(request)


@require_GET
@never_cache
def lobby_state(request: HttpRequest) -> HttpResponse:
    """The lobby as the page's script needs it: a page of the open tables under the query's
    filters (as the lobby socket sends them) and the viewer's balance, seats and tables
    (null when not signed in); the parts that failed are named in "unavailable"
    (tables.parts). docs/protocol.md §14."""
    filters = LobbyFilterForm(request.GET)
    if not filters.is_valid():
        return refusal("bad_filter", filters.error_text(), 400)
    parts = Parts("lobby.json")
    listing = parts.build("tables", lambda: lobby_listing(**filters.filters()), empty_listing())
    me = parts.build("me", lambda: player_lobby_state(request.user), None)
    if "me" not in parts.failed:  # without the viewer, no verdict: the rows as they were
        sitter = rows.sitter_from(me)
        html = request.GET.get("html") == "1"
        listing["tables"] = [rows.for_viewer(t, sitter, html=html) for t in listing["tables"]]
    return json_answer(LobbyState(**listing, me=me, unavailable=parts.failed))


@login_required
@require_POST
def table_new(request: HttpRequest) -> HttpResponse:
    """The lobby's «Открыть стол»: the table is opened with the service, its opener
    sits down if they asked to, and lands on the table's page."""
    form = TableOpenForm(request.POST, user=request.user)
    if not form.is_valid():
        return _lobby(request, form, status=400)
    try:
        table = services.table_open(
            by=request.user,
            variant=form.cleaned_data["variant"],
            private=form.cleaned_data["private"],
            **form.table_fields(),
        )
    except errors.PlayError as error:
        form.add_error(None, error.message)
        if error.retry_after is not None:  # over the hourly opens: the page, as a 429
            return retry_later(_lobby(request, form, status=429), error.retry_after)
        return _lobby(request, form, status=400)
    if form.cleaned_data["sit"]:
        try:
            seating.seat_take(table=table, player=request.user)
        except errors.SeatError as error:
            messages.error(request, error.messages[0])
    return redirect("table", table_id=table.pk)


def _seated_or_back(request: HttpRequest, seat: Callable[[], Table]) -> HttpResponse:
    """Run a service that seats the player (one click, quick seat) and land on the table's
    page, or back in the lobby with the refusal's message."""
    try:
        table = seat()
    except errors.PlayError as error:
        messages.error(request, error.message)
        return redirect("lobby")
    except errors.SeatError as error:
        messages.error(request, error.messages[0])
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


@login_required
@require_POST
def quick_start(request: HttpRequest, variant: str) -> HttpResponse:
    """One click to play: a private `solo` table, or a `blackjack` training table with
    AI seats, opened for the player and with the player seated. A player who already
    has such a table of theirs goes back to it (sitting down again if they had stood
    up): one per player and variant, so these tables never pile up."""
    if variant not in QUICK_START:
        raise Http404("no one-click table of this variant")
    levels = TRAINING_AI_LEVELS if variant == BLACKJACK else ()
    return _seated_or_back(
        request,
        lambda: services.table_one_click(by=request.user, variant=variant, ai_levels=levels),
    )


@require_POST
def quick_seat(request: HttpRequest, variant: str) -> HttpResponse:
    """The lobby's «Играть» for a variant: the player is seated at the best open table of
    it for their chips, or at one opened for them (`services.table_quick_seat`), and lands
    on its page. Not signed in: the sign-in page, back to the lobby after it (a POST
    cannot be replayed by a redirect). A refusal: the lobby with its message."""
    if variant not in VARIANTS:
        raise Http404("no such variant")
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("lobby"))
    levels = TRAINING_AI_LEVELS if variant == BLACKJACK else ()
    return _seated_or_back(
        request,
        lambda: services.table_quick_seat(by=request.user, variant=variant, ai_levels=levels),
    )


def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "rules/index.html", {"variants": VARIANTS.values()})


def rules(request: HttpRequest, variant: str) -> HttpResponse:
    """A variant's rules in the page's language (long texts: one template per language)."""
    spec = VARIANTS.get(variant)
    if spec is None:
        raise Http404("no such variant")
    language = (get_language() or "ru").split("-")[0]
    templates = [f"rules/{variant}.{language}.html", f"rules/{variant}.ru.html"]
    return render(request, templates, {"variant": spec, "variants": VARIANTS.values()})
