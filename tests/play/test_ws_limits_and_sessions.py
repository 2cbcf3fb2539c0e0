"""Sockets per user and per client address (close code 4430), the anonymous sockets'
shared message budget per address, and a socket that acts only while its session stands
(close code 4440, error `session_ended`): docs/protocol.md §2.4, §3.

Real sockets through the whole ASGI application, with real session cookies (a signed-in
Django test client's), on both kinds of socket."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client

from accounts.models import User
from config.asgi import application
from play.edge import connections
from play.edge import sockets as play_sockets
from tables import services
from tables.models import Table
from tests.conftest import reset_throttle_counts
from tests.contract.frames import assert_table_frame
from tests.contract.lobby_frames import communicator as communicator_for
from tests.play.ws_helpers import frames_until_quiet

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    # The socket counts are keyed by user id, which a new test database gives out again,
    # and live in the cache (Redis under REDIS_URL), which outlives a run by two minutes.
    reset_throttle_counts()


PASSWORD = "correct-horse-9"
# Every test's sockets come from addresses of their own: the counts live in the shared
# cache (Redis under REDIS_URL), which outlives a test.
_ADDRESSES = itertools.count(1)


def fresh_address() -> str:
    n = next(_ADDRESSES) + 1000 * (os.getpid() % 200)
    return f"127.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"


class Socket:
    """One socket, opened from a given client address (the scope's client, as daphne
    sets it from the peer or, with --proxy-headers, from X-Forwarded-For)."""

    def __init__(self, path: str, address: str, cookie: str | None) -> None:
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        if cookie:
            headers.append((b"cookie", f"sessionid={cookie}".encode()))
        self.comm = communicator_for(application, path, headers=headers)
        self.at_table = path.startswith("/ws/tables/")
        # Before the application first runs (it starts at the first await).
        self.comm.scope["client"] = (address, 50_000)
        self.counter = 0

    @classmethod
    async def open(cls, path: str, address: str, cookie: str | None = None) -> Socket:
        socket = cls(path, address, cookie)
        connected, _ = await socket.comm.connect()
        assert connected  # accepted first, so that a refusal has a close code
        return socket

    async def recv(self) -> dict[str, Any]:
        output = await self.comm.receive_output(timeout=5)
        assert output["type"] == "websocket.send", output
        return self._frame(output["text"])

    def _frame(self, text: str) -> dict[str, Any]:
        """A table's frame is checked against the protocol's definition of it."""
        return assert_table_frame(text) if self.at_table else dict(json.loads(text))

    async def closed_with(self) -> int:
        """The close code, after any frames before it."""
        while True:
            output = await self.comm.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                return int(output["code"])

    async def frames_then_close(self) -> tuple[list[dict[str, Any]], int]:
        frames = []
        while True:
            output = await self.comm.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                return frames, int(output["code"])
            frames.append(self._frame(output["text"]))

    async def send(self, message: dict[str, Any]) -> None:
        await self.comm.send_to(text_data=json.dumps(message))

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.counter += 1
        cid = f"c{self.counter}"
        await self.send({"type": kind, "id": cid, **fields})
        while True:
            message = await self.recv()
            if message.get("id") == cid and message["type"] in ("ack", "error"):
                return message

    async def close(self) -> None:
        await self.comm.disconnect()


@database_sync_to_async
def signed_in(username: str) -> tuple[User, Client]:
    """A user and a browser signed in as them through the real sign-in form."""
    user = User.objects.create_user(
        username=username, password=PASSWORD, email=f"{username}@example.com"
    )
    browser = Client()
    assert browser.post("/login/", {"username": username, "password": PASSWORD}).status_code == 302
    return user, browser


def cookie(browser: Client) -> str:
    return str(browser.cookies["sessionid"].value)


@database_sync_to_async
def a_table(variant: str = "classic") -> Table:
    return services.table_create(variant=variant, name=variant)


async def table_socket(table: Table, address: str, browser: Client | None = None) -> Socket:
    socket = await Socket.open(
        f"/ws/tables/{table.pk}/", address, cookie(browser) if browser else None
    )
    assert (await socket.recv())["type"] == "snapshot"
    return socket


async def lobby_socket(browser: Client, address: str) -> Socket:
    socket = await Socket.open("/ws/lobby/", address, cookie(browser))
    assert (await socket.recv())["type"] == "lobby"
    return socket


async def refused_for_too_many(
    path: str, address: str, browser: Client | None = None, limit: str = ""
) -> dict:
    """The refusal of a socket over a count: `limit` is the count's key (by default the
    user's for a signed-in socket, else the address's)."""
    socket = await Socket.open(path, address, cookie(browser) if browser else None)
    frames, code = await socket.frames_then_close()
    assert code == play_sockets.CLOSE_TOO_MANY_CONNECTIONS == 4430
    (refusal,) = frames
    assert refusal["type"] == "error" and refusal["code"] == "too_many_connections"
    assert refusal["limit"] == (limit or ("user_sockets" if browser else "address_sockets"))
    # At most until the counts' next window, when sockets no longer open drop out.
    assert 1 <= refusal["retry_after"] <= connections.WINDOW_SECONDS
    return dict(refusal)


# --- sockets per user and per address ----------------------------------------------------


async def test_an_eleventh_socket_of_one_user_is_refused_with_4430_lobby_and_tables_together():
    assert settings.WS_CONNECTIONS_PER_USER == 10
    table = await a_table()
    _user, browser = await signed_in("many")
    # Ten, of both kinds, from two addresses (the user's count is over all of them).
    sockets = [await lobby_socket(browser, fresh_address()) for _ in range(5)]
    sockets += [await table_socket(table, fresh_address(), browser) for _ in range(5)]
    refusal = await refused_for_too_many(f"/ws/tables/{table.pk}/", fresh_address(), browser)
    assert "10" in refusal["message"] and refusal["version"] is None
    refusal = await refused_for_too_many("/ws/lobby/", fresh_address(), browser)
    assert "version" not in refusal
    # Another user is not affected; and once one of the ten closes, there is room again.
    _other, other_browser = await signed_in("other")
    other = await lobby_socket(other_browser, fresh_address())
    await sockets.pop().close()
    sockets.append(await table_socket(table, fresh_address(), browser))
    for socket in [*sockets, other]:
        await socket.close()


async def test_a_fifty_first_socket_from_one_address_is_refused_with_4430():
    assert settings.WS_CONNECTIONS_PER_ADDRESS == 50
    table = await a_table()
    address = fresh_address()
    sockets = [await table_socket(table, address) for _ in range(50)]  # anonymous
    refusal = await refused_for_too_many(f"/ws/tables/{table.pk}/", address)
    assert "50" in refusal["message"] and "адреса" in refusal["message"]
    # A signed-in user from that address is refused too: the address is full.
    _user, browser = await signed_in("behind-the-same-nat")
    await refused_for_too_many("/ws/lobby/", address, browser, limit="address_sockets")
    # Another address is not.
    elsewhere = await table_socket(table, fresh_address())
    for socket in [*sockets, elsewhere]:
        await socket.close()


async def test_sockets_a_crashed_process_left_counted_stop_counting_within_two_windows(
    monkeypatch: pytest.MonkeyPatch,
):
    """A process that dies never closes its sockets: their places stay in the counts.
    They stop renewing, so two windows later they count no more."""
    clock = [1_000_000.0]
    monkeypatch.setattr(connections, "time", SimpleNamespace(time=lambda: clock[0]))
    table = await a_table()
    address = fresh_address()
    user, browser = await signed_in("crashed")
    for _ in range(settings.WS_CONNECTIONS_PER_USER):  # what the dead process left
        counted, _over = await database_sync_to_async(connections.connection_open)(
            user_id=user.pk, address=None
        )
        assert counted is not None
    refusal = await refused_for_too_many(f"/ws/tables/{table.pk}/", address, browser)
    # 1,000,000 s is 20 s before a minute's window ends (1,000,020 = 16,667 × 60).
    assert refusal["retry_after"] == 20
    clock[0] += refusal["retry_after"]
    refusal = await refused_for_too_many(f"/ws/tables/{table.pk}/", address, browser)
    assert refusal["retry_after"] == connections.WINDOW_SECONDS
    clock[0] += refusal["retry_after"]
    socket = await table_socket(table, address, browser)
    await socket.close()


async def test_a_socket_that_stays_open_renews_its_place_in_each_new_window(
    monkeypatch: pytest.MonkeyPatch,
):
    """The windows pass while a socket stays open: it counts itself in each new one, so
    it still counts two windows on; closed, it counts no more."""
    start = 3_000_000.0 * connections.WINDOW_SECONDS
    clock = [start - 0.05]  # just before a window ends
    monkeypatch.setattr(connections, "time", SimpleNamespace(time=lambda: clock[0]))
    monkeypatch.setattr(play_sockets, "RENEW_SPREAD_SECONDS", 0.0)
    monkeypatch.setattr(settings, "WS_CONNECTIONS_PER_ADDRESS", 1)
    table = await a_table()
    address = fresh_address()
    socket = await table_socket(table, address)
    clock[0] = start + 0.01  # the next window: the socket's renewal falls in it
    renewed = connections._counter(f"addr:{address}", connections.window(start))
    for _ in range(1000):  # waits for the renewal to land (not a timing assertion)
        if await database_sync_to_async(cache.get)(renewed):
            break
        await asyncio.sleep(0.01)
    clock[0] = start + connections.WINDOW_SECONDS + 1  # a window on: counted by renewal
    await refused_for_too_many(f"/ws/tables/{table.pk}/", address)
    await socket.close()
    again = await table_socket(table, address)
    await again.close()


# --- the anonymous sockets' budget per address -------------------------------------------


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    clock = SimpleNamespace(monotonic=lambda: now[0], time=lambda: now[0])
    monkeypatch.setattr(play_sockets, "time", clock)
    return now


async def test_anonymous_sockets_of_one_address_share_one_message_budget(frozen_clock):
    """Two anonymous sockets of one address, each within its own burst, together exceed
    the address's budget: only ADDRESS_RATE_PER_SECOND messages in the second are read."""
    table = await a_table()
    address = fresh_address()
    sockets = [await table_socket(table, address) for _ in range(2)]
    assert 2 * play_sockets.BURST > play_sockets.ADDRESS_RATE_PER_SECOND >= play_sockets.BURST
    for socket in sockets:
        for _ in range(play_sockets.BURST):
            await socket.send({"type": "ping"})
    kinds, limited = await frames_until_quiet(sockets)
    assert kinds["pong"] == play_sockets.ADDRESS_RATE_PER_SECOND
    assert limited and {m["code"] for m in limited} == {"rate_limited"}
    assert all("с вашего адреса" in m["message"] for m in limited)
    assert {(m["limit"], m["retry_after"]) for m in limited} == {("address_messages", 1)}
    # Another address is not affected, and the next second the budget is back.
    elsewhere = await table_socket(table, fresh_address())
    await elsewhere.send({"type": "ping"})
    assert (await elsewhere.recv())["type"] == "pong"
    frozen_clock[0] += 1.0
    await sockets[0].send({"type": "ping"})
    assert (await sockets[0].recv())["type"] == "pong"
    for socket in [*sockets, elsewhere]:
        await socket.close()


