"""Personal access tokens on the sockets' handshake (docs/protocol.md §2.2.1): a token
signs the socket in with its scopes, without an Origin header (a program sends none); a
bad one, or one in the URL, is refused; a revoked token's open sockets are closed as an
ended session's are (4440)."""

from __future__ import annotations

import itertools
import json
import os
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts import tokens
from accounts.models import AccessTokenEvent, User
from config.asgi import application
from tables import services
from tables.models import Table
from tests.conftest import reset_throttle_counts
from tests.contract.frames import assert_table_frame
from tests.contract.lobby_frames import assert_lobby_frame

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

_ADDRESSES = itertools.count(1)


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    reset_throttle_counts()


def fresh_address() -> str:
    n = next(_ADDRESSES) + 1000 * (os.getpid() % 200)
    return f"127.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"


class Bot:
    """A program's socket: an Authorization header, no Origin, no cookie."""

    def __init__(self, path: str, secret: str | None, address: str) -> None:
        self.path = path
        headers = [(b"host", b"localhost")]
        if secret is not None:
            headers.append((b"authorization", f"Bearer {secret}".encode()))
        self.comm = WebsocketCommunicator(application, path, headers=headers)
        self.comm.scope["client"] = (address, 50_000)

    @classmethod
    async def open(cls, path: str, secret: str | None, address: str | None = None) -> Bot:
        bot = cls(path, secret, address or fresh_address())
        connected, _ = await bot.comm.connect()
        assert connected
        return bot

    def _checked(self, text: str) -> dict[str, Any]:
        """Every frame a program gets fits the protocol's definitions (tests/contract)."""
        if self.path.startswith("/ws/lobby/"):
            frame = dict(json.loads(text))
            assert_lobby_frame(frame)
            return frame
        return assert_table_frame(text)

    async def recv(self) -> dict[str, Any]:
        output = await self.comm.receive_output(timeout=5)
        assert output["type"] == "websocket.send", output
        return self._checked(output["text"])

    async def frames_then_close(self) -> tuple[list[dict[str, Any]], int]:
        frames = []
        while True:
            output = await self.comm.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                return frames, int(output["code"])
            frames.append(self._checked(output["text"]))

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.comm.send_to(text_data=json.dumps(message))
        while True:
            frame = await self.recv()
            if frame.get("id") == message["id"] and frame["type"] in ("ack", "error"):
                return frame

    async def close(self) -> None:
        await self.comm.disconnect()


@database_sync_to_async
def token_of(username: str, scopes: list[str]) -> tuple[User, Any, str]:
    user = User.objects.create_user(username=username, password="x-correct-9")
    token, secret = tokens.token_create(user=user, name="bot", scopes=scopes)
    return user, token, secret


@database_sync_to_async
def a_table() -> Table:
    return services.table_create(variant="classic", name="bots")


async def test_a_token_with_play_sits_at_a_table_without_an_origin_header():
    table = await a_table()
    user, _token, secret = await token_of("player-bot", ["read", "play"])
    bot = await Bot.open(f"/ws/tables/{table.pk}/", secret)
    snapshot = await bot.recv()
    assert snapshot["type"] == "snapshot"
    answer = await bot.answer({"type": "sit", "id": "s1"})
    assert answer["type"] == "ack", answer
    assert await database_sync_to_async(table.seats.filter(player=user).exists)()
    await bot.close()


async def test_a_token_without_play_is_refused_a_command_with_scope_missing():
    table = await a_table()
    user, _token, secret = await token_of("watcher-bot", ["read"])
    bot = await Bot.open(f"/ws/tables/{table.pk}/", secret)
    assert (await bot.recv())["type"] == "snapshot"
    answer = await bot.answer({"type": "sit", "id": "s1"})
    assert answer["type"] == "error" and answer["code"] == "scope_missing"
    assert "play" in answer["message"] and answer["id"] == "s1"
    assert not await database_sync_to_async(table.seats.filter(player=user).exists)()
    chat = await bot.answer({"type": "chat", "id": "c1", "text": "hello"})
    assert chat["code"] == "scope_missing" and "chat" in chat["message"]
    await bot.close()


async def test_the_lobby_takes_a_read_token_and_refuses_it_open_table():
    _user, _token, secret = await token_of("lobby-bot", ["read"])
    bot = await Bot.open("/ws/lobby/", secret)
    assert (await bot.recv())["type"] == "lobby"
    answer = await bot.answer({"type": "open_table", "id": "o1", "variant": "classic"})
    assert answer["code"] == "scope_missing" and "play" in answer["message"]
    await bot.close()


async def test_a_token_without_read_is_refused_at_the_handshake_with_4403():
    _user, _token, secret = await token_of("blind-bot", ["play"])
    bot = await Bot.open("/ws/lobby/", secret)
    frames, code = await bot.frames_then_close()
    assert code == 4403 and [f["code"] for f in frames] == ["scope_missing"]


