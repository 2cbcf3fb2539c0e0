"""The bot's transport in process: its sockets through the ASGI application (Channels'
WebsocketCommunicator), its HTTP GETs through Django's test client, both carrying one
user's personal access token (`Authorization: Bearer`) as the bot's real transport does:
no Origin, no cookie."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts import tokens
from bot.transport import Closed
from config.asgi import application
from play import wall
from play.clock.sweep import deadlines_sweep


class CommunicatorSocket:
    def __init__(self, comm: WebsocketCommunicator, transport: ChannelsTransport) -> None:
        self.comm = comm
        self.transport = transport
        self.closed: int | None = None

    async def send(self, text: str) -> None:
        if self.closed is not None:
            raise Closed(self.closed)
        await self.comm.send_to(text_data=text)
        if '"id"' in text:
            self.transport.commands_sent += 1
            if self.transport.commands_sent in self.transport.drop_after:
                # Sent, and lost before its answer came back.
                await self.comm.receive_nothing(0.2)
                await self.drop()

    async def recv(self) -> str:
        if self.closed is not None:
            raise Closed(self.closed)
        # A long timeout: the communicator cancels the application when one runs out,
        # and the bot waits with its own (a cancellation, which leaves it running).
        message = await self.comm.receive_output(timeout=3600)
        if message["type"] == "websocket.close":
            self.closed = message.get("code", 1000)
            raise Closed(self.closed)
        text: str = message.get("text") or message["bytes"].decode()
        if text.startswith('{"type":"update"') or text.startswith('{"type": "update"'):
            self.transport.updates_received += 1
            if self.transport.updates_received in self.transport.lose_updates:
                return await self.recv()  # lost on the way: the next frame shows a gap
        return text

    async def close(self) -> None:
        if self.closed is None:
            self.closed = 1000
            with contextlib.suppress(Exception):
                await self.comm.disconnect()

    async def drop(self) -> None:
        """The connection lost without a close frame, as a dead network loses it."""
        await self.close()
        self.closed = 1006


class ChannelsTransport:
    def __init__(
        self,
        user: Any,
        scopes: tuple[str, ...] = ("read", "play"),
        drop_after: frozenset[int] = frozenset(),
        secret: str | None = None,
        lose_updates: frozenset[int] = frozenset(),
    ) -> None:
        """`drop_after`: the connection is lost right after the bot's n-th command;
        `lose_updates`: the n-th updates never reach the bot."""
        self.lose_updates = lose_updates
        self.updates_received = 0
        self.user = user
        self.drop_after = drop_after
        self.commands_sent = 0
        self.scopes = scopes
        self.secret = secret
        self.sockets: list[CommunicatorSocket] = []
        self.gets: list[str] = []

    async def _open(self, path: str) -> CommunicatorSocket:
        secret = await self.token()
        headers = [(b"host", b"localhost"), (b"authorization", f"Bearer {secret}".encode())]
        comm = WebsocketCommunicator(application, path, headers=headers)
        connected, code = await comm.connect()
        if not connected:
            raise Closed(code or 1006)
        socket = CommunicatorSocket(comm, self)
        self.sockets.append(socket)
        return socket

    async def token(self) -> str:
        if self.secret is None:
            _token, self.secret = await database_sync_to_async(tokens.token_create)(
                user=self.user, name="bot", scopes=list(self.scopes)
            )
        return self.secret

    async def table(self, table_id: int) -> CommunicatorSocket:
        return await self._open(f"/ws/tables/{table_id}/")

    async def lobby(self, query: str = "") -> CommunicatorSocket:
        return await self._open("/ws/lobby/" + (f"?{query}" if query else ""))

    async def get_json(self, path: str) -> tuple[int, Any]:
        self.gets.append(path)
        return await database_sync_to_async(self._get)(path, await self.token())

    def _get(self, path: str, secret: str) -> tuple[int, Any]:
        answer = Client().get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")
        try:
            return answer.status_code, json.loads(answer.content)
        except ValueError:
            return answer.status_code, None


@contextlib.asynccontextmanager
async def clock() -> AsyncIterator[None]:
    """The server's sweep (AI seats, clocks, deals at `deal_at`, the interlude), run every
    50 ms as the ticker or beat would run it."""

    async def sweep_forever() -> None:
        while True:
            await database_sync_to_async(deadlines_sweep)(now=wall.now())
            await asyncio.sleep(0.05)

    task = asyncio.create_task(sweep_forever())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
