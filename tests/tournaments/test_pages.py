"""The tournaments page and an event's page: what a player sees, registers and withdraws."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.services import wallet_for
from tests.tournaments.helpers import make_tournament
from tournaments.models import Entry, Tournament
from tournaments.services import (
    tournament_finish,
    tournament_registration_open,
    tournament_start,
)
from tournaments.standings import standings_of

pytestmark = pytest.mark.django_db


def test_the_list_shows_upcoming_running_and_finished_events_by_variant(client):
    upcoming = tournament_registration_open(
        tournament=make_tournament(name="Скоро БД", variant="blackjack")
    )
    make_tournament(name="Классика вечером", variant="classic")
    page = client.get(reverse("tournaments")).content.decode()
    assert "Скоро БД" in page and "Классика вечером" in page
    assert reverse("tournament", args=[upcoming.pk]) in page
    page = client.get(reverse("tournaments"), {"variant": "classic"}).content.decode()
    assert "Классика вечером" in page and "Скоро БД" not in page
    assert client.get(reverse("tournaments"), {"variant": "poker"}).status_code == 200


def test_a_player_registers_and_withdraws_on_the_events_page(client, make_user):
    tournament = tournament_registration_open(tournament=make_tournament(buy_in=100))
    ann = make_user("ann")
    url = reverse("tournament", args=[tournament.pk])
    page = client.get(url).content.decode()
    assert tournament.commitment in page and tournament.server_seed not in page
    assert "Войдите, чтобы зарегистрироваться." in page
    client.force_login(ann)
    before = wallet_for(ann).balance
    assert "Зарегистрироваться за 100" in client.get(url).content.decode()
    response = client.post(reverse("tournament_register", args=[tournament.pk]), follow=True)
    page = response.content.decode()
    assert "Вы зарегистрированы." in page and 'data-player="ann"' in page
    assert wallet_for(ann).balance == before - 100
    response = client.post(reverse("tournament_register", args=[tournament.pk]), follow=True)
    assert "Вы уже зарегистрированы." in response.content.decode()
    response = client.post(reverse("tournament_withdraw", args=[tournament.pk]), follow=True)
    assert "взнос возвращён" in response.content.decode()
    assert wallet_for(ann).balance == before


def test_registration_needs_a_signed_in_post(client):
    tournament = tournament_registration_open(tournament=make_tournament())
    url = reverse("tournament_register", args=[tournament.pk])
    assert "/login/" in client.post(url)["Location"]
    assert reverse("tournament_register", args=[10**6]).endswith("/register/")


def test_a_finished_events_page_shows_places_prizes_and_the_revealed_seed(client, make_user):
    tournament = tournament_registration_open(tournament=make_tournament(buy_in=100))
    from django.utils import timezone

    from tournaments.services import entry_register

    users = [make_user(f"p{i}") for i in range(2)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    tournament_start(tournament=tournament)
    Entry.objects.filter(player=users[1]).update(stack=1500)
    tournament = tournament_finish(tournament=tournament)
    assert tournament.status == Tournament.Status.FINISHED
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert tournament.server_seed in page and "Итоги" in page
    row = page[page.index('data-player="p1"') :]
    assert "200" in row[: row.index("</tr>")]
    # The escrow is paid out, empty: the pool shown is what the places were paid.
    assert "<dd data-pool>200</dd>" in page and "1-е место: 200" in page
    assert standings_of(tournament.pk).tournament.pool == 200  # type: ignore[union-attr]


def test_the_lobby_shows_the_next_events_and_profile_and_history_a_players_results(
    client, make_user
):
    from django.utils import timezone

    from tournaments.services import entry_register

    upcoming = tournament_registration_open(tournament=make_tournament(name="Завтрашний"))
    page = client.get(reverse("lobby")).content.decode()
    assert "Ближайшие турниры" in page and "Завтрашний" in page
    assert reverse("tournament", args=[upcoming.pk]) in page
    done = tournament_registration_open(tournament=make_tournament(name="Сыгранный"))
    ann, bob = make_user("ann"), make_user("bob")
    for user in (ann, bob):
        entry_register(tournament_id=done.pk, player=user, now=timezone.now())
    tournament_start(tournament=done)
    Entry.objects.filter(tournament=done, player=ann).update(stack=1500)
    tournament_finish(tournament=done)
    profile = client.get(reverse("people:profile", args=["ann"])).content.decode()
    assert "Сыгранный" in profile and "1-е место из 2" in profile and "приз 200" in profile
    profile = client.get(reverse("people:profile", args=["bob"])).content.decode()
    assert "2-е место из 2" in profile
    # And in the player's own history, beside their games.
    client.force_login(ann)
    history = client.get(reverse("history")).content.decode()
    assert "Сыгранный" in history and "1-е место из 2" in history and "приз 200" in history


def test_a_sit_and_go_page_takes_its_entrants_to_their_shared_table(client, make_user):
    from django.utils import timezone

    from tournaments.services import entry_register

    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant="salon",
            format=Tournament.Format.SIT_AND_GO,
            max_entrants=2,
            rounds=2,
            stake=20,
            starting_stack=500,
        )
    )
    assert not tournament.commitment  # the game is committed at its table
    ann, bob = make_user("ann"), make_user("bob")
    for user in (ann, bob):
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    table = Entry.objects.get(tournament=tournament, player=ann).table
    assert table is not None
    client.force_login(bob)
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert f'href="{reverse("table", args=[table.pk])}"' in page and "data-own-table" in page
    assert "Банков на каждого игрока" in page and "20–200" in page
    assert "Отпечаток колоды" not in page and "Раундов" not in page
    # The stacks shown are the game's as it stands (a settled deal moves them).
    game = table.games.get()
    game.state = {**game.state, "deltas": {p["id"]: 0 for p in game.players}}
    ann_seat = next(p["id"] for p in game.players if p["user"] == ann.pk)
    bob_seat = next(p["id"] for p in game.players if p["user"] == bob.pk)
    game.state["deltas"].update({ann_seat: 30, bob_seat: -30})
    game.save(update_fields=["state"])
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    row = page[page.index('data-player="ann"') :]
    assert "530" in row[: row.index("</tr>")]
    client.logout()
    assert (
        "data-own-table"
        not in client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    )


def test_a_multi_table_page_shows_points_the_round_and_each_entrants_table(client, make_user):
    from django.utils import timezone

    from tournaments.services import entry_register

    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant="banker36",
            format=Tournament.Format.MULTI_TABLE,
            rounds=3,
            starting_stack=100,
            starts_at=timezone.now(),
        )
    )
    users = [make_user(f"mtp{i}") for i in range(5)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    tournament_start(tournament=tournament)
    Entry.objects.filter(player=users[4]).update(points=6)
    client.force_login(users[0])
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    table = Entry.objects.get(player=users[0]).table
    assert f'href="{reverse("table", args=[table.pk])}"' in page
    assert "Очки" in page and "идёт 1-й" in page and "финальный стол" in page
    # By points while it runs: the entrant with 6 is listed first.
    assert page.index('data-player="mtp4"') < page.index('data-player="mtp0"')
