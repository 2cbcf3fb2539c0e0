"""A public lobby's limits on opening tables (issue 17): how many tables a player may have
open at once and how many they may open per hour — one check in lobby_services.table_open, met
the same way by the lobby's form and its socket's `open_table`."""

from __future__ import annotations

import contextlib
import datetime
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.db import connection, connections
from django.urls import reverse

from lobby import broadcast
from lobby import services as lobby_services
from lobby.services import table_open
from play.services import errors, seating
from play.services.closing import table_close
from play.services.errors import PlayError
from tables import services as tables_services
from tables.models import Table
from tables.services import table_create
from tests.conftest import reset_throttle_counts
from tests.play.ws_helpers import lobby, lobby_answer

# Fifty seconds before a clock hour ends: an hourly limit's refusal then waits 50 s.
_FIFTY_SECONDS_BEFORE_ONE = datetime.datetime(2026, 3, 2, 12, 59, 10, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def _limits(settings: Any) -> None:
    settings.TABLES_OPEN_PER_USER = 3
    settings.TABLE_OPENS_PER_HOUR = 10
    # The hourly counters live in the shared cache (Redis between runs, where user ids
    # start again at 1 in a new test database).
    reset_throttle_counts()


def _own_tables(user: Any, n: int) -> list[Table]:
    return [table_create(created_by=user, variant="classic", name=f"Мой {i}") for i in range(n)]


@pytest.mark.django_db
def test_a_player_with_three_open_tables_cannot_open_a_fourth_with_the_form(client, make_user):
    player = make_user()
    _own_tables(player, 3)
    client.force_login(player)
    response = client.post(reverse("table_new"), {"variant": "salon", "name": "Четвёртый"})
    assert response.status_code == 400
    assert "У вас уже открыто столов: 3, больше нельзя. Закройте один из них." in (
        response.content.decode()
    )
    assert Table.objects.filter(created_by=player).count() == 3

    client.cookies["django_language"] = "en"
    english = client.post(reverse("table_new"), {"variant": "salon"}).content.decode()
    assert "You already have 3 tables open, the most allowed. Close one of them." in english


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_player_with_three_open_tables_cannot_open_a_fourth_over_the_socket(make_user):
    player = await database_sync_to_async(make_user)()
    await database_sync_to_async(_own_tables)(player, 3)
    comm = await lobby(player)
    answer = await lobby_answer(comm, {"type": "open_table", "variant": "salon"})
    assert answer["type"] == "error" and answer["code"] == "too_many_tables", answer
    assert "3" in answer["message"]
    # Freed by closing a table, not by waiting: the limit is named, with no time to wait.
    assert answer["limit"] == "open_tables" and "retry_after" not in answer
    count = await database_sync_to_async(Table.objects.filter(created_by=player).count)()
    assert count == 3
    await comm.disconnect()


@pytest.mark.django_db
def test_closed_tables_do_not_count_and_staff_have_no_limit(make_user):
    player = make_user()
    tables = _own_tables(player, 3)
    with pytest.raises(PlayError) as refused:
        table_open(by=player, variant="classic")
    assert refused.value.code == "too_many_tables"
    table_close(table=tables[0])
    assert table_open(by=player, variant="classic").created_by == player

    admin = make_user(is_staff=True)
    _own_tables(admin, 3)
    for _ in range(3):
        table_open(by=admin, variant="classic")
    assert Table.objects.filter(created_by=admin).count() == 6


@pytest.mark.django_db
def test_one_click_tables_are_reused_and_leave_the_player_free_to_open_three(client, make_user):
    """«Играть» opens one table per player and variant and goes back to it — also after
    the player stood up — so they never pile up, and they do not count towards the
    tables a player may have open: three tables opened by hand still fit beside them."""
    player = make_user()
    client.force_login(player)
    for _ in range(3):
        for variant in ("solo", "blackjack"):
            assert client.post(reverse("quick_start", args=[variant])).status_code == 302
        for table in Table.objects.filter(created_by=player):
            seating.seat_leave(table=table, player=player)
    one_click = Table.objects.filter(created_by=player, one_click=True)
    assert sorted(one_click.values_list("variant", flat=True)) == ["blackjack", "solo"]
    assert client.post(reverse("quick_start", args=["solo"])).status_code == 302
    assert one_click.get(variant="solo").seats.filter(player=player).exists()  # seated again
    for i in range(3):
        table_open(by=player, variant="classic", name=f"Руками {i}")
    with pytest.raises(PlayError) as refused:
        table_open(by=player, variant="classic", name="Четвёртый")
    assert refused.value.code == "too_many_tables"


@pytest.mark.django_db
def test_opening_faster_than_the_hourly_rate_is_refused_and_a_refused_table_is_not_counted(
    settings, make_user, client
):
    settings.TABLES_OPEN_PER_USER = 100
    settings.TABLE_OPENS_PER_HOUR = 2
    player = make_user()
    with time_machine.travel(_FIFTY_SECONDS_BEFORE_ONE, tick=False) as clock:
        with pytest.raises(PlayError) as bad:
            table_open(by=player, variant="salon", min_bet=50, max_bet=10)
        assert bad.value.code == "bad_table"
        table_open(by=player, variant="classic")
        table_open(by=player, variant="classic")
        with pytest.raises(PlayError) as refused:
            table_open(by=player, variant="classic")
        assert refused.value.code == "rate_limited"
        assert "не больше 2 в час" in refused.value.message
        # The opens are counted per clock hour: this one ends in 50 seconds.
        assert (refused.value.limit, refused.value.retry_after) == ("table_opens", 50)
        assert Table.objects.filter(created_by=player).count() == 2

        # The form meets the same refusal, on the page, as a 429 saying when to come back.
        client.force_login(player)
        response = client.post(reverse("table_new"), {"variant": "classic"})
        assert response.status_code == 429
        assert response["Retry-After"] == "50"
        assert "Слишком много новых столов: не больше 2 в час." in response.content.decode()
        # Another player is not slowed down by this one.
        assert table_open(by=make_user(), variant="classic")

        # Once the wait is over, the player opens again.
        clock.shift(50)
        assert table_open(by=player, variant="classic")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_refuses_an_open_over_the_hourly_rate_with_the_seconds_left(
    settings, make_user
):
    settings.TABLE_OPENS_PER_HOUR = 1
    player = await database_sync_to_async(make_user)()
    comm = await lobby(player)
    with time_machine.travel(_FIFTY_SECONDS_BEFORE_ONE, tick=False):
        first = await lobby_answer(comm, {"type": "open_table", "variant": "classic"})
        assert first["type"] == "table_opened", first
        answer = await lobby_answer(comm, {"type": "open_table", "variant": "classic", "id": "o2"})
    assert answer["code"] == "rate_limited", answer
    assert (answer["limit"], answer["retry_after"], answer["id"]) == ("table_opens", 50, "o2")
    await comm.disconnect()


def _creates_wait_for_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads' table_create each wait (up to 5 s) for the other to get as far: both
    have then made their checks, inside their transactions, before either creates."""
    both_there = threading.Barrier(2, timeout=5)
    create = tables_services.table_create

    def create_after_the_other(**fields: Any) -> Table:
        with contextlib.suppress(threading.BrokenBarrierError):
            both_there.wait()
        return create(**fields)

    # The lobby opens tables through its own reference to table_create.
    monkeypatch.setattr(lobby_services, "table_create", create_after_the_other)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_opens_at_once_at_the_limit_make_only_one_table_on_postgresql(
    postgres, make_user, monkeypatch
):
    assert connection.vendor == "postgresql"
    player = make_user()
    _own_tables(player, 2)  # one more allowed
    # Each open waits inside its transaction, after counting, for the other to get as
    # far: without a lock both count two tables and both open a third. With the lock the
    # second waits for the first to commit, the first gives up waiting, and the second
    # then counts three.
    _creates_wait_for_each_other(monkeypatch)

    def open_one() -> Any:
        try:
            return table_open(by=player, variant="classic")
        except PlayError as error:
            return error.code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _i: open_one(), range(2)))
    assert sorted(r if isinstance(r, str) else "opened" for r in results) == [
        "opened",
        "too_many_tables",
    ]
    assert Table.objects.filter(created_by=player, status=Table.Status.OPEN).count() == 3


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_one_click_plays_at_once_make_one_table_on_postgresql(postgres, make_user, monkeypatch):
    """Two «Играть» clicks at once: each looks for the player's table, finds none and
    would make one — the lock of the player's row lets the second find the first's."""
    assert connection.vendor == "postgresql"
    player = make_user()
    _creates_wait_for_each_other(monkeypatch)

    def play() -> int:
        try:
            return lobby_services.table_one_click(by=player, variant="solo").pk
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        tables = set(pool.map(lambda _i: play(), range(2)))
    assert len(tables) == 1
    assert Table.objects.filter(created_by=player, one_click=True).count() == 1


@pytest.mark.django_db
def test_a_one_click_table_that_cannot_be_made_whole_gives_its_hourly_count_back(
    make_user, monkeypatch, settings
):
    settings.TABLE_OPENS_PER_HOUR = 1
    player = make_user()

    def no_seat(**_kwargs: Any) -> None:
        raise errors.SeatError("no seat", code="seat_taken")

    monkeypatch.setattr(lobby_services, "seat_take", no_seat)
    with pytest.raises(errors.SeatError):
        lobby_services.table_one_click(by=player, variant="solo")
    assert not Table.objects.filter(created_by=player).exists()
    monkeypatch.undo()
    assert lobby_services.table_one_click(by=player, variant="solo").one_click  # the hour's one


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_an_open_table_message_cannot_name_the_services_own_arguments(make_user):
    """`one_click` would have skipped the open-at-once limit, `by` killed the socket
    (a TypeError): every key of `open_table` is a table field or refused."""
    user = await database_sync_to_async(make_user)()
    comm = await lobby(user)
    for key, value in (("one_click", True), ("by", 1), ("created_by", 1)):
        refused = await lobby_answer(comm, {"type": "open_table", "variant": "classic", key: value})
        assert refused["type"] == "error" and refused["code"] == "bad_message", refused
        assert key in refused["message"]
    opened = await lobby_answer(comm, {"type": "open_table", "variant": "classic"})
    assert opened["type"] == "table_opened"
    await comm.disconnect()


# --- the lobby's list: capped, paginated, filtered in the database ------------------------


def _many_tables(n: int) -> None:
    """n public tables at once (bulk: the lobby's validation is not what is tested)."""
    Table.objects.bulk_create(
        Table(variant="classic", name=f"Стол {i:03}", seat_count=6, entry_limit=0, match_length=5)
        for i in range(n)
    )


@pytest.mark.django_db
def test_lobby_json_is_capped_at_a_page_with_the_rest_on_the_next_pages(client):
    from lobby.selectors import LOBBY_PAGE_SIZE

    _many_tables(LOBBY_PAGE_SIZE + 5)
    first = client.get(reverse("lobby_state")).json()
    assert len(first["tables"]) == LOBBY_PAGE_SIZE == 50
    assert (first["page"], first["pages"], first["total"]) == (1, 2, 55)
    assert first["counts"]["classic"] == 55
    second = client.get(reverse("lobby_state"), {"page": 2}).json()
    assert [t["name"] for t in second["tables"]] == [f"Стол {i:03}" for i in range(50, 55)]
    # A page past the end is the last one.
    assert client.get(reverse("lobby_state"), {"page": 9}).json()["page"] == 2


@pytest.mark.django_db
def test_lobby_json_filters_by_variant_and_entry_limit_in_the_database(client):
    table_create(variant="banker36", name="Банк", stake=20, entry_limit=200)
    table_create(variant="salon", name="Салон", min_bet=5, max_bet=50, entry_limit=60)
    table_create(variant="classic", name="Классика-7", match_length=7)
    table_create(variant="blackjack", name="Закрытый")

    def names(**query: Any) -> list[str]:
        return [t["name"] for t in client.get(reverse("lobby_state"), query).json()["tables"]]

    assert names(variant="salon") == ["Салон"]
    # Entry limits 0, 60 and 0 (banker36's is 200).
    assert names(max_entry=100) == ["Классика-7", "Салон", "Закрытый"]
    assert names(min_entry=100) == ["Банк"]
    assert names(variant="banker36", max_entry=100) == []
    answer = client.get(reverse("lobby_state"), {"variant": "poker", "max_entry": "x"})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_filter"
    assert "Лимит входа до" in answer.json()["error"]["message"]


@pytest.mark.django_db
def test_the_lobby_page_shows_fifty_tables_with_a_link_to_the_next_page(client):
    _many_tables(60)
    html = client.get(reverse("lobby")).content.decode()
    assert html.count("<tr data-table-id=") == 50
    assert 'rel="next" href="?page=2"' in html and "Страница 1 из 2" in html
    html = client.get(reverse("lobby"), {"page": 2, "max_entry": 0}).content.decode()
    assert html.count("<tr data-table-id=") == 10
    assert 'rel="prev" href="?page=1&amp;max_entry=0"' in html


@pytest.mark.django_db
def test_the_viewers_own_and_seated_tables_are_listed_whatever_the_page(client, make_user):
    player = make_user()
    _many_tables(60)
    mine = table_create(created_by=player, variant="salon", name="Мой частный", private=True)
    client.force_login(player)
    html = client.get(reverse("lobby")).content.decode()
    assert f'<a href="{reverse("table", args=[mine.pk])}">Мой частный</a>' in html
    me = client.get(reverse("lobby_state")).json()["me"]
    assert me["tables"] == [
        {
            "table": mine.pk,
            "name": "Мой частный",
            "variant": "salon",
            "private": True,
            "seated": False,
        }
    ]


# --- the lobby socket: the list once, then what changed ---------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_lobby_socket_gets_each_change_as_an_added_changed_or_removed_table(make_user):
    from tests.lobby.test_lobby import LobbySocket

    ann, bob = await database_sync_to_async(lambda: (make_user("ann"), make_user("bob")))()
    other = await database_sync_to_async(table_create)(variant="salon", name="Другой")
    watcher = await LobbySocket.open(bob)
    assert [t["id"] for t in watcher.tables] == [other.pk]  # the first message: the list

    async def next_diff() -> dict:
        while True:
            message = await watcher.comm.receive_json_from(timeout=5)
            assert message["type"] != "lobby", "the whole list again"
            if message["type"] != "lobby_counts":  # after each batch (the next test)
                return message

    table = await database_sync_to_async(table_open)(by=ann, variant="banker36", name="Новый")
    added = await next_diff()
    assert added["type"] == "table_added" and added["table"]["id"] == table.pk
    assert (added["table"]["name"], added["table"]["seats_taken"]) == ("Новый", 0)

    await database_sync_to_async(seating.seat_take)(table=table, player=ann)
    changed = await next_diff()
    assert changed == {"type": "table_changed", "table": {**added["table"], "seats_taken": 1}}

    await database_sync_to_async(table_close)(table=table)
    assert await next_diff() == {"type": "table_removed", "table": table.pk}
    await watcher.comm.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_lobby_sockets_first_list_is_one_filtered_page(make_user):
    from tests.lobby.test_lobby import LobbySocket

    user = await database_sync_to_async(make_user)()
    await database_sync_to_async(_many_tables)(55)
    socket = await LobbySocket.open(user)
    assert len(socket.tables) == 50
    await socket.comm.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_batch_of_lobby_changes_is_followed_by_one_lobby_counts_over_all_public_tables(
    make_user,
):
    """The counts come from the server once per batch, after its diffs, over every open
    public table whatever the socket's filters: the browser no longer asks lobby.json
    after each batch to learn them (docs/protocol.md §14)."""
    import asyncio

    ann = await database_sync_to_async(make_user)("ann")

    @database_sync_to_async
    def tables() -> tuple[Table, Table, Table]:
        # Not in the batch, but counted: a classic, and a banker above the filter below.
        table_create(variant="classic", name="Старый")
        table_create(variant="banker36", name="Дорогой", stake=10, entry_limit=5000)
        # Never counted: a private table and a closed one.
        table_create(variant="salon", name="Частный", private=True)
        table_close(table=table_create(variant="salon", name="Давно закрытый"))
        return (
            table_create(variant="salon", name="Новый", created_by=ann),
            table_create(variant="salon", name="Сменился"),
            table_create(variant="banker36", name="Закрыт", stake=10),
        )

    new, changed, gone = await tables()
    await database_sync_to_async(table_close)(table=gone)  # before anyone is in the lobby
    socket = await lobby(ann, query="variant=salon&max_entry=100")

    def about(message: dict) -> tuple[str, Any]:
        table = message.get("table")
        return message["type"], table["id"] if isinstance(table, dict) else table

    # One batch of three changes, as the coalescing sends it, then another of one.
    loop = asyncio.get_running_loop()
    for batch in ({new.pk: True, changed.pk: False, gone.pk: False}, {changed.pk: False}):
        broadcast._lobby_due[loop] = batch
        await broadcast._lobby_send(loop)
    received = [await socket.receive_json_from(timeout=5) for _ in range(6)]
    assert [about(m) for m in received] == [
        ("table_added", new.pk),
        ("table_changed", changed.pk),
        ("table_removed", gone.pk),
        ("lobby_counts", None),  # one for the batch, after its diffs: not one per diff
        ("table_changed", changed.pk),
        ("lobby_counts", None),
    ]
    # The socket's filters (salons up to 100) are not the counts': all public open ones.
    assert received[3] == {
        "type": "lobby_counts",
        "counts": {"classic": 1, "salon": 2, "solo": 0, "banker36": 1, "blackjack": 0},
        "counts_total": 4,
    }
    # Who opened the new table is told to that player only.
    assert received[0]["yours"] is True and "yours" not in received[1]
    await socket.disconnect()


@pytest.mark.django_db
def test_a_lobby_batch_is_built_with_three_queries_however_many_tables_changed(
    django_assert_num_queries, make_user
):
    """On the live path: the changed tables, who sits at them (each socket decides its
    own viewer's join buttons from it) and the counts, one query each per batch (the group
    message then reaches every lobby socket, which run none unless the batch is about a
    table its viewer sits at)."""

    ids = [table_create(variant="salon", name=f"Салон {i}").pk for i in range(5)]
    player = make_user()
    seating.seat_take(table=Table.objects.get(pk=ids[0]), player=player)
    with django_assert_num_queries(3):
        message = broadcast._lobby_message(dict.fromkeys([*ids, 999_999], False))
    assert message["counts"]["salon"] == 5 and message["counts_total"] == 5
    assert message["removed"] == [999_999]
    assert message["seated"] == {str(ids[0]): [player.pk]}
