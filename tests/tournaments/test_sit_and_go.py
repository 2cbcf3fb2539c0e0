"""Sit-and-go of `banker36` and `salon` through the real services: the event starts when
its seats are full, its entrants play one game at one table with the event's stacks
(never their wallets), and its end ranks them by final stack and pays the places."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import LedgerEntry
from accounts.services import chips_in_circulation, escrow_account, wallet_for
from games import fairness
from moderation.services import sanction_apply
from play.models import Game
from play.services import moves, seating
from play.services.errors import SeatError
from tests.play.live_helpers import play_game_randomly, playing
from tests.tournaments.helpers import make_tournament
from tests.verifier import verified
from tournaments.models import Entry, Tournament
from tournaments.services import (
    entry_register,
    tournament_finish,
    tournament_registration_open,
    tournaments_advance,
)
from tournaments.standings import standings_of

pytestmark = pytest.mark.django_db(transaction=True)


def a_sit_and_go(variant: str = "banker36", seats: int = 3, **fields: Any) -> Tournament:
    values: dict[str, Any] = {
        "variant": variant,
        "format": Tournament.Format.SIT_AND_GO,
        "max_entrants": seats,
        "rounds": 1,
        "buy_in": 100,
        "starting_stack": 200,
    }
    values.update(fields)
    return tournament_registration_open(tournament=make_tournament(**values))


def register(tournament: Tournament, user: Any) -> Entry:
    return entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())


def filled(make_user: Any, tournament: Tournament, names: list[str]) -> list[Any]:
    users = [make_user(name) for name in names]
    for user in users:
        register(tournament, user)
    tournament.refresh_from_db()
    return users


def table_of(tournament: Tournament) -> Any:
    entry = tournament.entries.exclude(table=None).select_related("table").first()
    assert entry is not None
    return entry.table


def wallet_moves(users: list[Any]) -> list[str]:
    """The reasons of every ledger entry touching these players' wallets."""
    wallets = [wallet_for(u).pk for u in users]
    touching = Q(source_id__in=wallets) | Q(destination_id__in=wallets)
    return sorted(LedgerEntry.objects.filter(touching).values_list("reason", flat=True))


def test_a_sit_and_go_starts_when_its_last_seat_is_taken(make_user):
    tournament = a_sit_and_go(seats=3)
    ann, bob = make_user("ann"), make_user("bob")
    register(tournament, ann)
    register(tournament, bob)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING  # a seat still empty
    register(tournament, make_user("cat"))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING  # long before its starts_at
    table = table_of(tournament)
    assert table.private and table.seats.count() == 3
    assert set(tournament.entries.values_list("table", flat=True)) == {table.pk}
    assert playing(table) is not None


def test_the_game_is_dealt_the_event_stacks_not_the_wallets(make_user):
    tournament = a_sit_and_go(seats=2, starting_stack=300, stake=20)
    users = filled(make_user, tournament, ["ann", "bob"])
    game = playing(table_of(tournament))
    assert {p["user"]: p["chips"] for p in game.players} == {u.pk: 300 for u in users}
    # Two seats, one round: each holds the bank once; the table's stake is the event's.
    assert game.options["banks"] == 2 and game.options["stake"] == 20
    assert sorted(game.state["chips"].values()) in ([280, 300], [300, 300])


def test_playing_a_sit_and_go_moves_no_chip_of_a_wallet(make_user):
    tournament = a_sit_and_go(seats=3, rounds=2)
    users = filled(make_user, tournament, ["ann", "bob", "cat"])
    circulating = chips_in_circulation()
    balances = {u.pk: wallet_for(u).balance for u in users}
    before = wallet_moves(users)
    table = table_of(tournament)
    game = playing(table)
    # Play to the last duel but one: no stake, payout or escrow of a game on the ledger.
    for _ in range(6):
        if playing(table) is None:
            break
        _one_random_move(table, users, random.Random(len(before)))
    assert wallet_moves(users) == before
    assert {u.pk: wallet_for(u).balance for u in users} == balances
    assert not LedgerEntry.objects.filter(game=game).exists()
    assert chips_in_circulation() == circulating


def _one_random_move(table: Any, users: list[Any], rng: random.Random) -> None:
    from tests.play.live_helpers import play_step

    game = playing(table)
    assert game is not None
    play_step(table, {u.pk: u for u in users}, rng, game.number)


