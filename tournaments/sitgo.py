"""Sit-and-go (docs/tournaments.md, «Sit-and-go»): the entrants of a `banker36` or `salon`
event play one game at one private table, each with the event's starting stack instead of
wallet chips, until every seat has held the bank `rounds` times (or nobody else can play).

The table carries `stacks` (tables.models.Table): live play deals its one game with each
seat's stack as its chips and moves none of them through the ledger. When the game ends,
each entry's stack is its final stack there: the chips it was dealt plus its `deltas`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from play.db.locks import lock_table
from play.models import Game
from play.services import closing, moves, seating
from play.services.errors import PlayError, SeatError
from tables import services as table_services
from tables.models import Table
from tournaments.heats import event_page, played_any
from tournaments.models import SIT_AND_GO_DEFAULT_STAKE, Entry, Tournament
from tournaments.signals import table_ready_on_commit
from tournaments.stacks import final_stacks, the_table

# salon's maximum bet at a sit-and-go, in minimum bets (the variant's table default).
SALON_MAX_BETS = 10


def _table_fields(tournament: Tournament, entries: list[Entry], banks_each: int) -> dict[str, Any]:
    stake = tournament.stake or SIT_AND_GO_DEFAULT_STAKE
    fields: dict[str, Any] = {"variant": tournament.variant, "seat_count": len(entries)}
    if tournament.variant == "banker36":
        fields.update(stake=stake, entry_limit=stake)
    else:
        fields.update(min_bet=stake, max_bet=SALON_MAX_BETS * stake, entry_limit=stake)
    fields["stacks"] = {
        "chips": {str(e.player_id): tournament.starting_stack for e in entries},
        "banks": len(entries) * banks_each,
    }
    return fields


def stacks_table_open(
    tournament: Tournament,
    entries: list[Entry],
    *,
    name: str,
    banks_each: int,
    refuse: Callable[[Entry, str], None],
) -> Table | None:
    """A private stacks table for `entries` (the caller holds the tournament's lock), each
    seated with the starting stack, its one game begun: `banks_each` banks for every seat.
    An entrant live play will not seat (banned since registering) is handed to `refuse`
    and the others play, the bank going round them alone; with fewer than two seated,
    nothing is dealt, the table is closed and None returned."""
    table = table_services.table_create(
        name=name,
        private=True,
        **event_page(tournament),
        **_table_fields(tournament, entries, banks_each),
    )
    seated: list[Entry] = []
    for entry in entries:
        try:
            seating.seat_take(table=table, player=entry.player, invite=table.invite_code)
        except (PlayError, SeatError) as error:
            refuse(entry, str(getattr(error, "message", error)))
            continue
        seated.append(entry)
    table = lock_table(table.pk)
    if len(seated) < 2:
        closing.table_close(table=table)
        return None
    if len(seated) < len(entries):
        table.stacks = _table_fields(tournament, seated, banks_each)["stacks"]
        table.save(update_fields=["stacks"])
    Entry.objects.filter(pk__in=[e.pk for e in seated]).update(table=table, heat_over=False)
    for entry in seated:  # «Ваш стол готов» before the game's first decision (push)
        table_ready_on_commit(tournament=tournament, entry=entry, table=table)
    moves.stacks_game_start(table=table)
    return table


def sit_and_go_open(tournament: Tournament, refuse: Callable[[Entry, str], None]) -> Table | None:
    """At the start (the caller holds the tournament's lock): the table, every registered
    entrant seated with the starting stack, its one game begun (`rounds` banks for each
    seat). None when fewer than two could be seated (the caller cancels)."""
    entries = list(
        tournament.entries.select_related("player")
        .filter(status=Entry.Status.REGISTERED)
        .order_by("registered_at", "pk")
    )
    return stacks_table_open(
        tournament,
        entries,
        name=_("%(event)s · стол") % {"event": tournament.name[:70]},
        banks_each=tournament.rounds,
        refuse=refuse,
    )


def sit_and_go_close(tournament: Tournament) -> None:
    """At the event's end (the caller holds the tournament's lock): a game still in play
    is voided — its settled results stand, what was in play goes back — and each entry's
    stack is the game's final stack; the table is closed."""
    table = the_table(tournament)
    if table is None:
        return
    # Locked before its game is read: a move settling a deal cannot commit in between.
    table = lock_table(table.pk)
    if table.is_open:
        closing.table_close(table=table)  # voids a game in play (play.services.lifecycle)
    game = Game.objects.filter(table=table).order_by("-number").first()
    stacks = final_stacks(game)
    now = timezone.now()
    for entry in tournament.entries.filter(table=table, status=Entry.Status.REGISTERED):
        entry.stack = stacks.get(entry.player_id, tournament.starting_stack)
        entry.heat_over = True
        entry.heat_ended_at = now
        entry.no_show = not played_any(game, entry)
        entry.save(update_fields=["stack", "heat_over", "heat_ended_at", "no_show"])


def sit_and_go_game_ended(*, game_id: int) -> Tournament | None:
    """A game ended: the running sit-and-go it was the game of (the caller finishes it),
    else None."""
    game = Game.objects.filter(pk=game_id).only("table_id").first()
    if game is None:
        return None
    entry = (
        Entry.objects.select_related("tournament")
        .filter(
            table_id=game.table_id,
            tournament__format=Tournament.Format.SIT_AND_GO,
            tournament__status=Tournament.Status.RUNNING,
        )
        .first()
    )
    return None if entry is None else entry.tournament


def sit_and_go_of_table(table_id: int) -> int | None:
    """The running sit-and-go played at the table, by id (None: no such event)."""
    tournament_id: int | None = (
        Entry.objects.filter(
            table_id=table_id,
            tournament__format=Tournament.Format.SIT_AND_GO,
            tournament__status=Tournament.Status.RUNNING,
        )
        .values_list("tournament_id", flat=True)
        .first()
    )
    return tournament_id


def games_over(tournament: Tournament) -> bool:
    """Whether the sit-and-go's game is over (the clock finishes the event then, should
    the end of the game not have)."""
    table = the_table(tournament)
    if table is None:
        return False
    return Game.objects.filter(table=table).exclude(status=Game.Status.PLAYING).exists()
