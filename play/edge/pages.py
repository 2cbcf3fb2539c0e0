"""The live table page: the HTML shell; the game itself arrives over the table socket
(static/js/table/main.js, docs/protocol.md)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language

from play.services.lifecycle import min_players
from tables.models import Table, seat_id_for

# Stands for the game id in the replay URL handed to the page (filled in by the script).
_GAME_ID_MARK = 999999999


def may_watch(table: Table, user: Any, invite: str) -> bool:
    """Who may see a private table: as its socket decides (docs/protocol.md §2.4)."""
    if not table.private:
        return True
    if invite and invite == table.invite_code:
        return True
    if not user.is_authenticated:
        return False
    return bool(
        user.is_staff or table.created_by_id == user.pk or table.seats.filter(player=user).exists()
    )


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """Anyone may watch an open table; a private one needs its invite code (or to be its
    host, seated there, or staff). An unknown table — or a private one the visitor may
    not see — is a 404."""
    table = get_object_or_404(Table.objects.select_related("created_by"), pk=table_id)
    invite = request.GET.get("invite", "")[:64]
    user = request.user
    if not may_watch(table, user, invite):
        raise Http404("no such table")
    signed_in = bool(user.is_authenticated)
    config = {
        "table": table.pk,
        "variant": table.variant,
        "variant_name": str(table.variant_spec.name),
        "ws_path": f"/ws/tables/{table.pk}/",
        "invite": invite or None,
        "user": user.get_username() if signed_in else None,
        "seat_id": seat_id_for(user) if signed_in else None,
        "staff": bool(signed_in and user.is_staff),
        "language": get_language(),
        "module": static(f"js/table/variants/{table.variant}.js"),
        "lobby_url": reverse("lobby"),
        "login_url": reverse("login") + "?" + urlencode({"next": request.get_full_path()}),
        "replay_url": reverse("game_replay", args=[_GAME_ID_MARK]).replace(
            str(_GAME_ID_MARK), "{id}"
        ),
        # Whether the game stakes the players' own chips (the header's balance follows them).
        "chips": table.variant_spec.stakes_chips,
        # The fewest seats a game needs: the page's start line mirrors play/services/lifecycle.py.
        "min_players": min_players(table.variant),
        # A tournament's table (Table.one_game): its owner deals its one game, so the page
        # offers no start, «Готов», AI seats or host's controls, and says when it is played.
        "one_game": table.one_game,
        # The coach (static/js/table/coach.js): offered to a signed-in player at the two
        # training games only, and it stays hidden until the player is seated. Not at a
        # tournament's heat: the coach is silent there until the event ends (insights/coach.py).
        "coach_url": (
            reverse("coach_state", args=[table.pk])
            if signed_in and table.variant_spec.coached and table.duplicate is None
            else None
        ),
    }
    context = {
        "table": table,
        "variant": table.variant_spec,
        "stakes": table.stakes_label(),
        "variant_css": f"css/table/{table.variant}.css",
        "config": config,
    }
    return render(request, "play/table.html", context)
