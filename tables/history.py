"""Hand history pages: a player's past games, the step-by-step replay of one and its
«Проверить» view (the shuffle re-derived in the browser, docs/fairness.md)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from tables.models import Game
from tables.replays import replay, signed, viewer_seat

GAMES_PER_PAGE = 20


def games_played_by(user: Any) -> QuerySet[Game]:
    """Games over (finished or voided) in which the user held a seat, newest first."""
    return games_seating(user).exclude(status=Game.Status.PLAYING)


def games_seating(user: Any) -> QuerySet[Game]:
    """Every game in which the user held a seat, those in play included, newest first."""
    games = Game.objects.select_related("table")
    if connection.vendor == "postgresql":
        games = games.filter(players__contains=[{"user": user.pk}])
    else:  # SQLite has no JSON containment: walk each game's list of players
        table = Game._meta.db_table
        games = games.filter(
            pk__in=RawSQL(
                f"SELECT g.id FROM {table} g, json_each(g.players) p "
                "WHERE json_extract(p.value, '$.user') = %s",
                (user.pk,),
            )
        )
    return games.order_by("-finished_at", "-id")


def _unit(game: Game) -> str:
    return str(
        {
            "chips": _("фишки"),
            "points": _("очки"),
            "coins": _("монеты"),
            "units": _("единицы"),
        }[game.table.variant_spec.currency]
    )


def _row(game: Game, user: Any) -> dict[str, Any]:
    seat = viewer_seat(game, user)
    deltas = (game.result or {}).get("deltas") or {}
    delta = deltas.get(seat) if seat else None
    return {
        "game": game,
        "variant": game.table.variant_spec.name,
        "delta": delta,
        "delta_text": signed(delta) if isinstance(delta, (int, float)) else "—",
        "unit": _unit(game),
        "voided": game.status == Game.Status.VOIDED,
    }


@login_required
def history_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(games_played_by(request.user), GAMES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    rows = [_row(game, request.user) for game in page]
    return render(request, "history/list.html", {"page": page, "rows": rows})


def _game_for(request: HttpRequest, game_id: int) -> tuple[Game, str | None]:
    """The game and the user's seat in it; 404 unless the user played it (or is staff)."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    seat = viewer_seat(game, request.user)
    if seat is None and not request.user.is_staff:
        raise Http404("no such game among yours")
    return game, seat


@login_required
def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    game, seat = _game_for(request, game_id)
    over = not game.is_playing
    context: dict[str, Any] = {
        "game": game,
        "over": over,
        "variant": game.table.variant_spec.name,
        "seat": seat,
        "row": _row(game, request.user) if over else None,
        # Only what a record of a game in play shows: the commitment and its context.
        "context": {"table": game.table_id, "shoe": game.number, "variant": game.variant},
    }
    if over:
        context["client_seeds"] = list(game.client_seeds)
    return render(request, "history/replay.html", context)


@login_required
def game_replay_data(request: HttpRequest, game_id: int) -> JsonResponse:
    """The replay's steps as this user saw them and the draws for «Проверить»; for a game
    in play only its status and commitment (its seed is secret until it is over)."""
    game, seat = _game_for(request, game_id)
    if game.is_playing:
        return JsonResponse({"game": game.pk, "status": game.status, "commitment": game.commitment})
    data = replay(game, seat)
    data["status"] = game.status
    data["unit"] = _unit(game)
    return JsonResponse(data, json_dumps_params={"ensure_ascii": False})
