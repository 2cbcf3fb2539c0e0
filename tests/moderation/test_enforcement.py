"""Mutes and bans enforced (issue 21, item 2): a muted player's message is refused with
`muted`, a banned player's seat with `banned` (they may still watch), each saying until
when and why in the player's language, read from the database at every check."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from chat.errors import ChatRefused
from chat.models import ChatMessage
from chat.signals import message_posting
from moderation.models import Sanction
from moderation.services import PERIODS, sanction_apply, sanction_lift
from play.models import Game
from play.services import moves
from play.services.errors import SeatError
from play.services.seating import seat_take
from tables import services
from tables.models import Seat
from tests.play.ws_helpers import TableClient, session_cookie


def _post(author: Any, table: Any) -> None:
    message_posting.send(sender=ChatMessage, author=author, table=table)


@pytest.fixture
def moderator(make_user: Any) -> Any:
    return make_user("mod", is_staff=True, is_superuser=True)


@pytest.mark.django_db
def test_a_muted_player_is_refused_until_the_mute_ends(make_user, moderator, table):
    bob, ann = make_user("bob"), make_user("ann")
    _post(bob, table)  # not muted: nothing raised
    mute = sanction_apply(
        kind="mute", player=bob, by=moderator, reason="Оскорбления", period=PERIODS["1h"]
    )
    with pytest.raises(ChatRefused) as refused:
        _post(bob, table)
    assert refused.value.code == "muted"
    assert "Вам запрещено писать в чат до" in refused.value.message
    assert "Оскорбления" in refused.value.message
    local = timezone.localtime(mute.ends_at)
    assert f"{local.year} г. {local.strftime('%-H:%M')}" in refused.value.message
    _post(ann, table)  # only bob is muted
    # The mute ends (moved into the past, as an hour passing would).
    Sanction.objects.filter(pk=mute.pk).update(
        ends_at=timezone.now() - datetime.timedelta(seconds=1)
    )
    _post(bob, table)


@pytest.mark.django_db
@time_machine.travel(datetime.datetime(2026, 12, 3, 6, 38, 15, tzinfo=datetime.UTC), tick=False)
def test_the_muted_refusal_is_in_the_active_language(make_user, moderator, table):
    # A fixed moment: English writes a time on the hour without its minutes ("9 a.m.").
    bob = make_user("bob")
    sanction_apply(kind="mute", player=bob, by=moderator, reason="Spam", period=PERIODS["1d"])
    with translation.override("en"), pytest.raises(ChatRefused) as refused:
        _post(bob, table)
    assert refused.value.message == (
        "You may not write in the chat until Dec. 4, 2026, 9:38 a.m. (MSK). Reason: Spam"
    )


@pytest.mark.django_db
def test_a_lifted_mute_no_longer_refuses(make_user, moderator, table):
    bob = make_user("bob")
    mute = sanction_apply(kind="mute", player=bob, by=moderator, reason="x", period=PERIODS["7d"])
    sanction_lift(sanction=mute, by=moderator, reason="Ошибка")
    _post(bob, table)


@pytest.mark.django_db
def test_a_warning_or_a_ban_does_not_mute(make_user, moderator, table):
    bob = make_user("bob")
    sanction_apply(kind="warn", player=bob, by=moderator, reason="x")
    sanction_apply(kind="ban", player=bob, by=moderator, reason="x", period=PERIODS["1d"])
    _post(bob, table)


@pytest.mark.django_db
def test_the_check_is_one_query(make_user, moderator, table):
    bob = make_user("bob")
    sanction_apply(kind="warn", player=bob, by=moderator, reason="x")
    with CaptureQueriesContext(connection) as queries:
        _post(bob, table)
    assert len(queries) == 1


@pytest.mark.django_db
def test_a_ban_refuses_a_seat_through_the_seating_service(make_user, moderator, table):
    bob = make_user("bob")
    sanction_apply(kind="ban", player=bob, by=moderator, reason="Сговор", period=PERIODS["1d"])
    with pytest.raises(SeatError) as refused:
        seat_take(table=table, player=bob)
    assert refused.value.code == "banned"
    assert not table.seats.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["solo", "banker36"])
def test_a_banned_players_play_button_says_why_on_the_lobby_and_seats_them_nowhere(
    client, make_user, moderator, variant
):
    bob = make_user("bob")
    client.force_login(bob)
    # «Играть» once before the ban: for solo the player's own one-click table, which a
    # second click would only reopen for them to watch if the refusal were swallowed.
    client.post(reverse("quick_seat", args=[variant]))
    Seat.objects.filter(player=bob).delete()
    sanction_apply(kind="ban", player=bob, by=moderator, reason="Сговор", period=PERIODS["1d"])

    response = client.post(reverse("quick_seat", args=[variant]))

    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    assert "Вам запрещено садиться за стол до" in message and "Сговор" in message
    assert not Seat.objects.filter(player=bob).exists()


@pytest.mark.django_db
def test_a_ban_stands_the_player_up_from_the_tables_they_sit_at(make_user, moderator) -> None:
    bob, ann, cid = make_user("bob"), make_user("ann"), make_user("cid")
    # Between games at one table, and mid-match at another.
    idle = services.table_create(variant="banker36", name="Банк", stake=10, entry_limit=100)
    seat_take(table=idle, player=bob)
    match = services.table_create(
        variant="classic", name="Матч", decision_seconds=60, created_by=ann
    )
    for player in (ann, bob, cid):
        seat_take(table=match, player=player)
    moves.game_start(table=match, by=ann)
    game = Game.objects.get(table=match, status=Game.Status.PLAYING)
    assert len(game.seat_ids) == 3

    sanction_apply(kind="ban", player=bob, by=moderator, reason="Сговор", period=PERIODS["1d"])

    assert not idle.seats.filter(player=bob).exists()
    # classic's rules take a player who stands up out of the match; ann and cid play on.
    assert not match.seats.filter(player=bob).exists()
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert match.seats.filter(player=ann).exists()


@pytest.mark.django_db
def test_a_mute_or_a_warning_leaves_the_player_seated(make_user, moderator, table) -> None:
    bob = make_user("bob")
    seat_take(table=table, player=bob)
    sanction_apply(kind="mute", player=bob, by=moderator, reason="Спам", period=PERIODS["1h"])
    sanction_apply(kind="warn", player=bob, by=moderator, reason="Грубость")
    assert table.seats.filter(player=bob).exists()


# --- over a real table socket ---------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "framing"),
    [("ru", "Вам запрещено садиться за стол до"), ("en", "You may not take a seat until")],
)
async def test_a_banned_player_gets_banned_on_sit_but_may_watch_and_sits_once_lifted(
    make_user, language, framing
):
    bob = await database_sync_to_async(make_user)("bob")
    mod = await database_sync_to_async(make_user)("mod", is_staff=True, is_superuser=True)
    table = await database_sync_to_async(services.table_create)(
        variant="banker36", name="B", stake=10, entry_limit=100
    )
    ban = await database_sync_to_async(sanction_apply)(
        kind="ban", player=bob, by=mod, reason="Сговор с партнёром", period=PERIODS["7d"]
    )
    cookie = await database_sync_to_async(session_cookie)(bob)
    client = TableClient(table.pk, cookie + f"; django_language={language}".encode())
    connected, _ = await client.comm.connect()
    assert connected
    snapshot = await client.recv()
    assert snapshot["type"] == "snapshot"  # watching works
    refused = await client.command("sit")
    assert refused["type"] == "error" and refused["code"] == "banned"
    assert framing in refused["message"] and "Сговор с партнёром" in refused["message"]
    assert await database_sync_to_async(table.seats.count)() == 0
    # Still watching: a snapshot asked for is answered.
    await client.send({"type": "snapshot"})
    assert (await client.recv_until(lambda m: m["type"] == "snapshot"))["type"] == "snapshot"

    await database_sync_to_async(sanction_lift)(sanction=ban, by=mod, reason="Разобрались")
    assert (await client.command("sit"))["type"] == "ack"
    await client.close()
