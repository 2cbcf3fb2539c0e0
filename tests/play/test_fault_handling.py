"""What the server does when a service it depends on fails under it (issue 10's fault
tests against real processes, tests/integration/test_faults.py, found each of these):

- a consumer killed by an exception (its web process lost Redis) forgets its connection
  as a closed one, instead of leaving a presence that its heartbeat keeps alive for ever;
- a command whose database connection fails is answered `unavailable`, and the socket
  stays open (it used to kill the consumer: the socket closed without an answer);
- the presence heartbeat outlives a failed refresh;
- a move waits for a table held by someone else and plays its overdue timeout first
  (it skipped the check when the table was busy, e.g. held by a sweep whose worker had
  died, and was applied past its deadline).
"""

from __future__ import annotations

import asyncio
import datetime
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import OperationalError, connection, connections, transaction
from django.utils import timezone

from play.db import selectors
from play.edge import consumers
from play.models import ClientCommand, Game, Presence
from play.services import commands, errors, moves, presence, seating
from tables import services
from tables.models import Seat, Table
from tests.play.live_helpers import conservation_holds, playing
from tests.play.ws_helpers import TableClient


def bank_in_play(make_user: Any, players: int = 2) -> tuple[Table, list[Any]]:
    users = [make_user() for _ in range(players)]
    table = services.table_create(
        variant="banker36",
        name="faults",
        stake=10,
        entry_limit=100,
        created_by=users[0],
        reconnect_grace_seconds=30,
    )
    for user in users:
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=users[0])
    return table, users


def on_turn(table: Table, users: list[Any]) -> Any:
    game = playing(table)
    return next(u for u in users if u.username == game.deadline_seat)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[consumers.TableConsumer]:
    """Every TableConsumer that connects, to look inside it."""
    instances: list[consumers.TableConsumer] = []
    connect = consumers.TableConsumer.connect

    async def recording(self: consumers.TableConsumer) -> None:
        instances.append(self)
        await connect(self)

    monkeypatch.setattr(consumers.TableConsumer, "connect", recording)
    return instances


# --- a consumer that dies --------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_consumer_killed_by_its_channel_layer_forgets_its_connection(
    make_user, recorded, monkeypatch
):
    table, users = await database_sync_to_async(bank_in_play)(make_user)
    player = await database_sync_to_async(on_turn)(table, users)
    # The layer's receive fails when the test says, as channels_redis's does when Redis
    # goes away (every consumer of the process at once).
    layer = get_channel_layer()
    gone = asyncio.Event()
    receive = layer.receive

    async def failing(channel: str) -> dict[str, Any]:
        task = asyncio.ensure_future(receive(channel))
        waiter = asyncio.ensure_future(gone.wait())
        done, _ = await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            waiter.cancel()
            return task.result()
        task.cancel()
        raise ConnectionError("Connection closed by server.")

    monkeypatch.setattr(layer, "receive", failing)
    client = await TableClient.open(table.pk, player)
    await client.recv_until(lambda m: m["type"] == "snapshot")
    assert await database_sync_to_async(Presence.objects.count)() == 1
    version = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)()

    gone.set()
    with pytest.raises(ConnectionError):
        await client.comm.wait(timeout=5)

    # Forgotten as a closed connection: no presence left, the heartbeat stopped, and the
    # player on turn has the reconnect grace (one more version: the `away`).
    assert await database_sync_to_async(Presence.objects.count)() == 0
    assert recorded[0].heartbeat.cancelled()
    seat = await database_sync_to_async(Seat.objects.get)(player=player)
    assert seat.away_since is not None
    game = await database_sync_to_async(playing)(table)
    assert game.grace_version == game.state["version"]
    assert await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).version)() == (
        version + 1
    )


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_consumer_that_closes_normally_leaves_once(make_user, recorded, monkeypatch):
    table, users = await database_sync_to_async(bank_in_play)(make_user)
    leaves: list[str] = []
    leave = presence.presence_leave

    def counting(**kwargs: Any) -> None:
        leaves.append(kwargs["channel_name"])
        leave(**kwargs)

    monkeypatch.setattr(presence, "presence_leave", counting)
    client = await TableClient.open(table.pk, users[0])
    await client.recv_until(lambda m: m["type"] == "snapshot")
    await client.close()
    assert leaves == [recorded[0].channel_name]
    assert recorded[0].heartbeat.cancelled()
    assert await database_sync_to_async(Presence.objects.count)() == 0