# --- a socket acts only while its session stands -----------------------------------------


async def test_a_socket_opened_before_logout_is_closed_with_4440_and_so_is_the_lobby():
    table = await a_table()
    _user, browser = await signed_in("leaver")
    _user2, other_browser = await signed_in("stayer")
    at_table = await table_socket(table, fresh_address(), browser)
    in_lobby = await lobby_socket(browser, fresh_address())
    stays = await table_socket(table, fresh_address(), other_browser)
    assert (await at_table.command("sit"))["type"] == "ack"
    assert (await database_sync_to_async(browser.post)("/logout/")).status_code == 302
    for socket in (at_table, in_lobby):
        frames, code = await socket.frames_then_close()
        assert code == play_sockets.CLOSE_SESSION_ENDED == 4440
        assert [f["code"] for f in frames if f["type"] == "error"] == ["session_ended"]
    # Another user's socket is left alone.
    await stays.send({"type": "ping"})
    while (await stays.recv())["type"] != "pong":  # (the sit's update and presence first)
        pass
    for socket in (at_table, in_lobby, stays):
        await socket.close()


async def test_a_second_browser_signing_out_leaves_the_first_browsers_sockets_open():
    table = await a_table()
    _user, browser = await signed_in("two-browsers")
    second = Client()
    assert (
        await database_sync_to_async(second.post)(
            "/login/", {"username": "two-browsers", "password": PASSWORD}
        )
    ).status_code == 302
    socket = await table_socket(table, fresh_address(), browser)
    await database_sync_to_async(second.post)("/logout/")
    assert (await socket.command("sit"))["type"] == "ack"
    await socket.close()


