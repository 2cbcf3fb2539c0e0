import pytest
from channels.db import database_sync_to_async

from tables import services
from tests.play.ws_helpers import TableClient

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def test_two_players_sit_get_ready_and_the_bank_starts(make_user):
    ann = await database_sync_to_async(make_user)("ann")
    bob = await database_sync_to_async(make_user)("bob")
    table = await database_sync_to_async(services.table_create)(
        variant="banker36", name="B", stake=10, entry_limit=100
    )
    a = await TableClient.open(table.pk, ann)
    b = await TableClient.open(table.pk, bob)
    watcher = await TableClient.open(table.pk)
    snap = await a.recv()
    assert snap["type"] == "snapshot" and snap["game"] is None
    assert (await a.command("sit"))["type"] == "ack"
    assert (await b.command("sit"))["type"] == "ack"
    assert (await a.command("ready"))["type"] == "ack"
    assert (await b.command("ready"))["type"] == "ack"
    frame = await a.recv_until(lambda m: m["type"] == "update" and m["game"] is not None)
    assert frame["game"]["commitment"] and frame["game"]["seed"] is None
    w = await watcher.recv_until(lambda m: m["type"] == "update" and m["game"] is not None)
    assert "seed" not in str(w["game"]["view"])
    for c in (a, b, watcher):
        await c.close()
