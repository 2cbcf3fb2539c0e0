"""The lobby's «Играть» per variant (lobby.services.table_quick_seat, POST /quick/<variant>/):
the best open table of the variant for the player's chips, or one opened for them."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from accounts.services import chips_adjust, wallet_for
from lobby import services as lobby_services
from play.services import seating
from play.services.errors import PlayError, SeatError
from tables.models import Seat, Table
from tables.services import table_create


def _with_balance(user: Any, balance: int) -> Any:
    wallet = wallet_for(user)
    if wallet.balance != balance:
        chips_adjust(
            wallet=wallet,
            amount=balance - wallet.balance,
            memo="test",
            by=None,
            idempotency_key=f"test-balance:{user.pk}:{balance}",
        )
    return user


def _seated(table: Table, make_user: Any, n: int) -> Table:
    for _ in range(n):
        seating.seat_take(table=table, player=make_user())
    return table


def _play(client: Client, variant: str) -> Any:
    return client.post(reverse("quick_seat", args=[variant]))


@pytest.mark.django_db
def test_quick_seat_takes_the_affordable_table_with_the_most_players_waiting(client, make_user):
    rich = table_create(variant="banker36", name="Дорогой", stake=50, entry_limit=5000)
    _seated(rich, make_user, 3)  # most players, but beyond the wallet
    one = _seated(table_create(variant="banker36", name="Один", entry_limit=100), make_user, 1)
    two = _seated(table_create(variant="banker36", name="Двое", entry_limit=200), make_user, 2)
    also_two = table_create(variant="banker36", name="Тоже двое", entry_limit=100)
    _seated(also_two, make_user, 2)  # as many waiting, but newer: the older one wins
    player = _with_balance(make_user(), 1000)
    client.force_login(player)

    response = _play(client, "banker36")

    assert response.status_code == 302
    assert response["Location"] == reverse("table", args=[two.pk])
    assert two.seats.filter(player=player).exists()
    assert not Seat.objects.filter(player=player).exclude(table=two).exists()
    assert Table.objects.count() == 4  # nothing opened
    assert one.seats.count() == 1 and rich.seats.count() == 3


@pytest.mark.django_db
def test_quick_seat_passes_over_full_private_and_closing_tables(make_user):
    full = _seated(table_create(variant="classic", name="Полный", seat_count=2), make_user, 2)
    private = table_create(variant="classic", name="Частный", private=True)
    seating.seat_take(table=private, player=make_user(), invite=private.invite_code)
    closing = _seated(table_create(variant="classic", name="Закрывается"), make_user, 1)
    Table.objects.filter(pk=closing.pk).update(closing=True)
    free = _seated(table_create(variant="classic", name="Свободный"), make_user, 1)
    player = _with_balance(make_user(), 0)  # classic stakes no chips: no wallet condition

    table = lobby_services.table_quick_seat(by=player, variant="classic")

    assert table == free and free.seats.filter(player=player).exists()
    for other in (full, private, closing):
        assert not other.seats.filter(player=player).exists()


@pytest.mark.django_db
def test_quick_seat_with_no_affordable_table_opens_a_public_one_and_seats_the_player(
    client, make_user
):
    dear = table_create(variant="salon", name="Дорогой", min_bet=50, max_bet=500, entry_limit=5000)
    player = _with_balance(make_user(), 1000)
    client.force_login(player)

    response = _play(client, "salon")

    opened = Table.objects.exclude(pk=dear.pk).get()
    assert response["Location"] == reverse("table", args=[opened.pk])
    assert opened.variant == "salon" and not opened.private and not opened.one_click
    assert opened.created_by == player and opened.entry_limit == 100  # the variant's defaults
    assert list(opened.seats.values_list("player", flat=True)) == [player.pk]
    assert not dear.seats.exists()


@pytest.mark.django_db
def test_quick_seat_opens_one_when_every_table_of_the_variant_is_full(make_user):
    full = _seated(table_create(variant="banker36", name="Полный", seat_count=2), make_user, 2)
    player = make_user()

    table = lobby_services.table_quick_seat(by=player, variant="banker36")

    assert table != full and table.created_by == player
    assert full.seats.count() == 2 and table.seats.get().player == player


@pytest.mark.django_db
def test_quick_seat_of_a_player_already_seated_at_the_variant_takes_them_back_there(
    client, make_user
):
    player = make_user()
    mine = table_create(variant="classic", name="Мой")
    seating.seat_take(table=mine, player=player)
    _seated(table_create(variant="classic", name="Людный"), make_user, 3)  # "better"
    client.force_login(player)

    response = _play(client, "classic")

    assert response["Location"] == reverse("table", args=[mine.pk])
    assert Seat.objects.filter(player=player).count() == 1
    assert Table.objects.count() == 2


@pytest.mark.django_db
def test_quick_seat_without_chips_for_the_lowest_stakes_says_so_on_the_lobby(client, make_user):
    table_create(variant="banker36", name="Банк", entry_limit=500)
    player = _with_balance(make_user(), 40)
    client.force_login(player)

    response = _play(client, "banker36")

    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    assert "не меньше 100" in message and "у вас 40" in message
    assert Table.objects.count() == 1 and not Seat.objects.filter(player=player).exists()
    page = client.get(reverse("lobby")).content.decode()
    assert "у вас 40" in page


@pytest.mark.django_db
def test_quick_seat_at_a_second_chip_table_says_where_the_player_plays_already(make_user):
    player = make_user()
    salon = table_create(variant="salon", name="Салон")
    seating.seat_take(table=salon, player=player)
    table_create(variant="banker36", name="Банк")

    with pytest.raises(SeatError) as refused:
        lobby_services.table_quick_seat(by=player, variant="banker36")

    assert refused.value.code == "seated_elsewhere" and "Салон" in refused.value.messages[0]
    assert Table.objects.filter(variant="banker36").count() == 1  # none opened either


@pytest.mark.django_db
def test_quick_seat_solo_and_blackjack_open_the_players_own_one_click_table_when_none_is_free(
    client, make_user
):
    player = make_user()
    client.force_login(player)

    solo = _play(client, "solo")
    blackjack = _play(client, "blackjack")

    own_solo = Table.objects.get(variant="solo")
    own_blackjack = Table.objects.get(variant="blackjack")
    assert solo["Location"] == reverse("table", args=[own_solo.pk])
    assert blackjack["Location"] == reverse("table", args=[own_blackjack.pk])
    assert own_solo.one_click and own_solo.private
    seats = list(own_blackjack.seats.order_by("number"))
    assert [s.player_id for s in seats] == [player.pk, None, None]  # with its AI company
    assert _play(client, "solo")["Location"] == reverse("table", args=[own_solo.pk])


@pytest.mark.django_db
def test_quick_seat_classic_for_a_lone_player_opens_a_table_they_host_not_an_empty_one(
    client, make_user
):
    """At an empty table nobody hosts (the demo's), a lone player could neither add an AI
    seat nor start: their own table lets them do both (the host's panel)."""
    demo = table_create(variant="classic", name="Демо: классика", match_length=5)
    only_ai = table_create(variant="classic", name="Одни ИИ", created_by=make_user())
    seating.ai_seat_add(table=only_ai, by=only_ai.created_by, level="medium")
    player = make_user()
    client.force_login(player)

    response = _play(client, "classic")

    opened = Table.objects.exclude(pk__in=[demo.pk, only_ai.pk]).get()
    assert response["Location"] == reverse("table", args=[opened.pk])
    assert opened.created_by == player and not opened.private
    assert list(opened.seats.values_list("player", flat=True)) == [player.pk]
    assert not demo.seats.exists() and only_ai.seats.count() == 1
    seating.ai_seat_add(table=opened, by=player, level="medium")  # the host may


@pytest.mark.django_db
def test_quick_seat_classic_seats_a_player_where_a_person_is_waiting(make_user):
    table_create(variant="classic", name="Демо: классика", match_length=5)
    waiting = _seated(table_create(variant="classic", name="Ждут"), make_user, 1)

    table = lobby_services.table_quick_seat(by=make_user(), variant="classic")

    assert table == waiting and waiting.seats.count() == 2
    assert Table.objects.count() == 2  # nothing opened


@pytest.mark.django_db
def test_quick_seat_classic_takes_a_lone_player_back_to_the_empty_table_they_host(make_user):
    player = make_user()
    first = lobby_services.table_quick_seat(by=player, variant="classic")
    seating.seat_leave(table=first, player=player)

    again = lobby_services.table_quick_seat(by=player, variant="classic")

    assert again == first and first.seats.get().player == player
    assert Table.objects.count() == 1  # not a table more for each click


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["solo", "blackjack"])
def test_quick_seat_at_a_one_player_game_gives_the_player_their_own_table_never_a_shared_one(
    client, make_user, variant
):
    """A solo game and a blackjack training table are one player's: a public table of the
    variant (the demo's, with the last player's session on it) is not the quick path."""
    shared = table_create(variant=variant, name="Демо")
    if variant == "blackjack":
        _seated(shared, make_user, 1)  # another person's session, with seats still free
    player = make_user()
    client.force_login(player)

    response = _play(client, variant)

    own = Table.objects.get(variant=variant, created_by=player)
    assert response["Location"] == reverse("table", args=[own.pk])
    assert own.one_click and own.private
    assert not shared.seats.filter(player=player).exists()
    if variant == "blackjack":  # the AI company the lobby promises
        assert list(own.seats.order_by("number").values_list("ai_level", flat=True)) == [
            "",
            "medium",
            "hard",
        ]
    assert _play(client, variant)["Location"] == reverse("table", args=[own.pk])


@pytest.mark.django_db
def test_quick_seat_is_post_only_csrf_protected_and_sends_a_stranger_to_sign_in(client, make_user):
    table_create(variant="classic", name="Стол")
    url = reverse("quick_seat", args=["classic"])
    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={reverse('lobby')}"
    assert not Seat.objects.exists()
    player = make_user()
    client.force_login(player)
    assert client.get(url).status_code == 405
    assert client.post(reverse("quick_seat", args=["poker"])).status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(player)
    assert strict.post(url).status_code == 403
    assert not Seat.objects.exists()


@pytest.mark.django_db
def test_quick_seat_refuses_a_stranger_in_the_service_too(make_user):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(PlayError) as refused:
        lobby_services.table_quick_seat(by=AnonymousUser(), variant="classic")
    assert refused.value.code == "not_signed_in"


@pytest.mark.django_db
def test_the_lobby_offers_play_for_every_variant_and_open_table_at_the_top(client, make_user):
    client.force_login(make_user())
    html = client.get(reverse("lobby")).content.decode()
    for variant in ("classic", "salon", "solo", "banker36", "blackjack"):
        assert f'action="{reverse("quick_seat", args=[variant])}"' in html
    assert html.index('id="open-table-top"') < html.index('id="lobby-tables"')
    # Its link opens the form without a script.
    assert '<details id="open-table" open>' in client.get("/?open=1").content.decode()


@pytest.mark.django_db
def test_the_lobby_in_english_says_play(client, make_user):
    client.force_login(make_user())
    client.cookies["django_language"] = "en"
    html = client.get(reverse("lobby")).content.decode()
    assert ">Play<" in html and "for chips, entry from 100" in html


def _quick_seats_meet_at_the_same_table(monkeypatch: Any) -> None:
    """Each quick seat waits, once it has its list of tables, for the other to have its
    own: both then try the same last seat."""
    barrier = threading.Barrier(2, timeout=5)
    original = lobby_services.quick_seat_tables

    def listed_then_wait(**kwargs: Any) -> list[Table]:
        tables = list(original(**kwargs))
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        return tables

    monkeypatch.setattr(lobby_services, "quick_seat_tables", listed_then_wait)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_quick_seats_at_once_never_overfill_a_table_on_postgresql(
    postgres, make_user, monkeypatch
):
    assert connection.vendor == "postgresql"
    last_seat = _seated(
        table_create(variant="banker36", name="Последнее место", seat_count=2), make_user, 1
    )
    players = [make_user(), make_user()]
    _quick_seats_meet_at_the_same_table(monkeypatch)

    def play(player: Any) -> int:
        try:
            return lobby_services.table_quick_seat(by=player, variant="banker36").pk
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        tables = list(pool.map(play, players))
    assert last_seat.seats.count() == 2  # one of them took it
    assert sorted(tables).count(last_seat.pk) == 1
    opened = Table.objects.exclude(pk=last_seat.pk).get()  # the other got a new one
    assert opened.seats.count() == 1


@pytest.mark.django_db
def test_a_second_quick_seat_after_the_last_seat_went_gets_a_table_of_its_own(make_user):
    """The same two quick seats one after the other (on every database)."""
    last_seat = _seated(
        table_create(variant="banker36", name="Последнее место", seat_count=2), make_user, 1
    )
    first = lobby_services.table_quick_seat(by=make_user(), variant="banker36")
    second = lobby_services.table_quick_seat(by=make_user(), variant="banker36")
    assert first == last_seat and last_seat.seats.count() == 2
    assert second != last_seat and second.seats.count() == 1
