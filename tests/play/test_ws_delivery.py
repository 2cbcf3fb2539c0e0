"""Each connection gets each change of its table once, in order, whoever it is: a seated
player (every tab of theirs), a signed-in person who only watches, an anonymous
spectator, a shared screen (play.frames.broadcast sends the spectators' frame to the
watchers' own groups, not to every connection for the seated ones to drop)."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from tables import services
from tables.models import Table
from tests.play.ws_helpers import TableClient

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def test_every_connection_gets_every_change_once_and_in_order(make_user):
    ann, bob, cat = [await database_sync_to_async(make_user)(n) for n in ("ann", "bob", "cat")]
    table = await database_sync_to_async(services.table_create)(
        variant="banker36", name="B", stake=10, entry_limit=100, created_by=ann
    )
    clients = {
        "ann": await TableClient.open(table.pk, ann),
        "ann, second tab": await TableClient.open(table.pk, ann),
        "bob": await TableClient.open(table.pk, bob),
        "cat, watching": await TableClient.open(table.pk, cat),
        "anonymous": await TableClient.open(table.pk),
        "screen": await TableClient.open(table.pk, cat, query="view=spectator"),
    }
    first = {
        name: (await c.recv_until(lambda m: m["type"] == "snapshot"))["version"]
        for name, c in clients.items()
    }

    a, b = clients["ann"], clients["bob"]
    assert (await a.command("sit"))["type"] == "ack"
    assert (await b.command("sit"))["type"] == "ack"
    assert (await a.command("ready"))["type"] == "ack"
    assert (await b.command("ready"))["type"] == "ack"  # the bank starts: dealt at once
    assert (await b.command("stand"))["type"] == "ack"  # a forfeit in play, then gone
    await asyncio.sleep(0.3)
    final = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()

    for name, client in clients.items():
        await client.recv_until(lambda m, v=final: m["type"] == "update" and m["version"] == v)
        assert await client.comm.receive_nothing(timeout=0.3), name  # and nothing after it
        versions = [f["version"] for f in client.frames if f["type"] == "update"]
        assert versions == list(range(first[name] + 1, final + 1)), (name, versions)
        seats = {f["you"]["seat"] for f in client.frames if f["type"] == "update"}
        if name.startswith(("cat", "anonymous", "screen")):
            assert seats == {None}, name  # the spectators' frame
    for client in clients.values():
        await client.close()
