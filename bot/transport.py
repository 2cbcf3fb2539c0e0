"""How the bot reaches a server: a WebSocket per table (and the lobby's), and HTTP GETs
of JSON, each signed in by a personal access token (`Authorization: Bearer <token>` on
the handshake and on every request) and sending the site's `Origin` (§2.3).

`Transport` and `Socket` are what the bot needs; `WebTransport` is the real one
(`websockets` for the sockets, `urllib` for HTTP). The tests give the bot one of their
own that drives the ASGI application in process.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any, Protocol
from urllib.parse import urlsplit


class Closed(Exception):
    """The socket closed: `code` is its close code (1006 when none came)."""

    def __init__(self, code: int, reason: str = "") -> None:
        super().__init__(f"closed with {code}" + (f": {reason}" if reason else ""))
        self.code = code


class Socket(Protocol):
    async def send(self, text: str) -> None: ...

    async def recv(self) -> str:
        """The next text frame; raises `Closed` once the socket is closed."""
        ...

    async def close(self) -> None: ...


class Transport(Protocol):
    async def table(self, table_id: int) -> Socket: ...

    async def lobby(self, query: str = "") -> Socket: ...

    async def get_json(self, path: str) -> tuple[int, Any]:
        """(HTTP status, decoded JSON body or None) of a GET of `path`, no redirect
        followed."""
        ...


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class WebSocketConnection:
    def __init__(self, connection: Any) -> None:
        self._connection = connection

    async def send(self, text: str) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            await self._connection.send(text)
        except ConnectionClosed as closed:
            raise _closed(closed) from None

    async def recv(self) -> str:
        from websockets.exceptions import ConnectionClosed

        try:
            message = await self._connection.recv()
        except ConnectionClosed as closed:
            raise _closed(closed) from None
        return message if isinstance(message, str) else message.decode()

    async def close(self) -> None:
        await self._connection.close()


def _closed(closed: Any) -> Closed:
    frame = closed.rcvd
    return Closed(frame.code, frame.reason) if frame is not None else Closed(1006)


class WebTransport:
    """The server at `base_url` (`http://127.0.0.1:8000`, `https://example.com`).

    `token` is a personal access token (§2.2.1) with the scopes `read` and `play`.
    """

    def __init__(self, base_url: str, token: str) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not an http(s) address: {base_url!r}")
        self.base_url = f"{parts.scheme}://{parts.netloc}"
        self.ws_url = f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}"
        # A handshake with a token needs no Origin (§2.2.1); the site's own is sent all
        # the same, for a server that would check it.
        self.headers = {"Authorization": f"Bearer {token}"}
        self._opener = urllib.request.build_opener(_NoRedirect)

    async def _open(self, path: str) -> Socket:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        try:
            connection = await connect(
                self.ws_url + path,
                origin=self.base_url,  # type: ignore[arg-type]
                additional_headers=self.headers,
                open_timeout=10,
            )
        except InvalidStatus as refused:
            # A refused handshake (403: the Origin, or the token) never opens (§2.3).
            raise Closed(4403, f"handshake refused: HTTP {refused.response.status_code}") from None
        except OSError as error:
            raise Closed(1006, str(error)) from None
        return WebSocketConnection(connection)

    async def table(self, table_id: int) -> Socket:
        return await self._open(f"/ws/tables/{table_id}/")

    async def lobby(self, query: str = "") -> Socket:
        return await self._open("/ws/lobby/" + (f"?{query}" if query else ""))

    async def get_json(self, path: str) -> tuple[int, Any]:
        return await asyncio.to_thread(self._get_json, path)

    def _get_json(self, path: str) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.base_url + path, headers={**self.headers, "Accept": "application/json"}
        )
        try:
            with self._opener.open(request, timeout=10) as answer:
                status, body = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
        try:
            return status, json.loads(body)
        except ValueError:
            return status, None