async def test_a_socket_whose_session_ended_unannounced_cannot_act_and_is_closed():
    """The session is gone without the note (expired and cleared, deleted by an admin):
    the next command is refused, nothing is applied, and the socket is closed."""
    table = await a_table()
    user, browser = await signed_in("expired")
    socket = await table_socket(table, fresh_address(), browser)
    await database_sync_to_async(Session.objects.filter(session_key=cookie(browser)).delete)()
    answer = await socket.command("sit")
    assert answer["type"] == "error" and answer["code"] == "session_ended"
    assert answer["id"] == "c1" and answer["message"]
    assert await socket.closed_with() == play_sockets.CLOSE_SESSION_ENDED
    seated = await database_sync_to_async(table.seats.filter(player=user).exists)()
    assert not seated
    await socket.close()


async def test_a_socket_opened_before_a_password_change_is_closed_and_cannot_act():
    table = await a_table()
    _user, browser = await signed_in("changer")
    socket = await table_socket(table, fresh_address(), browser)
    # The password changed on the site's own page, from another browser of the user.
    elsewhere = Client()
    await database_sync_to_async(elsewhere.post)(
        "/login/", {"username": "changer", "password": PASSWORD}
    )
    response = await database_sync_to_async(elsewhere.post)(
        "/password/change/",
        {
            "old_password": PASSWORD,
            "new_password1": "x9-brand-new",
            "new_password2": "x9-brand-new",
        },
    )
    assert response.status_code == 302
    frames, code = await socket.frames_then_close()
    assert code == play_sockets.CLOSE_SESSION_ENDED
    assert [f["code"] for f in frames if f["type"] == "error"] == ["session_ended"]
    # Whatever reaches it after that is refused: it cannot sit.
    answer = await socket.command("sit")
    assert answer["type"] == "error" and answer["code"] == "session_ended"
    assert not await database_sync_to_async(table.seats.exists)()
    # The browser that changed it is still signed in: its new socket acts.
    fresh = await table_socket(table, fresh_address(), elsewhere)
    assert (await fresh.command("sit"))["type"] == "ack"
    await fresh.close()
    await socket.close()


