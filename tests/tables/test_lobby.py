"""The lobby page and the ws/lobby/ WebSocket (session auth + origin check)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from config.asgi import application
from tables.services import seat_take, table_close, table_create


@pytest.fixture
def demo_tables(db):
    return {
        "banker36": table_create(variant="banker36", name="Банк", stake=20, entry_limit=200),
        "salon": table_create(variant="salon", name="Салон", min_bet=5, max_bet=50, entry_limit=60),
        "classic": table_create(variant="classic", name="Классика-7", match_length=7),
        "closed": table_create(variant="blackjack", name="Закрытый"),
    }


@pytest.mark.django_db
def test_lobby_lists_open_tables_with_variant_seats_stakes_and_entry_limit(
    client, demo_tables, make_user
):
    seat_take(table=demo_tables["banker36"], player=make_user())
    table_close(table=demo_tables["closed"])
    html = client.get(reverse("lobby")).content.decode()
    assert "Банк" in html and "Очко с банкиром (36 карт)" in html
    assert "1/4" in html and "ставка 20" in html and ">200<" in html
    assert "ставки 5–50" in html and ">60<" in html
    assert "партия из 7 раздач" in html
    assert "Закрытый" not in html
    # Variants in the registry's order: classic first.
    assert html.index("Классика-7") < html.index("Салон") < html.index("Банк")


@pytest.mark.django_db
def test_lobby_in_english(client, demo_tables):
    client.cookies["django_language"] = "en"
    html = client.get(reverse("lobby")).content.decode()
    assert "Open tables" in html and "Banker (36 cards)" in html and "Entry limit" in html
    assert "stake 20" in html


@pytest.mark.django_db
def test_static_css_is_served(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200


def _session_cookie(client, user) -> bytes:
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_sends_open_tables_to_a_signed_in_player(client, make_user):
    await database_sync_to_async(table_create)(variant="banker36", name="WS-стол", stake=10)
    user = await database_sync_to_async(make_user)()
    cookie = await database_sync_to_async(_session_cookie)(client, user)
    communicator = WebsocketCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)],
    )
    connected, _ = await communicator.connect()
    assert connected
    message = await communicator.receive_json_from(timeout=5)
    assert message["type"] == "lobby"
    (table,) = message["tables"]
    assert (table["name"], table["variant"], table["seat_count"], table["entry_limit"]) == (
        "WS-стол",
        "banker36",
        4,
        100,
    )
    await communicator.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_closes_anonymous_connections_with_4401():
    communicator = WebsocketCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect()
    assert connected  # accepted only to deliver the close code to the browser
    closing = await communicator.receive_output(timeout=5)
    assert closing == {"type": "websocket.close", "code": 4401}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_refuses_a_foreign_origin_even_with_a_valid_session(client, make_user):
    user = await database_sync_to_async(make_user)()
    cookie = await database_sync_to_async(_session_cookie)(client, user)
    communicator = WebsocketCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"https://evil.example"), (b"cookie", cookie)],
    )
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_ws_lobby_refuses_bad_frames_and_floods_without_dropping_the_connection(
    client, make_user
):
    from tables.consumers import BURST, MAX_FRAME_BYTES

    user = await database_sync_to_async(make_user)()
    cookie = await database_sync_to_async(_session_cookie)(client, user)
    communicator = WebsocketCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)],
    )
    assert (await communicator.connect())[0]
    await communicator.receive_json_from(timeout=5)  # the table list
    await communicator.send_to(text_data="x" * (MAX_FRAME_BYTES + 1))
    assert (await communicator.receive_json_from(timeout=5))["code"] == "too_large"
    await communicator.send_to(text_data="{not json")
    assert (await communicator.receive_json_from(timeout=5))["code"] == "bad_json"
    await communicator.send_to(text_data='{"type": "dance"}')
    assert (await communicator.receive_json_from(timeout=5))["code"] == "unknown_type"
    for _ in range(BURST + 5):
        await communicator.send_to(text_data='{"type": "dance"}')
    codes = []
    while "rate_limited" not in codes and len(codes) <= BURST + 5:
        codes.append((await communicator.receive_json_from(timeout=5))["code"])
    assert codes[-1] == "rate_limited" and set(codes[:-1]) == {"unknown_type"}
    await communicator.disconnect()