# Whole games played and verified (a few seconds each): `make test` runs them, the inner
# loop (`make test-fast`) leaves them out.
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["banker36", "salon"])
def test_the_game_end_ranks_by_final_stack_and_pays_the_places(make_user, variant):
    seats = 3
    tournament = a_sit_and_go(variant, seats=seats, starting_stack=200, stake=10)
    users = filled(make_user, tournament, ["ann", "bob", "cat"])
    circulating = chips_in_circulation()
    table = table_of(tournament)
    game = play_game_randomly(table, {u.pk: u for u in users}, random.Random(7), limit=5000)
    assert game.status == Game.Status.FINISHED
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(tournament.entries.order_by("place", "registered_at"))
    # Each entry's stack is its final stack at the table: chips conserved in the game.
    final = {p["user"]: p["chips"] + game.result["deltas"][p["id"]] for p in game.players}
    assert {e.player_id: e.stack for e in entries} == final
    assert sum(e.stack for e in entries) == seats * 200
    assert [e.stack for e in entries] == sorted((e.stack for e in entries), reverse=True)
    assert sum(e.prize for e in entries) == seats * 100
    assert escrow_account(tournament.escrow_code).balance == 0
    assert chips_in_circulation() == circulating
    table.refresh_from_db()
    assert not table.is_open and Game.objects.filter(table=table).count() == 1
    # Every seat held the bank `rounds` times, unless it could not put the bank up.
    if variant == "salon":
        assert game.state["shoe"]["shuffles"] <= seats
    else:
        assert game.state["banks_played"] <= seats
    # The history names the unit: the event's chips, not the wallet's.
    client = Client()
    client.force_login(users[0])
    row = client.get(reverse("history")).content.decode()
    row = row[row.index(f'data-game="{game.pk}"') :]
    assert "турнирные фишки" in row[: row.index("</tr>")]
    record = _record(game)
    code, output = verified(record)
    assert code == 0, output
    if variant == "salon":  # its deck is one cut shoe per bank: two cards swapped fail it
        deck = list(record["deck"])
        other = next(i for i in range(len(deck) - 2, 0, -1) if deck[i] != deck[-1])
        deck[-1], deck[other] = deck[other], deck[-1]
        assert fairness.deck_check({**record, "deck": deck})[1] is False


def _record(game: Game) -> dict[str, Any]:
    from play.services.records import public_record

    game.refresh_from_db()
    return public_record(game)


def test_no_second_game_is_dealt_and_nobody_else_may_sit(make_user):
    tournament = a_sit_and_go(seats=2)
    users = filled(make_user, tournament, ["ann", "bob"])
    table = table_of(tournament)
    play_game_randomly(table, {u.pk: u for u in users}, random.Random(3))
    table.refresh_from_db()
    assert table.next_game_at is None
    other = make_user("eve")
    running = a_sit_and_go(seats=2, name="Другой")
    filled(make_user, running, ["dan", "fay"])
    with pytest.raises(SeatError) as refused:
        seating.seat_take(table=table_of(running), player=other, invite=table.invite_code)
    assert refused.value.code == "invite_required"


def test_standings_show_the_live_stacks_of_the_game(make_user):
    tournament = a_sit_and_go(seats=2, starting_stack=200)
    users = filled(make_user, tournament, ["ann", "bob"])
    table = table_of(tournament)
    rng = random.Random(5)
    game = playing(table)
    while playing(table) is not None and not any(game.state["deltas"].values()):
        _one_random_move(table, users, rng)
        game.refresh_from_db()
    shown = {s.player: s.stack for s in standings_of(tournament.pk).entries}
    live = {p["user"]: p["chips"] + game.state["deltas"][p["id"]] for p in game.players}
    assert shown == {u.username: live[u.pk] for u in users}
    assert sum(shown.values()) == 400


def test_not_full_at_its_time_it_starts_with_those_registered_or_is_cancelled(make_user):
    now = timezone.now()
    short = a_sit_and_go(seats=4, min_entrants=3, starts_at=now + datetime.timedelta(seconds=1))
    few = a_sit_and_go(seats=4, min_entrants=2, starts_at=now + datetime.timedelta(seconds=1))
    ann, bob, cat, dan = (make_user(n) for n in ("ann", "bob", "cat", "dan"))
    for user in (ann, bob):
        register(short, user)
    for user in (cat, dan):
        register(few, user)
    tournaments_advance(now=now + datetime.timedelta(seconds=2))
    short.refresh_from_db()
    few.refresh_from_db()
    assert short.status == Tournament.Status.CANCELLED
    assert escrow_account(short.escrow_code).balance == 0
    assert wallet_for(ann).balance == wallet_for(cat).balance + 100  # ann refunded
    assert few.status == Tournament.Status.RUNNING
    game = playing(table_of(few))
    assert len(game.players) == 2 and game.options["banks"] == 2


def test_at_its_window_end_the_game_is_voided_and_settled_stacks_count(make_user):
    tournament = a_sit_and_go(seats=3, rounds=3)
    users = filled(make_user, tournament, ["ann", "bob", "cat"])
    table = table_of(tournament)
    rng = random.Random(11)
    game = playing(table)
    while not any(game.state["deltas"].values()):
        _one_random_move(table, users, rng)
        game.refresh_from_db()
    circulating = chips_in_circulation()
    tournaments_advance(now=tournament.ends_at + datetime.timedelta(seconds=1))
    tournament.refresh_from_db()
    game.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert game.status == Game.Status.VOIDED
    stacks = {e.player_id: e.stack for e in tournament.entries.all()}
    deltas = game.result["deltas"]
    assert stacks == {p["user"]: 200 + deltas[p["id"]] for p in game.players}
    assert sum(stacks.values()) == 600
    assert sum(e.prize for e in tournament.entries.all()) == 300
    assert chips_in_circulation() == circulating


