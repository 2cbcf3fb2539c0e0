"""The tournaments page and each event's page, with registration and withdrawal."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from play.models import Game
from tables.variants import VARIANTS, get_variant
from tournaments.compare import rounds_side_by_side
from tournaments.models import SIT_AND_GO_DEFAULT_STAKE, Entry, Tournament
from tournaments.services import (
    TournamentRefused,
    entry_register,
    entry_withdraw,
    prize_pool,
    registration_open,
)
from tournaments.sitgo import SALON_MAX_BETS
from tournaments.stacks import plays_sit_and_go, with_live_stacks
from tournaments.standings import place_prizes_now

FINISHED_SHOWN = 20


def tournament_list(request: HttpRequest) -> HttpResponse:
    variant = request.GET.get("variant", "")
    events = Tournament.objects.all()
    if variant in VARIANTS:
        events = events.filter(variant=variant)
    else:
        variant = ""
    upcoming = events.filter(
        status__in=[Tournament.Status.SCHEDULED, Tournament.Status.REGISTERING]
    )
    running = events.filter(status=Tournament.Status.RUNNING)
    finished = events.filter(
        status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
    ).order_by("-starts_at")[:FINISHED_SHOWN]
    return render(
        request,
        "tournaments/list.html",
        {
            "upcoming": upcoming,
            "running": running,
            "finished": finished,
            "variant": variant,
            "variants": [get_variant(key) for key in VARIANTS],
        },
    )


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    entries = list(
        tournament.entries.select_related("player")
        .filter(status__in=[Entry.Status.REGISTERED, Entry.Status.FINISHED])
        .order_by("place", "-points", "-stack", "registered_at", "pk")
    )
    if tournament.status == Tournament.Status.RUNNING and plays_sit_and_go(tournament):
        with_live_stacks(tournament, entries)  # as the socket's standings show them
        entries.sort(key=lambda e: -(e.stack or 0))  # stable: registration order kept
    mine = None
    if request.user.is_authenticated:
        mine = next((e for e in entries if e.player_id == request.user.pk), None)
    over = tournament.status == Tournament.Status.FINISHED
    pool = prize_pool(tournament) if tournament.pk else 0
    return render(
        request,
        "tournaments/event.html",
        {
            "tournament": tournament,
            "variant": get_variant(tournament.variant),
            "entries": entries,
            "mine": mine,
            "over": over,
            "started": tournament.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED),
            "pool": pool,
            "prizes": place_prizes_now(tournament, pool, len(entries)),
            "can_register": mine is None and registration_open(tournament, timezone.now()),
            "can_compare": request.user.is_staff or mine is not None,
            "can_withdraw": mine is not None and tournament.status == Tournament.Status.REGISTERING,
            # A sit-and-go's table: banker36's stake, salon's bets (tournaments.sitgo).
            "table_stake": tournament.stake or SIT_AND_GO_DEFAULT_STAKE,
            "table_max_bet": SALON_MAX_BETS * (tournament.stake or SIT_AND_GO_DEFAULT_STAKE),
        },
    )


def _back(tournament_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("tournament", args=[tournament_id]))


@login_required
@require_POST
def tournament_register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    get_object_or_404(Tournament, pk=tournament_id)
    try:
        entry_register(tournament_id=tournament_id, player=request.user, now=timezone.now())
    except TournamentRefused as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, _("Вы зарегистрированы."))
    return _back(tournament_id)


@login_required
@require_POST
def tournament_withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    get_object_or_404(Tournament, pk=tournament_id)
    try:
        entry_withdraw(tournament_id=tournament_id, player=request.user)
    except TournamentRefused as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, _("Вы сняты с турнира, взнос возвращён."))
    return _back(tournament_id)


@login_required
def tournament_compare(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Two entrants' heats side by side, round by round, once the event is over: for its
    entrants and staff (the heats are their games)."""
    tournament = get_object_or_404(
        Tournament,
        pk=tournament_id,
        status=Tournament.Status.FINISHED,
        format=Tournament.Format.DUPLICATE,  # a sit-and-go's entrants shared one game
    )
    entries = list(
        tournament.entries.select_related("player", "table")
        .filter(status=Entry.Status.FINISHED)
        .exclude(table=None)
        .order_by("place", "registered_at", "pk")
    )
    mine = next((e for e in entries if e.player_id == request.user.pk), None)
    if not entries or (mine is None and not request.user.is_staff):
        raise Http404("the heats are shown to the event's entrants")
    by_name = {e.player.username: e for e in entries}
    first = by_name.get(request.GET.get("a", "")) or entries[0]
    default_second = mine if mine is not None and mine != first else None
    second = by_name.get(request.GET.get("b", "")) or default_second
    if second is None or second == first:
        second = next((e for e in entries if e != first), first)
    games = {
        e.pk: Game.objects.filter(table=e.table).order_by("number").first() for e in (first, second)
    }
    if any(game is None for game in games.values()):
        raise Http404("a heat without a game")
    return render(
        request,
        "tournaments/compare.html",
        {
            "tournament": tournament,
            "entries": entries,
            "first": first,
            "second": second,
            "rounds": rounds_side_by_side(games[first.pk], games[second.pk]),  # type: ignore[arg-type]
        },
    )
