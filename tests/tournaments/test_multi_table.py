"""Multi-table `banker36` through the real services: rounds of tables of up to four, each
table's one game with the event's stacks giving placement points, the leaders seated
together in later rounds, the final table of the four leaders, and the places paid."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.services import chips_in_circulation, escrow_account
from play.models import Game
from tests.play.live_helpers import play_game_randomly, play_step, playing
from tests.tournaments.helpers import make_tournament
from tournaments.models import Entry, RoundSeat, Tournament
from tournaments.multitable import placement_points
from tournaments.services import (
    entry_register,
    tournament_registration_open,
    tournament_start,
    tournaments_advance,
)
from tournaments.standings import standings_of

pytestmark = pytest.mark.django_db(transaction=True)


def a_multi_table(make_user: Any, players: int, rounds: int) -> tuple[Tournament, list[Any]]:
    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant="banker36",
            format=Tournament.Format.MULTI_TABLE,
            max_entrants=16,
            rounds=rounds,
            buy_in=100,
            starting_stack=100,
            stake=10,
            starts_at=timezone.now(),
        )
    )
    users = [make_user(f"mt{i}") for i in range(players)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    return tournament_start(tournament=tournament), users


def round_tables(tournament: Tournament, number: int) -> dict[int, list[int]]:
    tables: dict[int, list[int]] = {}
    for seat in RoundSeat.objects.filter(entry__tournament=tournament, round=number):
        tables.setdefault(seat.table_id, []).append(seat.entry_id)
    return tables


def play_the_round(tournament: Tournament, users: list[Any], rng: random.Random) -> None:
    by_pk = {u.pk: u for u in users}
    tournament.refresh_from_db()
    for table_id in round_tables(tournament, tournament.round):
        table = Game.objects.filter(table_id=table_id).first().table
        if playing(table) is not None:
            play_game_randomly(table, by_pk, rng)


@pytest.mark.slow
def test_a_multi_table_event_plays_its_rounds_and_final_table_and_pays_by_place(make_user):
    tournament, users = a_multi_table(make_user, players=6, rounds=3)
    circulating = chips_in_circulation()
    assert tournament.round == 1
    assert sorted(map(len, round_tables(tournament, 1).values())) == [3, 3]
    rng = random.Random(21)
    play_the_round(tournament, users, rng)
    tournament.refresh_from_db()
    assert tournament.round == 2  # every table of round 1 over: round 2 seated at once
    # Each table's points are its placement points by final stack.
    for table_id, members in round_tables(tournament, 1).items():
        seats = RoundSeat.objects.filter(table_id=table_id)
        stacks = {s.entry_id: s.stack for s in seats}
        assert {s.entry_id: s.points for s in seats} == placement_points(stacks)
        assert sum(stacks.values()) == 100 * len(members)  # chips conserved at the table
    leader = max(Entry.objects.filter(tournament=tournament), key=lambda e: (e.points, -e.pk))
    first_table = min(round_tables(tournament, 2).items())[1]
    assert leader.pk in first_table  # the leaders sit together, at the first table
    standing = standings_of(tournament.pk)
    assert [s.points for s in standing.entries] == sorted(
        (s.points for s in standing.entries), reverse=True
    )
    play_the_round(tournament, users, rng)
    tournament.refresh_from_db()
    assert tournament.round == 3
    final = round_tables(tournament, 3)
    assert len(final) == 1 and len(next(iter(final.values()))) == 4  # the final table
    play_the_round(tournament, users, rng)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(tournament.entries.order_by("place"))
    at_final = set(next(iter(final.values())))
    # The final table's four take places 1-4; the rest follow by points.
    assert {e.pk for e in entries if e.place <= 4} == at_final
    for entry in entries:
        assert entry.points == sum(
            RoundSeat.objects.filter(entry=entry).values_list("points", flat=True)
        )
    assert (
        sum(e.prize for e in entries) == 600 and escrow_account(tournament.escrow_code).balance == 0
    )
    assert chips_in_circulation() == circulating
    assert not Game.objects.filter(
        table__in=RoundSeat.objects.values("table"), status="playing"
    ).exists()


def test_at_its_window_end_a_round_in_play_counts_its_settled_deals(make_user):
    tournament, users = a_multi_table(make_user, players=5, rounds=4)
    tables = round_tables(tournament, 1)
    assert sorted(map(len, tables.values())) == [2, 3]
    game = Game.objects.filter(table_id=min(tables)).get()
    by_pk = {u.pk: u for u in users}
    rng = random.Random(2)
    while playing(game.table) is not None and not any(game.state["deltas"].values()):
        play_step(game.table, by_pk, rng, game.number)
        game.refresh_from_db()
    tournaments_advance(now=tournament.ends_at + datetime.timedelta(seconds=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    seats = list(RoundSeat.objects.filter(entry__tournament=tournament))
    assert all(s.points is not None for s in seats) and len(seats) == 5
    assert sum(e.prize for e in tournament.entries.all()) == 500
    assert escrow_account(tournament.escrow_code).balance == 0


def test_with_one_entrant_at_the_start_it_is_cancelled(make_user):
    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant="banker36",
            format=Tournament.Format.MULTI_TABLE,
            max_entrants=8,
            min_entrants=2,
            rounds=2,
            starts_at=timezone.now(),
        )
    )
    entry_register(tournament_id=tournament.pk, player=make_user("solo"), now=timezone.now())
    assert tournament_start(tournament=tournament).status == Tournament.Status.CANCELLED


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"variant": "salon"}, "variant"),
        ({"max_entrants": 4}, "max_entrants"),
        ({"max_entrants": 65}, "max_entrants"),
        ({"rounds": 1}, "rounds"),
        ({"late_registration_minutes": 3}, "late_registration_minutes"),
        ({"starting_stack": 5, "stake": 10}, "starting_stack"),
    ],
)
def test_clean_refuses_a_multi_table_event_that_cannot_be_played(fields, field):
    now = timezone.now()
    values: dict[str, Any] = {
        "name": "Проверка",
        "variant": "banker36",
        "format": Tournament.Format.MULTI_TABLE,
        "registration_opens_at": now,
        "starts_at": now + datetime.timedelta(hours=1),
        "ends_at": now + datetime.timedelta(hours=3),
        "max_entrants": 16,
        "min_entrants": 2,
        "rounds": 3,
    }
    Tournament(**values).clean()
    with pytest.raises(ValidationError) as refused:
        Tournament(**{**values, **fields}).clean()
    assert field in refused.value.message_dict


def test_a_round_whose_end_went_unheard_is_followed_by_the_clock(make_user, monkeypatch):
    from tournaments import receivers

    monkeypatch.setattr(receivers, "tournament_round_progress", lambda **kwargs: None)
    tournament, users = a_multi_table(make_user, players=5, rounds=2)
    play_the_round(tournament, users, random.Random(8))
    assert RoundSeat.objects.filter(entry__tournament=tournament, points=None).count() == 5
    tournaments_advance(now=timezone.now())
    tournament.refresh_from_db()
    assert tournament.round == 2  # settled, and the final table dealt
    assert not RoundSeat.objects.filter(entry__tournament=tournament, round=1, points=None)
    assert len(round_tables(tournament, 2)) == 1


@pytest.mark.slow
def test_with_four_tables_no_two_players_of_a_round_meet_in_the_next(make_user):
    tournament, users = a_multi_table(make_user, players=16, rounds=3)
    first = round_tables(tournament, 1)
    assert sorted(map(len, first.values())) == [4, 4, 4, 4]
    play_the_round(tournament, users, random.Random(9))
    tournament.refresh_from_db()
    assert tournament.round == 2
    for members in round_tables(tournament, 2).values():
        for before in first.values():
            assert len(set(members) & set(before)) <= 1
