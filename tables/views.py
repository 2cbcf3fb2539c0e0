from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from tables.models import Game
from tables.selectors import lobby_tables, table_stakes_label
from tables.services import public_record
from tables.variants import VARIANTS


def lobby(request: HttpRequest) -> HttpResponse:
    tables = [(t, table_stakes_label(t)) for t in lobby_tables()]
    return render(request, "tables/lobby.html", {"tables": tables, "variants": VARIANTS.values()})


@login_required
def game_record_download(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game's hand record as a JSON file, for the players who were in it (and admins).
    While the game is in play its seed is withheld (docs/protocol.md)."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    user = request.user
    if not (user.is_staff or any(p["user"] == user.pk for p in game.players)):
        raise Http404("no such game among yours")
    response = JsonResponse(public_record(game), json_dumps_params={"ensure_ascii": False})
    name = f"twentyone-{game.variant}-table{game.table_id}-game{game.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
