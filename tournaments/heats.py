"""Duplicate heats (docs/tournaments.md, «Duplicate heats»): every entrant plays the event's
one shoe, at a private table of their own, with the normal decision clock — a no-show's
decisions are the clock's, as at any table.

Each heat table carries `duplicate` (tables.models.Table): live play deals its game at
once from the event's server seed, committed when registration opened, in the event's
context and with no client seeds, so every entrant gets the same cards in the same order;
the game stays sealed (no seed, no record) until the event ends. The entry's stack is the
starting stack plus what the heat's game won or lost for its seat (`deltas`): ten
tournament chips to a blackjack unit, one to a classic point or a solo coin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from games import engine
from play.db.locks import lock_table, playing_game
from play.models import Game
from play.services import closing, moves, seating
from play.services.errors import PlayError, SeatError
from tables import services as table_services
from tables.models import Table
from tables.variants import VARIANTS
from tournaments.models import HEAT_VARIANTS as HEAT_VARIANTS  # the services read it here
from tournaments.models import Entry, Tournament
from tournaments.signals import table_ready_on_commit
from tournaments.standings import changed_on_commit


def duplicate_context_table(tournament: Tournament) -> int:
    """The fairness context's `table` of a tournament's duplicate shoe: minus its id, which
    no table has (docs/fairness.md, «Tournaments»)."""
    return -tournament.pk


def event_page(tournament: Tournament) -> dict[str, str]:
    """The event's page as an event's table names the page it belongs to
    (Table.parent_path, parent_label): its table page leads back there."""
    return {
        "parent_path": reverse("tournament", args=[tournament.pk]),
        "parent_label": tournament.name,
    }


def heat_open(*, tournament: Tournament, entry: Entry) -> Table:
    """The entrant's table: opened, the entrant seated, the heat's game dealt."""
    # A classic heat is one match of the event's rounds (clean() keeps them a match length).
    classic = bool(VARIANTS[tournament.variant].match_lengths)
    match = {"match_length": tournament.rounds} if classic else {}
    with transaction.atomic():
        table = table_services.table_create(
            variant=tournament.variant,
            **match,
            name=_("%(event)s · заезд %(player)s")
            % {"event": tournament.name[:40], "player": entry.player.username[:30]},
            private=True,
            seat_count=1,
            **event_page(tournament),
            duplicate={
                "server_seed": tournament.server_seed,
                "context_table": duplicate_context_table(tournament),
                "rounds": tournament.rounds,
            },
        )
        seating.seat_take(table=table, player=entry.player, invite=table.invite_code)
        entry.table = table
        entry.save(update_fields=["table"])
        table_ready_on_commit(tournament=tournament, entry=entry, table=table)
        if playing_game(table) is None:  # a solo table deals as its player sits down
            moves.game_start(table=table, by=entry.player)
    return table


# Tournament chips per unit of the heat's result (`deltas`): a blackjack natural pays 1.5
# units, so ten make every result whole; classic's points (±100, +150) and solo's coins
# are whole already.
CHIPS_PER_UNIT = {"blackjack": 10, "classic": 1, "solo": 1}


def heat_score(game: Game | None) -> int:
    """What the heat's game won or lost for its one seat so far, in tournament chips (0
    before a deal). Only the seat's own delta: solo's also lists the bank's, its opposite."""
    if game is None:
        return 0
    deltas: dict[str, Any] = (game.result or engine.result(game.state))["deltas"]
    seat = game.players[0]["id"]
    return round(deltas.get(seat, 0) * CHIPS_PER_UNIT[game.variant])


def _heat_over(entry: Entry, tournament: Tournament, game: Game | None) -> None:
    """The entry's heat is over: its stack, and whether the entrant ever played it."""
    entry.stack = tournament.starting_stack + heat_score(game)
    entry.heat_over = True
    entry.heat_ended_at = timezone.now()
    entry.no_show = not played_any(game, entry)
    entry.save(update_fields=["stack", "heat_over", "heat_ended_at", "no_show"])


def played_any(game: Game | None, entry: Entry) -> bool:
    """Whether the entrant made a decision of their own in the heat's game (not the
    clock's `timeout`)."""
    if game is None:
        return False
    seat = next((p["id"] for p in game.players if p.get("user") == entry.player_id), None)
    return any(a.get("seat") == seat and a.get("action") != "timeout" for a in game.actions)


def heat_ended(*, game_id: int) -> Tournament | None:
    """A heat's game ended: the entry's stack is its result. Its tournament, returned when
    every heat is over and no one may still register (the caller ends it then). Run
    again, it changes nothing."""
    game = Game.objects.select_related("table").filter(pk=game_id).first()
    if game is None or game.table.duplicate is None:
        return None
    entry = Entry.objects.select_related("tournament").filter(table_id=game.table_id).first()
    if entry is None:
        return None
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=entry.tournament_id)
        entry = Entry.objects.get(pk=entry.pk)
        if tournament.status != Tournament.Status.RUNNING or entry.heat_over:
            return None
        _heat_over(entry, tournament, game)
        changed_on_commit(tournament.pk)
    if timezone.now() < tournament.registration_closes_at:
        return None  # a late entrant may still come
    waiting = tournament.entries.filter(status=Entry.Status.REGISTERED, heat_over=False)
    return None if waiting.exists() else tournament


def heats_close(tournament: Tournament) -> None:
    """At the event's end: a heat still in play counts what it has won so far; every heat
    table's games are unsealed (their seeds and records published) and the tables
    closed."""
    for entry in tournament.entries.select_related("table").exclude(table=None):
        assert entry.table_id is not None
        # Locked before its game is read: a move settling a round cannot commit between
        # the score and the close.
        table = lock_table(entry.table_id)
        if not entry.heat_over and entry.status == Entry.Status.REGISTERED:
            game = Game.objects.filter(table=table).order_by("-number").first()
            _heat_over(entry, tournament, game)
        Game.objects.filter(table=table).update(sealed=False)
        if table.is_open:
            closing.table_close(table=table)


def heats_open(tournament: Tournament, refuse: Callable[[Entry, str], None]) -> None:
    """At the start: every registered entrant's heat. An entrant live play will not seat
    (banned since they registered, say) is handed to `refuse` with the reason, and the
    others' heats open all the same."""
    for entry in tournament.entries.select_related("player").filter(
        status=Entry.Status.REGISTERED, table=None
    ):
        try:
            heat_open(tournament=tournament, entry=entry)
        except (PlayError, SeatError) as error:
            refuse(entry, str(getattr(error, "message", error)))
