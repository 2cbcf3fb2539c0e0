"""Every command may name the table version it was decided on (docs/protocol.md §5.2):
a host's pause decided on an old picture is refused like a stale move."""

from __future__ import annotations

import pytest

from tests.play.test_ws_errors import banker36_duel, refused
from tests.play.ws_play import table_version

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def test_a_host_command_on_an_old_version_is_refused_and_followed_by_a_snapshot(make_user):
    table, clients = await banker36_duel(make_user)
    host = clients["banker"]
    current = await table_version(table.pk)
    answer = await refused(host, "stale_version", "pause", version=current - 1)
    assert str(current) in answer["message"]
    snapshot = await host.recv()
    assert snapshot["type"] == "snapshot" and snapshot["version"] == current
    assert snapshot["game"]["paused"] is False
    # Named with the version it now has, the pause goes through.
    answer = await host.command("pause", version=current)
    assert answer["type"] == "ack" and answer["version"] == current + 1
    frame = await host.recv_until(lambda m: m["type"] == "update")
    assert frame["game"]["paused"] is True
    for client in clients.values():
        await client.close()


async def test_a_command_without_a_version_applies_to_the_table_as_it_is(make_user):
    table, clients = await banker36_duel(make_user)
    answer = await clients["banker"].command("pause")
    assert answer["type"] == "ack" and answer["version"] == await table_version(table.pk)
    for client in clients.values():
        await client.close()


async def test_a_version_that_is_not_an_integer_is_a_bad_message(make_user):
    _table, clients = await banker36_duel(make_user)
    for version in ("7", 7.0, True):
        await refused(clients["ponter"], "bad_message", "stand", version=version)
    for client in clients.values():
        await client.close()