# --- the database under a command ------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_command_that_loses_the_database_is_answered_unavailable(make_user, monkeypatch):
    table, users = await database_sync_to_async(bank_in_play)(make_user)
    player = await database_sync_to_async(on_turn)(table, users)
    client = await TableClient.open(table.pk, player)
    snapshot = await client.recv_until(lambda m: m["type"] == "snapshot")
    run = commands.command_run
    failures = iter([OperationalError("terminating connection due to administrator command")])

    def failing_once(**kwargs: Any) -> dict[str, Any]:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return run(**kwargs)

    monkeypatch.setattr(commands, "command_run", failing_once)
    move = {"action": "bet", "amount": 10, "version": snapshot["version"]}
    await client.send({"type": "action", "id": "m1", **move})
    refused = await client.recv_until(lambda m: m.get("id") == "m1")
    assert refused["type"] == "error" and refused["code"] == "unavailable"
    assert refused["version"] == snapshot["version"] and refused["message"]
    assert not await database_sync_to_async(ClientCommand.objects.exists)()

    # The socket is still open; the same command, resent with its id, is applied once.
    await client.send({"type": "action", "id": "m1", **move})
    ack = await client.recv_until(lambda m: m.get("id") == "m1")
    assert ack == {"type": "ack", "id": "m1", "version": snapshot["version"] + 1}
    await client.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_presence_heartbeat_outlives_a_failed_refresh(make_user, monkeypatch):
    table, users = await database_sync_to_async(bank_in_play)(make_user)
    monkeypatch.setattr(selectors, "PRESENCE_HEARTBEAT_SECONDS", 0.01)
    touched: list[str] = []
    beats = asyncio.Event()
    loop = asyncio.get_running_loop()
    touch = presence.presence_touch

    def flaky(*, channel_name: str) -> None:
        touched.append(channel_name)
        if len(touched) >= 3:
            loop.call_soon_threadsafe(beats.set)
        if len(touched) == 1:
            raise OperationalError("the connection is closed")
        touch(channel_name=channel_name)

    monkeypatch.setattr(presence, "presence_touch", flaky)
    client = await TableClient.open(table.pk, users[0])
    await asyncio.wait_for(beats.wait(), 5)  # beats again after the failed one
    await client.close()


# --- a move at a busy table ------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_move_past_its_deadline_at_a_busy_table_plays_the_timeout_first(postgres, make_user):
    table, users = bank_in_play(make_user, players=3)
    player = on_turn(table, users)
    game = playing(table)
    seat_id = game.deadline_seat
    version = Table.objects.get(pk=table.pk).version
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - datetime.timedelta(seconds=1))
    # Another transaction holds the table (a sweep whose worker died, another player's
    # command) while the move comes: the move must wait for it, not skip the check for
    # an overdue decision.
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                Table.objects.select_for_update().get(pk=table.pk)
                held.set()
                release.wait(30)
        finally:
            connections.close_all()

    answers: list[Any] = []

    def mover() -> None:
        try:
            fresh = Table.objects.get(pk=table.pk)
            move = {"action": "bet", "amount": 10}
            answers.append(
                commands.command_run(
                    user=player,
                    table=fresh,
                    client_id="late",
                    run=lambda: moves.game_act(
                        table=fresh, player=player, action=move, version=version
                    ),
                )
            )
        except errors.PlayError as refusal:
            answers.append(refusal)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=holder), threading.Thread(target=mover)]
    threads[0].start()
    assert held.wait(30)
    threads[1].start()
    for _ in range(600):  # until the move waits for the table's lock
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                break
        threads[1].join(0.05)
    release.set()
    for thread in threads:
        thread.join(30)

    [answer] = answers
    assert isinstance(answer, errors.PlayError) and answer.code == "stale_version", answer
    game.refresh_from_db()
    assert game.actions == [{"seat": seat_id, "action": "timeout"}]
    assert Table.objects.get(pk=table.pk).version == version + 1
    assert conservation_holds()
