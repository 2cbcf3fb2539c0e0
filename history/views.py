"""Hand history pages: a player's past games, the step-by-step replay of one and its
«Проверить» view (the shuffle re-derived in the browser, docs/fairness.md)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from contract.http import Replay
from contract.table_out import HandRecord
from history.replays import replay, viewer_seat
from history.scenes import signed
from lib.bodies import json_answer, refusal
from play.db.selectors import games_played_by
from play.models import Game
from play.services.records import public_record, record_sealed_message

GAMES_PER_PAGE = 20


def _unit(game: Game) -> str:
    if game.table.stacks is not None:
        # A sit-and-go's table: its chips are the event's counters, not the wallet's.
        return str(_("турнирные фишки"))
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
    over = game.seed_revealed  # a sealed tournament shoe shows as much as a game in play
    context: dict[str, Any] = {
        "game": game,
        "over": over,
        "variant": game.table.variant_spec.name,
        "seat": seat,
        "row": _row(game, request.user) if over else None,
        # Only what a record of a game in play shows: the commitment and its context.
        "context": game.context,
    }
    if over:
        context["client_seeds"] = list(game.client_seeds)
    return render(request, "history/replay.html", context)


@login_required
def game_replay_data(request: HttpRequest, game_id: int) -> HttpResponse:
    """The replay's steps as this user saw them and the draws for «Проверить»; for a game
    in play only its status and commitment (its seed is secret until it is over)."""
    game, seat = _game_for(request, game_id)
    if not game.seed_revealed:  # in play, or a tournament's shoe still being dealt
        return json_answer(Replay(game=game.pk, status=game.status, commitment=game.commitment))  # type: ignore[arg-type]
    return json_answer(Replay(**replay(game, seat), status=game.status, unit=_unit(game)))


@login_required
def game_record_download(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game's hand record as a JSON file, for the players who were in it (and admins).
    While the game is in play its seed is withheld (docs/protocol.md)."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    user = request.user
    if not (user.is_staff or any(p["user"] == user.pk for p in game.players)):
        raise Http404("no such game among yours")
    if game.sealed:
        return refusal("record_sealed", record_sealed_message(), 409)
    response = json_answer(HandRecord(**public_record(game)))
    name = f"twentyone-{game.variant}-table{game.table_id}-game{game.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