def test_a_banned_entrant_is_refunded_at_the_start_and_the_others_play(make_user):
    tournament = a_sit_and_go(seats=3)
    ann, bob, cat = (make_user(n) for n in ("ann", "bob", "cat"))
    register(tournament, ann)
    register(tournament, bob)
    moderator = make_user("mod", is_staff=True)
    sanction_apply(
        kind="ban", player=bob, by=moderator, reason="тест", period=datetime.timedelta(days=1)
    )
    register(tournament, cat)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert Entry.objects.get(tournament=tournament, player=bob).status == Entry.Status.REFUNDED
    game = playing(table_of(tournament))
    assert sorted(p["user"] for p in game.players) == sorted([ann.pk, cat.pk])
    assert game.options["banks"] == 2


def test_a_cancelled_sit_and_go_in_play_refunds_everyone_and_closes_its_table(make_user):
    from tournaments.services import tournament_cancel

    tournament = a_sit_and_go(seats=2)
    users = filled(make_user, tournament, ["ann", "bob"])
    before = {u.pk: wallet_for(u).balance for u in users}
    tournament_cancel(tournament=tournament)
    table = table_of(tournament)
    table.refresh_from_db()
    assert not table.is_open
    assert {u.pk: wallet_for(u).balance for u in users} == {k: v + 100 for k, v in before.items()}
    assert escrow_account(tournament.escrow_code).balance == 0


def test_the_game_starts_by_the_owner_not_by_anyone_at_the_table(make_user):
    tournament = a_sit_and_go(seats=2)
    users = filled(make_user, tournament, ["ann", "bob"])
    table = table_of(tournament)
    play_game_randomly(table, {u.pk: u for u in users}, random.Random(4))
    with pytest.raises(Exception) as refused:
        moves.stacks_game_start(table=table)
    assert getattr(refused.value, "code", "") in ("table_closed", "cannot_start")
    tournament_finish(tournament=tournament)  # run again: nothing paid twice
    assert sum(e.prize for e in tournament.entries.all()) == 200


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"variant": "banker36", "max_entrants": 5}, "max_entrants"),
        ({"variant": "salon", "max_entrants": 11}, "max_entrants"),
        ({"variant": "classic", "max_entrants": 4}, "variant"),
        ({"variant": "banker36", "max_entrants": 4, "min_entrants": 1}, "min_entrants"),
        ({"variant": "banker36", "late_registration_minutes": 5}, "late_registration_minutes"),
        ({"variant": "banker36", "starting_stack": 50, "stake": 60}, "starting_stack"),
        ({"variant": "salon", "starting_stack": 30, "stake": 20}, "starting_stack"),
    ],
)
def test_clean_refuses_a_sit_and_go_that_cannot_be_played(fields, field):
    values = {"format": Tournament.Format.SIT_AND_GO, "max_entrants": 4, "min_entrants": 2}
    tournament = _unsaved(**{**values, **fields})
    with pytest.raises(ValidationError) as refused:
        tournament.clean()
    assert field in refused.value.message_dict


def test_clean_accepts_sit_and_go_for_both_player_bank_variants():
    _unsaved(format=Tournament.Format.SIT_AND_GO, variant="banker36", max_entrants=4).clean()
    _unsaved(format=Tournament.Format.SIT_AND_GO, variant="salon", max_entrants=10).clean()
    with pytest.raises(ValidationError):  # the stake belongs to sit-and-go alone
        _unsaved(variant="blackjack", stake=10).clean()


def _unsaved(**fields: Any) -> Tournament:
    now = timezone.now()
    values: dict[str, Any] = {
        "name": "Проверка",
        "variant": "blackjack",
        "format": Tournament.Format.DUPLICATE,
        "registration_opens_at": now,
        "starts_at": now + datetime.timedelta(hours=1),
        "ends_at": now + datetime.timedelta(hours=2),
        "min_entrants": 2,
        "max_entrants": 4,
    }
    values.update(fields)
    return Tournament(**values)


def test_a_full_sit_and_go_whose_start_failed_keeps_its_entrants_and_the_clock_starts_it(
    make_user, monkeypatch
):
    from tournaments import services

    tournament = a_sit_and_go(seats=2)
    real_start = services.tournament_start

    def broken(**kwargs: Any) -> Tournament:
        raise RuntimeError("the table could not be made")

    monkeypatch.setattr(services, "tournament_start", broken)
    users = filled(make_user, tournament, ["ann", "bob"])
    assert tournament.status == Tournament.Status.REGISTERING
    assert tournament.entries.filter(status=Entry.Status.REGISTERED).count() == 2
    assert escrow_account(tournament.escrow_code).balance == 200  # both buy-ins held
    monkeypatch.setattr(services, "tournament_start", real_start)
    tournaments_advance(now=timezone.now())  # long before its starts_at
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    game = playing(table_of(tournament))
    assert sorted(p["user"] for p in game.players) == sorted(u.pk for u in users)
