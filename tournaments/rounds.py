"""Multi-table `banker36` (docs/tournaments.md, «Multi-table»): rounds of tables of up to
four, each table a stacks table whose one game passes the bank once round it; its final
stacks give placement points, and the points seat the next round (the leaders together,
last round's tablemates apart: tournaments/multitable.py). The last round is the final
table of the four leaders.

Every function here expects its caller to hold the tournament's row lock (services.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from django.utils import timezone
from django.utils.translation import gettext as _

from play.db.locks import lock_table
from play.models import Game
from play.services import closing
from tables.models import Table
from tournaments.heats import played_any
from tournaments.models import Entry, RoundSeat, Tournament
from tournaments.multitable import MOST_AT_A_TABLE, placement_points, seat_round
from tournaments.sitgo import stacks_table_open
from tournaments.stacks import final_stacks


def plays_multi_table(tournament: Tournament) -> bool:
    return tournament.format == Tournament.Format.MULTI_TABLE


def standings_order(tournament: Tournament) -> list[Entry]:
    """The registered entrants by points, then by registration."""
    return list(
        tournament.entries.select_related("player")
        .filter(status=Entry.Status.REGISTERED)
        .order_by("-points", "registered_at", "pk")
    )


def _tables_of(tournament: Tournament, number: int) -> dict[int, list[RoundSeat]]:
    seats: dict[int, list[RoundSeat]] = defaultdict(list)
    for seat in RoundSeat.objects.filter(entry__tournament=tournament, round=number).order_by("pk"):
        seats[seat.table_id].append(seat)
    return seats


def is_final(tournament: Tournament, number: int) -> bool:
    return number == tournament.rounds


def round_open(tournament: Tournament, refuse: Callable[[Entry, str], None]) -> int:
    """Seat the next round and deal its tables; the number of tables dealt (0: fewer than
    two could play, and the caller ends the event)."""
    number = tournament.round + 1
    order = standings_order(tournament)
    if is_final(tournament, number):
        order = order[:MOST_AT_A_TABLE]  # the final table: the leaders
    tournament.round = number
    tournament.save(update_fields=["round"])
    if len(order) < 2:
        return 0
    before = _tables_of(tournament, number - 1).values()
    previous = [[s.entry_id for s in seats] for seats in before]
    by_pk = {entry.pk: entry for entry in order}
    dealt = 0
    for index, group in enumerate(seat_round([e.pk for e in order], previous), start=1):
        entries = [by_pk[pk] for pk in group]
        if is_final(tournament, number):
            name = _("%(event)s · финальный стол") % {"event": tournament.name[:60]}
        else:
            name = _("%(event)s · раунд %(round)d, стол %(table)d") % {
                "event": tournament.name[:50],
                "round": number,
                "table": index,
            }
        table = stacks_table_open(tournament, entries, name=name, banks_each=1, refuse=refuse)
        if table is None:
            continue  # fewer than two could sit: this table's players sit the round out
        seated = set(table.seats.values_list("player_id", flat=True))
        RoundSeat.objects.bulk_create(
            RoundSeat(entry=e, round=number, table=table) for e in entries if e.player_id in seated
        )
        dealt += 1
    return dealt


def _settle(tournament: Tournament, table: Table, seats: list[RoundSeat]) -> None:
    """A round's table is over (or the event is, which voids its game): the table closed,
    each seat's final stack and placement points, added to the entry's."""
    table = lock_table(table.pk)
    if table.is_open:
        closing.table_close(table=table)  # voids a game in play: settled deals count
    game = Game.objects.filter(table=table).order_by("-number").first()
    stacks = final_stacks(game)
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=[s.entry_id for s in seats])}
    final = {
        s.entry_id: stacks.get(entries[s.entry_id].player_id, tournament.starting_stack)
        for s in seats
    }
    points = placement_points(final) if len(final) > 1 else dict.fromkeys(final, 0)
    now = timezone.now()
    for seat in seats:
        entry = entries[seat.entry_id]
        seat.stack, seat.points = final[entry.pk], points[entry.pk]
        seat.save(update_fields=["stack", "points"])
        absent = not played_any(game, entry)
        entry.no_show = absent if seat.round == 1 else entry.no_show and absent
        entry.points += seat.points
        entry.stack = seat.stack
        entry.heat_over = True
        entry.heat_ended_at = now
        entry.save(update_fields=["points", "stack", "heat_over", "heat_ended_at", "no_show"])


def settle_played(tournament: Tournament) -> int:
    """Settle the round's tables whose game is over; how many were (run again: none)."""
    settled = 0
    for table_id, seats in _tables_of(tournament, tournament.round).items():
        if all(s.points is not None for s in seats):
            continue
        game = Game.objects.filter(table_id=table_id).order_by("-number").first()
        if game is not None and game.status != Game.Status.PLAYING:
            _settle(tournament, seats[0].table, seats)
            settled += 1
    return settled


def round_over(tournament: Tournament) -> bool:
    return not RoundSeat.objects.filter(
        entry__tournament=tournament, round=tournament.round, points=None
    ).exists()


def rounds_close(tournament: Tournament) -> None:
    """At the event's end: the round's tables still in play are closed (their games
    voided), their settled deals counted for points as any table's end."""
    for seats in _tables_of(tournament, tournament.round).values():
        if any(s.points is None for s in seats):
            _settle(tournament, seats[0].table, seats)


def final_seat(entry: Entry, tournament: Tournament) -> RoundSeat | None:
    return RoundSeat.objects.filter(entry=entry, round=tournament.rounds).first()


def ranking_key(tournament: Tournament) -> Callable[[Entry], tuple[int, ...]]:
    """Higher first: the final table's players by their stack there, then everyone by
    points (an event ended before its final table: by points alone)."""
    finals = {
        s.entry_id: s.stack or 0
        for s in RoundSeat.objects.filter(entry__tournament=tournament, round=tournament.rounds)
    }

    def key(entry: Entry) -> tuple[int, ...]:
        at_final = entry.pk in finals
        return (int(at_final), finals.get(entry.pk, 0), entry.points)

    return key


def multi_table_of(table_id: int) -> Tournament | None:
    """The running multi-table event whose round table this is, with a seat not settled."""
    seat = (
        RoundSeat.objects.select_related("entry__tournament")
        .filter(
            table_id=table_id,
            points=None,
            entry__tournament__format=Tournament.Format.MULTI_TABLE,
            entry__tournament__status=Tournament.Status.RUNNING,
        )
        .first()
    )
    return None if seat is None else seat.entry.tournament
