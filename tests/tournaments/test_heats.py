"""A duplicate heat of `blackjack` through live play's services: every entrant is dealt the
same shoe at a table of their own, from the seed the event committed to before anyone
registered; the seed stays sealed until the event ends, then every record verifies."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.utils import timezone

from accounts.services import chips_in_circulation, escrow_account
from contract.table_out import Update
from games import engine, fairness
from lib.jsontext import json_text
from play.frames import viewing
from play.models import Game
from play.services.records import RecordSealed, public_record
from tests.play.live_helpers import play_game_randomly, playing
from tests.tournaments.helpers import make_tournament
from tests.verifier import verified
from tournaments.models import Entry, Tournament
from tournaments.services import (
    duplicate_context_table,
    entry_register,
    tournament_commitment_context,
    tournament_registration_open,
    tournament_start,
)

# Heats played to their end on a committed database (about 15 s together): `make test`
# runs them, the inner loop (`make test-fast`) leaves them out.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def a_heat(make_user: Any, players: int = 3, rounds: int = 4) -> tuple[Tournament, list[Any]]:
    # Starting now (as the clock starts it), with no late registration.
    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant="blackjack", rounds=rounds, buy_in=100, starts_at=timezone.now()
        )
    )
    users = [make_user(f"heat{i}") for i in range(players)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    return tournament_start(tournament=tournament), users


def heat_games(tournament: Tournament) -> list[Game]:
    return [
        Game.objects.get(table=entry.table)
        for entry in tournament.entries.select_related("table").order_by("pk")
    ]


def test_every_entrant_is_dealt_the_same_shoe_from_the_committed_seed(make_user):
    tournament, _users = a_heat(make_user)
    assert tournament.status == Tournament.Status.RUNNING
    games = heat_games(tournament)
    assert len(games) == 3 and len({g.table_id for g in games}) == 3
    # One seed for all: the event's server seed, in the event's context, no client seeds.
    context = {"table": duplicate_context_table(tournament), "shoe": 1, "variant": "blackjack"}
    expected = fairness.derive(tournament.server_seed, context, [])
    assert {g.seed for g in games} == {expected}
    assert all(g.context == context and g.client_seeds == [] for g in games)
    assert all(g.commitment == fairness.commit(tournament.server_seed, context) for g in games)
    # ... committed when registration opened, before anyone registered.
    assert tournament.commitment == fairness.commit(
        tournament.server_seed, tournament_commitment_context(tournament)
    )
    # The same first cards: each entrant's opening hand and the dealer's up card.
    openings = {(g.state["hands"][0][4:], g.state["dealer"][:2]) for g in games}
    assert len(openings) == 1
    assert all(g.options == {"rounds": 4, "fresh_shoe": True} for g in games)


def test_a_heats_seed_stays_sealed_after_its_game_until_the_event_ends(make_user):
    tournament, users = a_heat(make_user, players=2)
    first = Entry.objects.get(tournament=tournament, player=users[0])
    game = play_game_randomly(first.table, {users[0].pk: users[0]}, random.Random(1))
    assert game.status == Game.Status.FINISHED and game.sealed
    first.refresh_from_db()
    assert first.heat_over and first.stack == 1000 + 10 * sum(game.result["deltas"].values())
    text = json_text(viewing.table_snapshot(table=first.table, user=users[0]))
    assert tournament.server_seed not in text and game.seed not in text
    with pytest.raises(RecordSealed):
        public_record(game)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING  # the other heat is in play
    second = Entry.objects.get(tournament=tournament, player=users[1])
    play_game_randomly(second.table, {users[1].pk: users[1]}, random.Random(2))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED  # every heat over: it ends
    for game in heat_games(tournament):
        game.refresh_from_db()
        assert not game.sealed
        code, output = verified(public_record(game))
        assert code == 0, output
    shown = viewing.table_snapshot(table=first.table, user=users[0])
    assert shown.game is not None and shown.game.server_seed == tournament.server_seed


def test_the_event_ends_ranked_by_heat_and_pays_from_escrow(make_user):
    tournament, users = a_heat(make_user, players=3, rounds=3)
    circulating = chips_in_circulation()  # the buy-ins are in escrow, still in circulation
    for index, user in enumerate(users):
        entry = Entry.objects.get(tournament=tournament, player=user)
        play_game_randomly(entry.table, {user.pk: user}, random.Random(10 + index))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entries = list(tournament.entries.order_by("place"))
    assert [e.stack for e in entries] == sorted((e.stack for e in entries), reverse=True)
    assert sum(e.prize for e in entries) == 300
    assert escrow_account(tournament.escrow_code).balance == 0
    assert chips_in_circulation() == circulating
    assert all(not e.table.is_open for e in entries)


def test_a_heat_not_played_by_the_window_counts_what_it_won_and_is_closed(make_user):
    from tournaments.services import tournament_finish

    tournament, _users = a_heat(make_user, players=2)
    tournament = tournament_finish(tournament=tournament)  # the window closed: nobody played
    assert tournament.status == Tournament.Status.FINISHED
    for entry in tournament.entries.select_related("table"):
        # What the game won before anyone decided anything: 0, or a natural's
        # 15 (the dealer settles a natural at once), whatever the event's random seed dealt.
        game = Game.objects.get(table=entry.table)
        won = round(10 * sum(engine.result(game.state)["deltas"].values()))
        assert entry.heat_over and entry.no_show and entry.stack == 1000 + won
        assert playing(entry.table) is None and not entry.table.is_open
    assert all(not g.sealed for g in heat_games(tournament))


def test_a_heat_table_deals_one_game_only(make_user):
    from play.services import moves
    from play.services.errors import PlayError

    tournament, users = a_heat(make_user, players=2)
    entry = Entry.objects.get(tournament=tournament, player=users[0])
    play_game_randomly(entry.table, {users[0].pk: users[0]}, random.Random(3))
    with pytest.raises(PlayError) as refused:
        moves.game_start(table=entry.table, by=users[0])
    assert refused.value.code == "cannot_start"
    assert Update  # the frames' type, used by the snapshot checks above


def test_a_no_show_is_kept_from_registering_for_a_while_and_longer_each_time(make_user, settings):
    import datetime

    from tournaments.services import TournamentRefused, no_show_block_until, tournament_finish

    settings.TOURNAMENT_NO_SHOW_MINUTES = 15
    tournament, users = a_heat(make_user, players=2)
    played = Entry.objects.get(tournament=tournament, player=users[1])
    play_game_randomly(played.table, {users[1].pk: users[1]}, random.Random(4))
    tournament_finish(tournament=tournament)  # users[0] never came: the clock's heat
    absent = Entry.objects.get(tournament=tournament, player=users[0])
    played.refresh_from_db()
    assert absent.no_show and not played.no_show
    now = timezone.now()
    later = tournament_registration_open(
        tournament=make_tournament(
            variant="blackjack",
            starts_at=now + datetime.timedelta(days=1),
            ends_at=now + datetime.timedelta(days=1, hours=1),
        )
    )
    with pytest.raises(TournamentRefused) as refused:
        entry_register(tournament_id=later.pk, player=users[0], now=now)
    assert refused.value.code == "no_show_block" and "15 минут" in refused.value.message
    assert no_show_block_until(users[1], now) is None
    after = absent.heat_ended_at + datetime.timedelta(minutes=16)
    assert no_show_block_until(users[0], after) is None
    # A second no-show doubles the block.
    Entry.objects.filter(pk=absent.pk).update(heat_ended_at=now - datetime.timedelta(minutes=20))
    second = Entry.objects.create(
        tournament=later,
        player=users[0],
        status=Entry.Status.FINISHED,
        no_show=True,
        heat_over=True,
        heat_ended_at=now,
    )
    assert no_show_block_until(users[0], now) == second.heat_ended_at + datetime.timedelta(
        minutes=30
    )


def test_after_the_event_an_entrant_sees_two_heats_side_by_side_round_by_round(make_user, client):
    from django.urls import reverse

    tournament, users = a_heat(make_user, players=2, rounds=3)
    url = reverse("tournament_compare", args=[tournament.pk])
    client.force_login(users[0])
    assert client.get(url).status_code == 404  # not while the heats are sealed
    for index, user in enumerate(users):
        entry = Entry.objects.get(tournament=tournament, player=user)
        play_game_randomly(entry.table, {user.pk: user}, random.Random(20 + index))
    page = client.get(url, {"a": "heat0", "b": "heat1"}).content.decode()
    assert "Раунд 1" in page and "Раунд 3" in page
    assert 'data-side="a">heat0' in page and 'data-side="b">heat1' in page
    # Each round opens alike on both sides: the same first card at the head of each hand.
    first_cards = [
        row.split('<span class="card-text', 2)[1].split("</span>", 1)[0]
        for row in page.split('class="compare-side"')[1:]
    ]
    assert first_cards[0::2] == first_cards[1::2]
    client.force_login(make_user("outsider"))
    assert client.get(url).status_code == 404


def test_the_events_page_takes_an_entrant_to_their_heat_table_while_it_runs(make_user, client):
    from django.urls import reverse

    tournament, users = a_heat(make_user, players=2)
    entry = Entry.objects.get(tournament=tournament, player=users[0])
    client.force_login(users[0])
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert f'href="{reverse("table", args=[entry.table_id])}" data-own-table' in page
    play_game_randomly(entry.table, {users[0].pk: users[0]}, random.Random(6))
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "data-own-table" not in page  # the heat is played


def test_a_heat_cannot_be_ended_early_to_lock_in_a_result(make_user):
    from play.services import moves
    from play.services.errors import PlayError

    tournament, users = a_heat(make_user, players=2)
    entry = Entry.objects.get(tournament=tournament, player=users[0])
    with pytest.raises(PlayError) as refused:
        moves.session_end(table=entry.table, player=users[0])
    assert refused.value.code == "illegal_action"
    assert playing(entry.table) is not None


def test_a_player_banned_after_registering_is_refunded_at_the_start_and_the_rest_play(
    make_user,
):
    import datetime

    from accounts.services import wallet_for
    from moderation.services import sanction_apply

    tournament = tournament_registration_open(
        tournament=make_tournament(variant="blackjack", buy_in=100, starts_at=timezone.now())
    )
    users = [make_user(f"ban{i}") for i in range(3)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    before = wallet_for(users[0]).balance
    moderator = make_user("mod", is_staff=True)
    sanction_apply(
        kind="ban", player=users[0], by=moderator, reason="тест", period=datetime.timedelta(days=1)
    )
    tournament = tournament_start(tournament=tournament)
    assert tournament.status == Tournament.Status.RUNNING
    banned = Entry.objects.get(tournament=tournament, player=users[0])
    assert banned.status == Entry.Status.REFUNDED and banned.table is None
    assert wallet_for(users[0]).balance == before + 100
    assert Entry.objects.filter(tournament=tournament).exclude(table=None).count() == 2
    # ...and a banned player cannot register at all.
    later = tournament_registration_open(tournament=make_tournament(variant="blackjack"))
    from tournaments.services import TournamentRefused

    with pytest.raises(TournamentRefused) as refused:
        entry_register(tournament_id=later.pk, player=users[0], now=timezone.now())
    assert refused.value.code == "banned"
    with pytest.raises(TournamentRefused) as refused:
        entry_register(tournament_id=later.pk, player=moderator, now=timezone.now())
    assert refused.value.code == "staff_not_allowed"


def test_cancelling_a_running_event_closes_its_heats_and_publishes_their_seed(make_user):
    from tournaments.services import tournament_cancel

    tournament, _users = a_heat(make_user, players=2)
    tournament = tournament_cancel(tournament=tournament)
    assert tournament.status == Tournament.Status.CANCELLED
    for entry in tournament.entries.select_related("table"):
        assert entry.status == Entry.Status.REFUNDED and not entry.table.is_open
    assert all(not g.sealed and not g.is_playing for g in heat_games(tournament))


def test_the_clock_ends_an_event_whose_heats_are_all_played_once_late_registration_closes(
    make_user,
):
    import datetime

    from tournaments.services import tournaments_advance

    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant="blackjack", rounds=2, starts_at=timezone.now(), late_registration_minutes=10
        )
    )
    users = [make_user(f"late{i}") for i in range(2)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    tournament_start(tournament=tournament)
    for index, user in enumerate(users):
        entry = Entry.objects.get(tournament=tournament, player=user)
        play_game_randomly(entry.table, {user.pk: user}, random.Random(30 + index))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING  # late entrants may still come
    tournaments_advance(now=timezone.now() + datetime.timedelta(minutes=5))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    tournaments_advance(now=timezone.now() + datetime.timedelta(minutes=11))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED  # not waiting for ends_at


def test_one_events_failure_does_not_stop_the_others_clock(make_user, monkeypatch):
    import datetime

    from tournaments import services

    broken = make_tournament(name="Сломанный", registration_opens_at=timezone.now())
    fine = make_tournament(name="Исправный", registration_opens_at=timezone.now())
    real = services.tournament_registration_open

    def opening(*, tournament):
        if tournament.pk == broken.pk:
            raise RuntimeError("a database hiccup")
        return real(tournament=tournament)

    monkeypatch.setattr(services, "tournament_registration_open", opening)
    assert services.tournaments_advance(now=timezone.now() + datetime.timedelta(seconds=1)) == 1
    fine.refresh_from_db()
    broken.refresh_from_db()
    assert fine.status == "registering" and broken.status == "scheduled"


def test_a_withdrawn_entrant_does_not_keep_the_event_waiting_for_its_window(make_user):
    import datetime

    from tournaments.services import entry_withdraw, tournaments_advance

    tournament = tournament_registration_open(
        tournament=make_tournament(variant="blackjack", rounds=2, starts_at=timezone.now())
    )
    users = [make_user(f"w{i}") for i in range(3)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    entry_withdraw(tournament_id=tournament.pk, player=users[2])  # never plays a heat
    # Bypass the signal's own finish, to see the clock's: mark the heats played by hand.
    tournament_start(tournament=tournament)
    Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).update(
        heat_over=True
    )
    tournaments_advance(now=timezone.now() + datetime.timedelta(seconds=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