async def test_a_bad_token_is_refused_with_4401_not_watched_anonymously():
    table = await a_table()
    user, token, secret = await token_of("gone-bot", ["read", "play"])
    await database_sync_to_async(tokens.token_revoke)(token=token, by=user)
    for path in (f"/ws/tables/{table.pk}/", "/ws/lobby/"):
        for given in (secret, "t21_unknown"):
            bot = await Bot.open(path, given)
            frames, code = await bot.frames_then_close()
            assert code == 4401
            assert [f["code"] for f in frames] == ["bad_token"]
    assert ("version" in frames[0]) is False  # the lobby's frames carry none
    refused = await database_sync_to_async(
        AccessTokenEvent.objects.filter(kind="refused", detail="bad_token").count
    )()
    assert refused == 4


async def test_a_token_in_the_query_string_is_refused_with_4401_and_not_used():
    table = await a_table()
    _user, _token, secret = await token_of("url-bot", ["read", "play"])
    for query in (f"token={secret}", f"access_token={secret}", f"invite={secret}"):
        bot = await Bot.open(f"/ws/tables/{table.pk}/?{query}", None)
        frames, code = await bot.frames_then_close()
        assert code == 4401
        assert [f["code"] for f in frames] == ["token_in_url"]
        assert frames[0]["version"] is None


async def test_revoking_a_token_closes_its_open_sockets_with_4440():
    table = await a_table()
    user, token, secret = await token_of("revoked-bot", ["read", "play"])
    _other, _other_token, other_secret = await token_of("kept-bot", ["read", "play"])
    at_table = await Bot.open(f"/ws/tables/{table.pk}/", secret)
    assert (await at_table.recv())["type"] == "snapshot"
    in_lobby = await Bot.open("/ws/lobby/", secret)
    assert (await in_lobby.recv())["type"] == "lobby"
    kept = await Bot.open("/ws/lobby/", other_secret)
    assert (await kept.recv())["type"] == "lobby"
    await database_sync_to_async(tokens.token_revoke)(token=token, by=user)
    for socket in (at_table, in_lobby):
        frames, code = await socket.frames_then_close()
        assert code == 4440
        assert [f["code"] for f in frames if f["type"] == "error"] == ["session_ended"]
    assert await kept.comm.receive_nothing(timeout=0.3)
    await kept.close()


async def test_a_revoked_tokens_socket_that_missed_the_note_cannot_act():
    table = await a_table()
    _user, token, secret = await token_of("quiet-revoke", ["read", "play"])
    bot = await Bot.open(f"/ws/tables/{table.pk}/", secret)
    assert (await bot.recv())["type"] == "snapshot"
    # Revoked behind the channel layer's back (no note sent).
    await database_sync_to_async(
        lambda: type(token).objects.filter(pk=token.pk).update(revoked_at="2026-01-01T00:00Z")
    )()
    answer = await bot.answer({"type": "sit", "id": "s1"})
    assert answer["code"] == "session_ended"
    _frames, code = await bot.frames_then_close()
    assert code == 4440


async def test_an_address_past_its_refused_tokens_is_closed_with_4429(settings):
    settings.BEARER_FAILURES_PER_HOUR = 2
    _user, _token, secret = await token_of("throttled-bot", ["read"])
    address = fresh_address()
    for _ in range(2):
        bot = await Bot.open("/ws/lobby/", "t21_guess", address)
        assert (await bot.frames_then_close())[1] == 4401
    bot = await Bot.open("/ws/lobby/", secret, address)
    frames, code = await bot.frames_then_close()
    assert code == 4429 and [f["code"] for f in frames] == ["rate_limited"]
    assert frames[0]["limit"] == "bad_tokens" and 1 <= frames[0]["retry_after"] <= 3600
    elsewhere = await Bot.open("/ws/lobby/", secret)
    assert (await elsewhere.recv())["type"] == "lobby"
    await elsewhere.close()


async def test_a_handshake_without_a_token_still_needs_our_origin():
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"host", b"x")])
    connected, _ = await communicator.connect()
    assert not connected


@database_sync_to_async
def a_table_with_a_chat_message() -> Table:
    from chat import services as chat_services

    table = services.table_create(variant="classic", name="talk")
    author = User.objects.create_user(username="talker", password="x-correct-9")
    chat_services.message_post(table_id=table.pk, author=author, text="Привет")
    return table


@pytest.mark.parametrize(("scopes", "can_write"), [(["read"], False), (["read", "chat"], True)])
async def test_the_chat_history_says_a_token_may_write_only_with_the_chat_scope(
    scopes: list[str], can_write: bool
) -> None:
    table = await a_table_with_a_chat_message()
    _user, _token, secret = await token_of(f"reader-{len(scopes)}", scopes)
    bot = await Bot.open(f"/ws/tables/{table.pk}/", secret)
    assert (await bot.recv())["type"] == "snapshot"
    history = await bot.recv()
    assert history["type"] == "chat_history" and history["messages"][0]["text"] == "Привет"
    assert history["can_write"] is can_write
    await bot.close()
