"""Channels test clients for the live-table WebSocket (session cookies, raw frames)."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from tests.contract.frames import assert_table_frame
from tests.contract.lobby_frames import LobbyCommunicator


def session_cookie(user: Any) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


class TableClient:
    """One WebSocket connection to a table; keeps every raw frame it received."""

    def __init__(self, table_id: int, cookie: bytes | None = None, query: str = "") -> None:
        headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
        if cookie:
            headers.append((b"cookie", cookie))
        path = f"/ws/tables/{table_id}/" + (f"?{query}" if query else "")
        self.comm = WebsocketCommunicator(application, path, headers=headers)
        self.raw: list[str] = []
        self.frames: list[dict[str, Any]] = []
        self.counter = 0

    @classmethod
    async def open(cls, table_id: int, user: Any = None, query: str = "") -> TableClient:
        cookie = await database_sync_to_async(session_cookie)(user) if user else None
        client = cls(table_id, cookie, query)
        connected, _ = await client.comm.connect()
        assert connected
        return client

    async def recv(self, timeout: float = 5) -> dict[str, Any]:
        """The next frame, checked against the protocol's definition of it."""
        text = await self.comm.receive_from(timeout=timeout)
        self.raw.append(text)
        message = assert_table_frame(text)
        self.frames.append(message)
        return message

    async def recv_until(self, predicate, timeout: float = 5, limit: int = 200) -> dict[str, Any]:
        for _ in range(limit):
            message = await self.recv(timeout)
            if predicate(message):
                return message
        raise AssertionError("no such frame")

    async def drain(self, timeout: float = 0.2) -> list[dict[str, Any]]:
        got = []
        while True:
            try:
                text = await self.comm.receive_from(timeout=timeout)
            except Exception:
                return got
            # Outside the `try`: a frame the protocol does not describe fails the test.
            self.raw.append(text)
            got.append(assert_table_frame(text))
            self.frames.append(got[-1])

    async def send(self, message: dict[str, Any]) -> None:
        await self.comm.send_to(text_data=json.dumps(message))

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a command with a fresh id and wait for its ack or error."""
        self.counter += 1
        cid = f"c{self.counter}"
        await self.send({"type": kind, "id": cid, **fields})
        return await self.recv_until(lambda m: m.get("id") == cid and m["type"] in ("ack", "error"))

    async def close(self) -> None:
        await self.comm.disconnect()


HEADERS = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


async def lobby(
    user: Any, *extra: tuple[bytes, bytes], cookie_extra: str = "", query: str = ""
) -> Any:
    """A signed-in lobby socket (`query`: its URL's query string), its first table list
    read."""
    cookie = await database_sync_to_async(session_cookie)(user)
    comm = LobbyCommunicator(
        application,
        "/ws/lobby/" + (f"?{query}" if query else ""),
        headers=[*HEADERS, (b"cookie", cookie + cookie_extra.encode()), *extra],
    )
    assert (await comm.connect())[0]
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "lobby"
    return comm


async def lobby_answer(comm: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send a lobby message; its answer (`table_opened` or `error`), skipping the table
    lists pushed meanwhile."""
    await comm.send_json_to(message)
    for _ in range(20):
        answer = await comm.receive_json_from(timeout=5)
        if answer["type"] not in (
            "lobby",
            "table_added",
            "table_changed",
            "table_removed",
            "lobby_counts",
        ):
            return answer
    raise AssertionError("no answer")


async def frames_until_quiet(sockets: Any) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """What the sockets received until each was quiet for 0.2 s: how many frames of each
    type, and the errors among them. (A socket: `.comm`, a communicator, and `.recv()`.)"""
    kinds: dict[str, int] = {}
    errors: list[dict[str, Any]] = []
    for socket in sockets:
        while not await socket.comm.receive_nothing(timeout=0.2):
            message = await socket.recv()
            kinds[message["type"]] = kinds.get(message["type"], 0) + 1
            if message["type"] == "error":
                errors.append(message)
    return kinds, errors
