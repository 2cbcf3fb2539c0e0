"""Blocks and friends against live play over real table sockets (issue 21): a block
refuses a seat at a private table both ways (`sit` → `blocked`, in the player's
language) and leaves public tables alone; friends see each other online, and at which
public table."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from people.blocks import block_add
from people.friends import friend_request_accept, friend_request_send
from tables import services
from tables.models import Table
from tests.play.ws_helpers import session_cookie
from tests.play.ws_play import Viewer, make_users

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def table_for(host: Any, *, private: bool, name: str = "Свои") -> Table:
    return services.table_create(created_by=host, variant="classic", name=name, private=private)


@database_sync_to_async
def block(blocker: Any, blocked: Any) -> None:
    block_add(blocker=blocker, blocked=blocked)


@database_sync_to_async
def befriend(a: Any, b: Any) -> None:
    friend_request_send(sender=a, recipient=b)
    friend_request_accept(recipient=b, sender=a)


@database_sync_to_async
def panel_of(user: Any) -> dict[str, Any]:
    client = Client()
    client.force_login(user)
    return client.get(reverse("people:friends_json")).json()


async def connect(table: Table, user: Any, query: str = "") -> Viewer:
    client = await Viewer.open(table.pk, user, query)
    assert (await client.recv())["type"] == "snapshot"
    return client


async def test_a_block_refuses_a_seat_at_a_private_table_both_ways(make_user):
    host, guest, other_host, other_guest = await make_users(make_user, "hal", "gus", "ola", "pia")
    # The host blocked the guest: the guest cannot sit, even with the invite.
    table = await table_for(host, private=True)
    await block(host, guest)
    client = await connect(table, guest, query=f"invite={table.invite_code}")
    answer = await client.command("sit", invite=table.invite_code)
    assert answer["type"] == "error" and answer["code"] == "blocked", answer
    assert answer["message"] == "Ведущий этого частного стола не принимает вас за свой стол."
    await client.close()
    # The guest blocked the host: the same, and the message says how to undo it.
    table = await table_for(other_host, private=True, name="Другие")
    await block(other_guest, other_host)
    client = await connect(table, other_guest, query=f"invite={table.invite_code}")
    answer = await client.command("sit", invite=table.invite_code)
    assert answer["type"] == "error" and answer["code"] == "blocked", answer
    assert "разблок" in answer["message"].lower() or "Блокировку" in answer["message"]
    await client.close()
    # The host still sits at their own table.
    owner = await connect(table, other_host)
    assert (await owner.command("sit"))["type"] == "ack"
    await owner.close()


async def test_the_refusal_is_in_the_players_language(make_user):
    host, guest = await make_users(make_user, "hal", "gus")
    table = await table_for(host, private=True)
    await block(host, guest)
    cookie = await database_sync_to_async(session_cookie)(guest)
    client = Viewer(table.pk, cookie + b"; django_language=en", f"invite={table.invite_code}")
    assert (await client.comm.connect())[0]
    assert (await client.recv())["type"] == "snapshot"
    answer = await client.command("sit", invite=table.invite_code)
    await client.close()
    assert answer["code"] == "blocked"
    assert answer["message"] == "The host of this private table does not accept you at it."


async def test_a_block_leaves_public_tables_alone(make_user):
    host, guest = await make_users(make_user, "hal", "gus")
    await block(host, guest)
    await block(guest, host)
    table = await table_for(host, private=False, name="Все")
    client = await connect(table, guest)
    assert (await client.command("sit"))["type"] == "ack"
    await client.close()


async def test_friends_see_each_other_online_and_at_which_public_table(make_user):
    ann, bob, host = await make_users(make_user, "ann", "bob", "hal")
    await befriend(ann, bob)
    panel = await panel_of(ann)
    assert panel["friends"] == [
        {"name": "bob", "profile": "/players/bob/", "online": False, "table": None}
    ]
    public = await table_for(host, private=False, name="Общий")
    socket = await connect(public, bob)
    assert (await socket.command("sit"))["type"] == "ack"
    friend = (await panel_of(ann))["friends"][0]
    assert friend["online"] is True
    assert friend["table"]["id"] == public.pk and friend["table"]["name"] == "Общий"
    assert friend["table"]["seated"] is True
    assert friend["table"]["sit_url"] == f"/tables/{public.pk}/?sit=1"
    assert friend["table"]["watch_url"] == f"/tables/{public.pk}/"
    await socket.close()
    assert (await panel_of(ann))["friends"][0]["online"] is False


async def test_a_friend_at_a_private_table_is_online_without_the_table(make_user):
    ann, bob, host = await make_users(make_user, "ann", "bob", "hal")
    await befriend(ann, bob)
    await befriend(host, bob)
    private = await table_for(host, private=True, name="Тайный")
    socket = await connect(private, bob, query=f"invite={private.invite_code}")
    friend = (await panel_of(ann))["friends"][0]
    assert friend["online"] is True and friend["table"] is None
    # The table's host is a guest there: they see it.
    seen_by_host = (await panel_of(host))["friends"][0]
    assert seen_by_host["table"]["id"] == private.pk
    await socket.close()


async def test_a_friend_with_the_lobby_open_is_online(make_user):
    ann, bob = await make_users(make_user, "ann", "bob")
    await befriend(ann, bob)
    assert (await panel_of(ann))["friends"][0]["online"] is False
    await panel_of(bob)  # bob's lobby page polls its panel
    friend = (await panel_of(ann))["friends"][0]
    assert friend["online"] is True and friend["table"] is None
