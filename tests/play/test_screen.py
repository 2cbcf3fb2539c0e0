"""classic's shared screen: its page and QR code (HTTP), and the spectator-only socket it
uses (`?view=spectator`, docs/protocol.md §2.1), which must never send a seated user's own
cards."""

from __future__ import annotations

import html
import io
from typing import Any

import pytest
import segno
from channels.db import database_sync_to_async
from django.test import Client

from tables import services
from tests.play.ws_helpers import TableClient
from tests.play.ws_play import card_tokens


async def _until_pong(client: TableClient) -> list[dict[str, Any]]:
    """Every message the client gets before the answer to a ping sent now."""
    await client.send({"type": "ping"})
    got = []
    while (message := await client.recv())["type"] != "pong":
        got.append(message)
    return got


def _qr(url: str) -> bytes:
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", scale=8, border=4, dark="#000", light="#fff", omitsize=True
    )
    return out.getvalue()


@pytest.fixture
def classic(db: Any, make_user: Any) -> Any:
    host = make_user("vedushchiy")
    return services.table_create(created_by=host, variant="classic", name="Вечеринка")


def test_the_screen_page_shows_the_join_address_and_its_qr_image(classic: Any) -> None:
    response = Client().get(f"/tables/{classic.pk}/screen/")
    assert response.status_code == 200
    page = response.content.decode()
    join = f"http://testserver/tables/{classic.pk}/?sit=1"
    assert join in page
    assert f'src="/tables/{classic.pk}/qr.svg"' in page
    # The table id reaches the script as data, not code.
    assert 'id="screen-config"' in page and f'"table": {classic.pk}' in page
    assert "style=" not in page


def test_the_qr_code_is_an_svg_from_our_origin_encoding_the_join_address(classic: Any) -> None:
    response = Client().get(f"/tables/{classic.pk}/qr.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    body = response.content
    assert body.startswith(b"<?xml") and b"<svg" in body
    assert b"style=" not in body and b"<script" not in body
    # Exactly the code segno makes of the join address (and not of another one).
    assert body == _qr(f"http://testserver/tables/{classic.pk}/?sit=1")
    assert body != _qr(f"http://testserver/tables/{classic.pk}/")


def test_a_private_tables_screen_needs_the_invite_and_its_qr_carries_it(
    db: Any, make_user: Any
) -> None:
    host = make_user("hozyain")
    table = services.table_create(created_by=host, variant="classic", name="Свои", private=True)
    code = table.invite_code
    assert Client().get(f"/tables/{table.pk}/screen/").status_code == 404
    assert Client().get(f"/tables/{table.pk}/qr.svg").status_code == 404
    assert Client().get(f"/tables/{table.pk}/screen/?invite=wrong").status_code == 404

    page = Client().get(f"/tables/{table.pk}/screen/?invite={code}")
    assert page.status_code == 200
    join = f"http://testserver/tables/{table.pk}/?sit=1&invite={code}"
    assert html.escape(join) in page.content.decode()
    qr = Client().get(f"/tables/{table.pk}/qr.svg?invite={code}")
    assert qr.status_code == 200 and qr.content == _qr(join)

    # The host needs no code in the address: the QR still carries it, for the phones.
    as_host = Client()
    as_host.force_login(host)
    assert as_host.get(f"/tables/{table.pk}/screen/").status_code == 200
    assert as_host.get(f"/tables/{table.pk}/qr.svg").content == _qr(join)


def test_only_a_classic_table_has_a_shared_screen(db: Any) -> None:
    table = services.table_create(variant="salon", name="Салон")
    assert Client().get(f"/tables/{table.pk}/screen/").status_code == 404
    assert Client().get(f"/tables/{table.pk}/qr.svg").status_code == 404
    assert Client().get("/tables/999999/screen/").status_code == 404


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_spectator_view_socket_never_sends_a_seated_users_own_cards(make_user: Any) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await database_sync_to_async(services.table_create)(
        created_by=ann, variant="classic", name="Экран"
    )
    player = await TableClient.open(table.pk, ann)
    await player.recv()
    assert (await player.command("sit"))["type"] == "ack"
    assert (await player.command("add_ai", level="easy"))["type"] == "ack"
    # ann's TV: the same session, watching as a spectator.
    screen = await TableClient.open(table.pk, ann, query="view=spectator")
    snapshot = await screen.recv()
    assert snapshot["type"] == "snapshot" and snapshot["you"] == {"seat": None, "in_game": False}
    # Opening the screen is no presence of ann's: nobody is told she connected again.
    assert not [m for m in await _until_pong(player) if m["type"] == "presence"]

    assert (await player.command("start", rounds=5))["type"] == "ack"
    mine = await player.recv_until(lambda m: m["type"] == "update" and m["game"] is not None)
    on_screen = await screen.recv_until(lambda m: m["type"] == "update" and m["game"] is not None)
    assert mine["version"] == on_screen["version"]
    own = next(h for h in mine["game"]["view"]["round"]["hands"] if h["seat"] == "ann")
    assert len(own["cards"]) == 2  # ann's own connection sees her cards …
    hands = on_screen["game"]["view"]["round"]["hands"]
    assert all("cards" not in hand for hand in hands)  # … the screen sees none
    assert on_screen["you"] == {"seat": None, "in_game": False}
    up_card = on_screen["game"]["view"]["round"]["dealer"]["cards"]
    settled = [e for e in on_screen["events"] if e["type"] == "settle"]
    if not settled:
        # The dealer's up-card (in the view and its deal event) is the only card it shows.
        assert set(card_tokens(on_screen)) == set(up_card)
        assert not set(own["cards"]) & set(card_tokens(on_screen))
    else:
        # The dealer had a natural: round 1 ended at its deal, and its settlement shows
        # every hand to all (the rules' round summary); round 2's cards stay hidden.
        shown = (
            set(up_card)
            | set(card_tokens(settled))
            | set(card_tokens([e for e in on_screen["events"] if e["type"] == "reveal"]))
        )
        assert set(card_tokens(on_screen)) <= shown
    assert all("card" not in e for e in on_screen["events"] if e.get("to") == "ann")

    # It may not play: every command is refused as an anonymous one's would be.
    refused = await screen.command("action", action="stand")
    assert refused["type"] == "error" and refused["code"] == "not_signed_in"
    await screen.send({"type": "record", "game": 1})
    record = await screen.recv_until(lambda m: m["type"] in ("record", "error"))
    assert record["type"] == "error" and record["code"] == "forbidden"

    # Closing it is no absence of ann's either.
    await screen.close()
    assert not [m for m in await _until_pong(player) if m["type"] == "presence"]
    await player.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_private_table_refuses_a_spectator_view_socket_without_a_right_to_watch(
    make_user: Any,
) -> None:
    host = await database_sync_to_async(make_user)("host")
    table = await database_sync_to_async(services.table_create)(
        created_by=host, variant="classic", name="Свои", private=True
    )
    stranger = TableClient(table.pk, query="view=spectator")
    await stranger.comm.connect()
    closed = await stranger.comm.receive_output(timeout=2)
    assert closed["type"] == "websocket.close" and closed["code"] == 4403
    # The host's TV may watch it without the code, as a spectator.
    screen = await TableClient.open(table.pk, host, query="view=spectator")
    first = await screen.recv()
    assert first["type"] == "snapshot" and first["you"]["seat"] is None
    await screen.close()