async def test_a_password_changed_without_the_note_still_stops_the_socket_acting():
    """A password set behind the models' back (a queryset update: no signal, no note):
    the check before the command refuses it all the same."""
    table = await a_table()
    user, browser = await signed_in("unnoticed")
    socket = await table_socket(table, fresh_address(), browser)
    await database_sync_to_async(User.objects.filter(pk=user.pk).update)(
        password=make_password("another-one-7")
    )
    answer = await socket.command("sit")
    assert answer["type"] == "error" and answer["code"] == "session_ended"
    assert await socket.closed_with() == play_sockets.CLOSE_SESSION_ENDED
    await socket.close()


async def test_a_lobby_socket_whose_session_ended_unannounced_cannot_open_a_table():
    _user, browser = await signed_in("lobbyist")
    socket = await lobby_socket(browser, fresh_address())
    await database_sync_to_async(Session.objects.filter(session_key=cookie(browser)).delete)()
    await socket.send({"type": "open_table", "variant": "classic"})
    frames, code = await socket.frames_then_close()
    assert code == play_sockets.CLOSE_SESSION_ENDED
    assert [f["code"] for f in frames] == ["session_ended"]
    assert not await database_sync_to_async(Table.objects.exists)()
    await socket.close()


# --- across processes, on Redis ----------------------------------------------------------


async def test_sockets_another_web_process_holds_count_against_the_user_on_redis(redis_url):
    """The counts are in Redis: what another process counted (here a real second Python
    process, which then exits without closing: as one that crashed) counts here."""
    table = await a_table()
    user, browser = await signed_in("two-processes")
    script = (
        "import django; django.setup()\n"
        "from play.edge import connections\n"
        f"for _ in range(10): assert connections.connection_open(user_id={user.pk},"
        " address=None)[0]\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=120)
    await refused_for_too_many(f"/ws/tables/{table.pk}/", fresh_address(), browser)


async def english(path: str, address: str, browser: Client) -> Socket:
    """A socket whose browser asks for English (Accept-Language), accepted (not yet read)."""
    socket = Socket(path, address, cookie(browser))
    socket.comm.scope["headers"] = [*socket.comm.scope["headers"], (b"accept-language", b"en")]
    assert (await socket.comm.connect())[0]
    return socket


async def english_open(path: str, address: str, browser: Client) -> Socket:
    """An English socket past its first frame (snapshot, lobby): in its groups by then."""
    socket = await english(path, address, browser)
    assert (await socket.recv())["type"] in ("snapshot", "lobby")
    return socket


async def test_a_refusal_for_too_many_sockets_is_in_the_connections_language(settings):
    settings.WS_CONNECTIONS_PER_USER = 1
    _user, browser = await signed_in("speaks-english")
    first = await lobby_socket(browser, fresh_address())
    frames, code = await (await english("/ws/lobby/", fresh_address(), browser)).frames_then_close()
    assert code == play_sockets.CLOSE_TOO_MANY_CONNECTIONS
    assert frames[0]["code"] == "too_many_connections"
    assert frames[0]["message"] == "Too many connections: at most 1 at once for one user."
    await first.close()


async def test_the_note_that_a_session_ended_is_in_the_connections_language():
    table = await a_table()
    _user, browser = await signed_in("leaves-in-english")
    at_table = await english_open(f"/ws/tables/{table.pk}/", fresh_address(), browser)
    in_lobby = await english_open("/ws/lobby/", fresh_address(), browser)
    assert (await database_sync_to_async(browser.post)("/logout/")).status_code == 302
    for socket in (at_table, in_lobby):
        frames, code = await socket.frames_then_close()
        assert code == play_sockets.CLOSE_SESSION_ENDED
        (note,) = [f for f in frames if f["type"] == "error"]
        assert note["code"] == "session_ended" and "id" not in note
        assert note["message"].startswith("Your session has ended"), note["message"]
