"""Issue 17, item 6: input that crashed a socket.

A NUL character in a table name killed the lobby socket with close 1011 on PostgreSQL
(the driver refuses the string before it reaches the server, with a ValueError nothing
caught). Every string a socket message carries is now refused with `bad_message` when it
holds a NUL, and the service refuses such a table name too (the admin, a script). And a
handler that meets a database error answers `unavailable` and the socket stays open.
These run on SQLite by default and on PostgreSQL with DATABASE_URL set, where the crash
was.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.exceptions import ValidationError
from django.db import DatabaseError, OperationalError
from django.urls import reverse

from config.asgi import application
from lobby import consumers as lobby_consumers
from lobby import services as lobby_services
from play.edge import consumers as play_consumers
from play.edge import sockets
from play.models import ClientCommand
from play.services import errors
from tables import services as tables_services
from tables.models import Table
from tests.contract.frames import assert_table_frame
from tests.contract.lobby_frames import communicator as communicator_for
from tests.play.ws_helpers import TableClient, lobby_answer, session_cookie
from tests.play.ws_helpers import lobby as lobby_socket


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_nul_in_a_table_name_over_the_lobby_socket_is_refused_and_the_socket_lives(
    make_user,
):
    user = await database_sync_to_async(make_user)()
    lobby = await lobby_socket(user)
    refused = await lobby_answer(
        lobby, {"type": "open_table", "variant": "classic", "name": "a\x00b"}
    )
    assert refused["type"] == "error" and refused["code"] == "bad_message"
    assert "'name'" in refused["message"] and "NUL" in refused["message"]
    assert not await database_sync_to_async(Table.objects.exists)()
    # The socket answers the next message: a table with a proper name is opened.
    opened = await lobby_answer(lobby, {"type": "open_table", "variant": "classic", "name": "ab"})
    assert opened["type"] == "table_opened"
    await lobby.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_nul_anywhere_in_a_lobby_message_is_refused_in_the_connections_language(
    make_user,
):
    user = await database_sync_to_async(make_user)()
    lobby = await lobby_socket(user, cookie_extra="; django_language=en")
    for message in (
        {"type": "open_\x00table"},
        {"type": "open_table", "variant": "clas\x00sic"},
        {"type": "open_table", "variant": "classic", "k\x00": 1},
    ):
        refused = await lobby_answer(lobby, message)
        assert refused["code"] == "bad_message", message
        assert "NUL" in refused["message"] and "Поле" not in refused["message"]
    assert (await lobby_answer(lobby, {"type": "hello"}))["code"] == "unknown_type"
    await lobby.disconnect()


@pytest.fixture
def open_table(make_user: Any) -> tuple[Table, Any]:
    host = make_user("host")
    table = tables_services.table_create(variant="banker36", name="Банк", stake=10, created_by=host)
    return table, host


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_nul_in_a_table_socket_command_is_refused_with_its_id_and_the_socket_lives(
    open_table,
):
    table, host = open_table
    client = await TableClient.open(table.pk, host)
    await client.recv_until(lambda m: m["type"] == "snapshot")
    for kind, fields in (
        ("sit", {"invite": "x\x00y"}),
        ("remove", {"seat": "\x00"}),
        ("add_ai", {"level": "ea\x00sy"}),
        ("client_seed", {"seed": "ab\x00"}),
        ("action", {"action": "st\x00and"}),
    ):
        refused = await client.command(kind, **fields)
        assert refused["type"] == "error" and refused["code"] == "bad_message", kind
        assert "NUL" in refused["message"] and refused["version"] is not None
    # An id with a NUL cannot be stored: refused, without an id to answer to.
    await client.send({"type": "sit", "id": "c\x00"})
    refused = await client.recv_until(lambda m: m["type"] == "error")
    assert refused["code"] == "bad_message" and "id" not in refused
    assert not await database_sync_to_async(ClientCommand.objects.exists)()
    # The socket still answers, and a proper command is applied.
    assert (await client.command("sit"))["type"] == "ack"
    await client.send({"type": "ping"})
    assert (await client.recv_until(lambda m: m["type"] == "pong"))["version"] is not None
    await client.close()


@pytest.mark.django_db
def test_the_service_refuses_a_table_name_with_a_nul(make_user):
    with pytest.raises(ValidationError) as refused:
        tables_services.table_create(variant="classic", name="a\x00b")
    assert "name" in refused.value.message_dict
    with pytest.raises(errors.PlayError) as opened:
        lobby_services.table_open(by=make_user(), variant="classic", name="a\x00b")
    assert opened.value.code == "bad_table"
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_a_staff_page_named_with_a_nul_is_not_found(client, make_user):
    client.force_login(make_user("boss", is_staff=True))
    assert client.get(reverse("stats_of", args=["a\x00b"])).status_code == 404


# --- a database error under a handler -------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_answers_a_database_error_unavailable_and_stays_open(
    make_user, monkeypatch, caplog
):
    user = await database_sync_to_async(make_user)()
    lobby = await lobby_socket(user)
    real = lobby_services.table_open_with
    failures = iter([OperationalError("the database went away")])

    def failing_once(**kwargs: Any) -> Table:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return real(**kwargs)

    monkeypatch.setattr(lobby_consumers, "table_open_with", failing_once)
    with caplog.at_level("ERROR", logger="play.edge.sockets"):
        refused = await lobby_answer(lobby, {"type": "open_table", "variant": "classic"})
    assert refused["type"] == "error" and refused["code"] == "unavailable"
    assert refused["message"] and "id" not in refused and "version" not in refused
    assert any(r.exc_info and r.name == "play.edge.sockets" for r in caplog.records)
    opened = await lobby_answer(lobby, {"type": "open_table", "variant": "classic"})
    assert opened["type"] == "table_opened"
    await lobby.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_table_socket_request_that_meets_a_database_error_is_answered_unavailable(
    open_table, monkeypatch, caplog
):
    table, host = open_table
    client = await TableClient.open(table.pk, host)
    snapshot = await client.recv_until(lambda m: m["type"] == "snapshot")

    def broken(self: Any) -> None:
        raise DatabaseError("could not read the table")

    monkeypatch.setattr(play_consumers.TableConsumer, "_snapshot", broken)
    with caplog.at_level("ERROR", logger="play.edge.sockets"):
        await client.send({"type": "snapshot"})
        refused = await client.recv_until(lambda m: m["type"] == "error")
    assert refused["code"] == "unavailable" and refused["version"] == snapshot["version"]
    assert any(r.exc_info and r.name == "play.edge.sockets" for r in caplog.records)
    monkeypatch.undo()
    await client.send({"type": "snapshot"})
    assert (await client.recv_until(lambda m: m["type"] == "snapshot"))["table"]
    await client.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_when_even_the_version_cannot_be_read_the_refusal_still_comes(
    open_table, monkeypatch
):
    """The table socket's frames carry the table's version, read from the database: when
    that read fails too, `unavailable` comes with a null version, and the socket lives."""
    table, host = open_table
    client = await TableClient.open(table.pk, host)
    await client.recv_until(lambda m: m["type"] == "snapshot")

    def broken(self: Any) -> None:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(play_consumers.TableConsumer, "_version_now", broken)
    await client.send({"type": "ping"})
    refused = await client.recv_until(lambda m: m["type"] == "error")
    assert refused["code"] == "unavailable" and refused["version"] is None
    monkeypatch.undo()
    await client.send({"type": "ping"})
    assert (await client.recv_until(lambda m: m["type"] == "pong"))["version"] is not None
    await client.close()


async def _refused_at_connect(path: str, user: Any) -> tuple[list[dict[str, Any]], int]:
    cookie = await database_sync_to_async(session_cookie)(user)
    communicator = communicator_for(
        application,
        path,
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost"), (b"cookie", cookie)],
    )
    assert (await communicator.connect())[0]
    frames = []
    while True:
        output = await communicator.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return frames, int(output["code"])
        text = output["text"]
        frames.append(
            assert_table_frame(text) if path.startswith("/ws/tables/") else json.loads(text)
        )


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_table_socket_whose_table_cannot_be_read_at_connect_is_told_and_closed_1013(
    open_table, monkeypatch, caplog
):
    """A database error while the socket opens (the table's lookup) killed the consumer
    with 1011 after it had accepted the socket: now `unavailable`, then 1013."""
    table, host = open_table

    async def broken(self: Any) -> None:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(play_consumers.TableConsumer, "_table", broken)
    with caplog.at_level("ERROR", logger="play.edge.sockets"):
        frames, code = await _refused_at_connect(f"/ws/tables/{table.pk}/", host)
    assert code == sockets.CLOSE_TRY_AGAIN_LATER == 1013
    assert [(f["code"], f["version"]) for f in frames] == [("unavailable", None)]
    assert any(r.exc_info and r.name == "play.edge.sockets" for r in caplog.records)


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_lobby_socket_whose_first_list_cannot_be_read_is_told_and_closed_1013(
    make_user, monkeypatch
):
    user = await database_sync_to_async(make_user)()

    async def broken(self: Any, user: Any) -> None:
        raise OperationalError("the database went away")

    monkeypatch.setattr(lobby_consumers.LobbyConsumer, "_listing", broken)
    frames, code = await _refused_at_connect("/ws/lobby/", user)
    assert code == 1013
    assert [f["code"] for f in frames] == ["unavailable"] and "id" not in frames[0]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_every_lobby_answer_carries_the_id_of_the_message_it_answers(make_user):
    """docs/protocol.md §14: `table_opened` and each error name the message's id."""
    user = await database_sync_to_async(make_user)()
    lobby = await lobby_socket(user)
    opened = await lobby_answer(lobby, {"type": "open_table", "id": "o-1", "variant": "classic"})
    assert opened["type"] == "table_opened" and opened["id"] == "o-1"
    for message, code in [
        ({"type": "open_table", "id": "o-2", "variant": "nope"}, "bad_table"),
        ({"type": "open_table", "id": "o-3", "variant": "classic", "foo": 1}, "bad_message"),
        ({"type": "open_table", "id": "o-4", "private": "yes"}, "bad_message"),
        ({"type": "hello", "id": "o-5"}, "unknown_type"),
    ]:
        refused = await lobby_answer(lobby, message)
        assert (refused["code"], refused.get("id")) == (code, message["id"]), refused
    untagged = await lobby_answer(lobby, {"type": "hello"})
    assert untagged["code"] == "unknown_type" and "id" not in untagged
    await lobby.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/tables/{table}/"])
async def test_a_socket_whose_session_cannot_be_read_is_told_unavailable_and_closed_1013(
    path, open_table, monkeypatch, caplog
):
    """The session and its user are read by channels' AuthMiddleware before any consumer
    exists: a database error there is answered by the middleware around the stack."""
    import channels.auth

    table, host = open_table

    async def broken(scope: Any) -> None:
        raise OperationalError("the database went away")

    monkeypatch.setattr(channels.auth, "get_user", broken)
    with caplog.at_level("ERROR", logger="play.edge.sockets"):
        frames, code = await _refused_at_connect(path.format(table=table.pk), host)
    assert code == 1013
    assert [f["code"] for f in frames] == ["unavailable"]
    assert ("version" in frames[0]) == ("tables" in path)
    assert any(r.exc_info for r in caplog.records)
