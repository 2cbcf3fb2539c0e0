"""WebSocket consumers: thin. They authenticate from the session, check a message's
shape, call one service, and send what it answers (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation.trans_real import parse_accept_lang_header

from accounts import sessions
from accounts.throttling import cache_count
from tables import broadcast, connections, services
from tables.broadcast import LOBBY_GROUP, table_group
from tables.forms import LobbyFilterForm
from tables.models import Game, Table
from tables.selectors import lobby_listing

logger = logging.getLogger(__name__)

# 4401 mirrors HTTP 401: the browser sees it as the close code (a refusal before accept
# would reach it only as a failed handshake, without a reason).
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_FLOODING = 4429
# The server could not open the socket for a database error: the standard "try again
# later" (RFC 6455), after an `unavailable` error.
CLOSE_TRY_AGAIN_LATER = 1013
# Over the sockets a user or a client address may hold open (settings
# WS_CONNECTIONS_PER_USER / WS_CONNECTIONS_PER_ADDRESS): next to 4429, the other limit.
CLOSE_TOO_MANY_CONNECTIONS = 4430
# The session the socket signed in with has ended (signed out, password changed): as
# HTTP's unofficial 440 "login time-out".
CLOSE_SESSION_ENDED = 4440

# A client frame above this many bytes is refused unread.
MAX_FRAME_BYTES = 4096
# Token bucket per connection: BURST messages at once, refilled at RATE per second.
RATE_PER_SECOND = 10.0
BURST = 20
# Refused messages in a row (over the limit) after which the socket is closed.
FLOOD_CLOSE_AFTER = 100
# Messages per second a signed-in user may send over all their sockets together (both
# kinds, every web process: counted in the shared cache, in fixed one-second windows), so
# that opening many sockets does not multiply the per-connection budget.
USER_RATE_PER_SECOND = 30
# The same for the anonymous sockets of one client address together (spectators: every
# `ping`, `snapshot` and `record` they send is read), so that opening many anonymous
# sockets does not multiply the per-connection budget either.
ADDRESS_RATE_PER_SECOND = 30
# A socket renews its place in the connection counts (tables.connections) within this
# many seconds after each window starts: spread, so that a process's sockets do not all
# write to the cache in the same instant.
RENEW_SPREAD_SECONDS = 10.0


def _language(scope: dict[str, Any]) -> str:
    """The connection's language: the switcher's cookie, then Accept-Language, then
    Russian — as the pages choose it (docs/decisions.md)."""
    supported = {code for code, _name in settings.LANGUAGES}
    cookie = scope.get("cookies", {}).get(settings.LANGUAGE_COOKIE_NAME)
    if cookie in supported:
        return str(cookie)
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    for code, _q in parse_accept_lang_header(accept):
        base = code.split("-")[0].lower()
        if base in supported:
            return base
    return str(settings.LANGUAGE_CODE)


# The consumers' database work. Channels runs it all in one thread by default
# (thread_sensitive): under load every command waited there for every other command's
# database round trips (make bench-live: that thread was busy all the time at 400
# players). On PostgreSQL it runs in CONSUMER_DATABASE_THREADS threads instead (a
# setting), each with its own connection from the pool; row locks (select_for_update)
# keep one writer per table, as they do between processes. Not more than two by
# default: more threads took the GIL from the event loop, which then fell behind reading
# the channel layer (lost updates). SQLite (embedded mode) keeps Channels' one thread:
# it allows one writer at a time anyway.
CONSUMER_DATABASE_THREADS = 2
_executor: ThreadPoolExecutor | None = None


def _database_threads() -> int:
    default = (
        CONSUMER_DATABASE_THREADS
        if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
        else 0
    )
    return int(getattr(settings, "CONSUMER_DATABASE_THREADS", default))


def _database(function: Callable[..., Any]) -> Any:
    """`database_sync_to_async(function)`, in the consumers' database threads."""
    global _executor
    threads = _database_threads()
    if threads <= 0:
        return database_sync_to_async(function)
    if _executor is None:
        _executor = ThreadPoolExecutor(threads, thread_name_prefix="consumer-db")
    return database_sync_to_async(function, thread_sensitive=False, executor=_executor)


def _address(scope: dict[str, Any]) -> str | None:
    """The client's address: the ASGI scope's client (daphne with --proxy-headers puts
    X-Forwarded-For there); None when the server does not know it (a Unix socket)."""
    client = scope.get("client")
    return str(client[0]) if client else None


def _error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}


def _count_message(key: str) -> int:
    """One more message in a (one-second) window, counted atomically in the cache."""
    return cache_count(key, timeout=5)


class SendsUntilGone:
    """A frame to a client that has just closed is dropped, not raised.

    A broadcast can reach a consumer after its client closed but before daphne has
    delivered the `websocket.disconnect`; daphne then raises autobahn's `Disconnected`
    from `send`. Raised, it kills the consumer, so `disconnect()` never runs and the
    player's presence lingers until its TTL (no `presence` frame, no reconnect grace).
    Dropped, the disconnect that is already queued runs the cleanup as usual."""

    async def send(self, *args: Any, **kwargs: Any) -> None:
        with contextlib.suppress(Disconnected):
            await super().send(*args, **kwargs)  # type: ignore[misc]


class DispatchesOnTheLoop:
    """Channels (4.2+) sends every message a consumer gets — each frame a table
    broadcasts, each client message — through `close_old_connections` in its one
    thread_sensitive thread before the handler runs, for consumers that use the ORM from
    the event loop. Ours never do: their database work runs through `_database`, whose
    threads close old connections around every call. Under load that hop per message
    queued every consumer behind that one thread (make bench-live: channels over their
    capacity, frames dropped)."""

    # Provided by the consumer (GuardedInput and the consumer's own `_send`).
    _send: Any
    scope: dict[str, Any]

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if message["type"] == "websocket.disconnect":
            await handler(message)
            return
        if message["type"] == "websocket.connect":
            try:
                await handler(message)
            except DatabaseError:
                # The socket cannot be served without its table (or its first list): it
                # is told so and closed with 1013, "try again later" — not left to die
                # with 1011 (docs/protocol.md §2.4).
                logger.exception("%s: connect failed on a database error", type(self).__name__)
                if not getattr(self, "accepted", False):
                    await self.accept()
                await self.send(text_data=_unavailable_at_connect(self.scope))
                await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        try:
            await handler(message)
        except DatabaseError:
            # The one place every client frame and every group message goes through: a
            # database error under any handler (a lost connection, a locked SQLite file)
            # is answered, not raised — raised, it killed the consumer and the socket
            # closed with 1011, with no answer and no disconnect() cleanup.
            logger.exception(
                "%s: %s failed on a database error", type(self).__name__, message["type"]
            )
            # A client's command is answered with its id; a group message has none.
            answering = message["type"] == "websocket.receive"
            await self._unavailable(getattr(self, "reading_id", None) if answering else None)

    async def accept(self, *args: Any, **kwargs: Any) -> None:
        await super().accept(*args, **kwargs)  # type: ignore[misc]
        self.accepted = True

    async def _unavailable(self, client_id: str | None) -> None:
        frame = _error(
            "unavailable",
            _unavailable_text(_language(self.scope)),
            **({"id": client_id} if client_id else {}),
        )
        try:
            await self._send(frame)
        except DatabaseError:
            # The table socket's frames carry the version it reads from the database:
            # when that read fails too, the refusal goes without it.
            await self._send({**frame, "version": None})


def _unavailable_at_connect(scope: dict[str, Any]) -> str:
    """The `unavailable` frame (JSON text) of a socket that could not be opened for a
    database error, in the connection's language; at a table with a null version (the
    table was not read). Sent by a consumer's connect and by ClosesOnDatabaseFaults, which
    runs before the cookie middleware has parsed the cookies."""
    if "cookies" not in scope:
        header = dict(scope.get("headers") or []).get(b"cookie", b"").decode("latin-1")
        scope = {**scope, "cookies": parse_cookie(header)}
    frame = _error("unavailable", _unavailable_text(_language(scope)))
    if str(scope.get("path", "")).startswith("/ws/tables/"):
        frame["version"] = None
    return json.dumps(frame, ensure_ascii=False)


def _unavailable_text(language: str) -> str:
    with translation.override(language):
        return _("Сервер сейчас не смог ответить: нет связи с базой данных. Повторите чуть позже.")


class ClosesOnDatabaseFaults:
    """ASGI middleware around the sockets' whole stack (config/asgi.py): a database error
    that escapes it — the session and user are read before any consumer exists
    (channels' AuthMiddleware), and a consumer's own guard may not reach everything — is
    answered as the consumers answer one at connect (`DispatchesOnTheLoop`):
    `unavailable`, then close 1013, not a socket that dies with 1011 or a handshake that
    fails with none (docs/protocol.md §2.4)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        seen: set[str] = set()

        async def tracked(message: dict[str, Any]) -> None:
            seen.add(message["type"])
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except DatabaseError:
            logger.exception("a socket failed on a database error")
            if "websocket.close" in seen:
                return
            if "websocket.accept" not in seen:
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": _unavailable_at_connect(scope)})
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER})


class GuardedInput:
    """What every socket of ours does with a frame before reading it: a per-connection
    rate limit (a token bucket; a flood closes the socket), a size limit, and JSON that
    must be an object with a string "type". Each refusal is an `error`; none drops the
    connection."""

    tokens: float
    refilled: float
    refused_in_a_row: int

    # Provided by the consumer: `_send(message)`, Channels' `close(code)` and `scope`.
    _send: Any
    close: Any
    scope: dict[str, Any]

    def _allow(self) -> bool:
        now = time.monotonic()
        if not hasattr(self, "tokens"):
            self.tokens, self.refilled, self.refused_in_a_row = float(BURST), now, 0
        self.tokens = min(float(BURST), self.tokens + (now - self.refilled) * RATE_PER_SECOND)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False

    async def _shared_refusal(self) -> str | None:
        """None within the budget shared by the user's sockets, or by the anonymous
        sockets of the connection's address; else the refusal."""
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            key, limit = f"ws-rate:{user.pk}:{int(time.time())}", USER_RATE_PER_SECOND
        else:
            address = _address(self.scope)
            if address is None:
                return None
            key, limit = f"ws-rate:addr:{address}:{int(time.time())}", ADDRESS_RATE_PER_SECOND
        # Off the thread that runs the consumers' database work (thread_sensitive, as
        # the cache's own async methods are): a cache call needs no database connection.
        count = await sync_to_async(_count_message, thread_sensitive=False)(key)
        if count <= limit:
            return None
        if user is not None and user.is_authenticated:
            return _(
                "Слишком много сообщений со всех ваших подключений: не больше %(n)d в секунду."
            ) % {"n": limit}
        return _("Слишком много сообщений с вашего адреса: не больше %(n)d в секунду.") % {
            "n": limit
        }

    async def _read(self, text_data: str | None, bytes_data: bytes | None) -> dict[str, Any] | None:
        """The message, or None once its refusal has been sent."""
        self.reading_id: str | None = None
        refusal = None
        if not self._allow():
            refusal = _("Слишком много сообщений: не больше %(n)d в секунду.") % {
                "n": int(RATE_PER_SECOND)
            }
        elif (refusal := await self._shared_refusal()) is not None:
            self.refused_in_a_row += 1
        if refusal is not None:
            if self.refused_in_a_row >= FLOOD_CLOSE_AFTER:
                await self.close(code=CLOSE_FLOODING)
            elif self.refused_in_a_row == 1 or self.refused_in_a_row % 10 == 0:
                await self._send(_error("rate_limited", refusal))
            return None
        raw = text_data if text_data is not None else bytes_data or b""
        size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
        if size > MAX_FRAME_BYTES:
            await self._send(
                _error(
                    "too_large",
                    _("Сообщение больше %(n)d байт не принимается.") % {"n": MAX_FRAME_BYTES},
                )
            )
            return None
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):  # too deep: "[[[[…"
            await self._send(_error("bad_json", _("Сообщение не в формате JSON.")))
            return None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self._send(
                _error(
                    "bad_message",
                    _('Сообщение — объект JSON с полем "type".'),
                    **_echo(message if isinstance(message, dict) else {}),
                )
            )
            return None
        with_nul = _holding_nul(message)
        # The id a refusal of this message answers (a command's; none if it is unusable).
        self.reading_id = _safe_id(message.get("id")) if with_nul != "id" else None
        if with_nul is not None:
            # No text of ours holds a NUL, and PostgreSQL's driver fails on one (a table
            # name with it closed the lobby socket): refused before any handler sees it.
            refusal = _("Поле %(name)r содержит символ NUL: такой текст не принимается.")
            extra = {"id": self.reading_id} if self.reading_id else {}
            await self._send(_error("bad_message", refusal % {"name": with_nul}, **extra))
            return None
        return message


def _session_ended_message() -> str:
    return _("Сессия завершена (выход или смена пароля): войдите снова.")


class CountedAndSignedIn:
    """What every socket of ours does around its life: it counts itself in the sockets
    its user and its client address hold open (tables.connections; one over a limit is
    closed at once with 4430), and a signed-in one ends with its session
    (accounts.sessions: closed with 4440 when told, and checked before each command)."""

    counted: connections.Counted | None = None
    renewal: asyncio.Future[None] | None = None
    session_key: str | None = None
    # Fields of the refusal frame sent before a 4430 close (a table's: its version).
    _REFUSAL_EXTRA: dict[str, Any] = {}

    # Provided by the consumer (Channels).
    send: Any
    close: Any
    scope: dict[str, Any]
    channel_layer: Any
    channel_name: str

    def _signed_in_user(self) -> Any:
        user = self.scope.get("user")
        return user if user is not None and user.is_authenticated else None

    async def _count_in(self) -> bool:
        """Counted, or refused (and closed): False."""
        user = self._signed_in_user()
        counted, over = await sync_to_async(connections.connection_open, thread_sensitive=False)(
            user_id=user.pk if user is not None else None, address=_address(self.scope)
        )
        if counted is None:
            with translation.override(_language(self.scope)):
                await self._refuse_crowded(over)
            return False
        self.counted = counted
        self.renewal = asyncio.ensure_future(self._renew())
        return True

    async def _refuse_crowded(self, over: str) -> None:
        """`too_many_connections` (in the active language), then close with 4430."""
        if over == "user":
            message = _(
                "Слишком много подключений: у одного пользователя не больше %(n)d сразу."
            ) % {"n": settings.WS_CONNECTIONS_PER_USER}
        else:
            message = _("Слишком много подключений с вашего адреса: не больше %(n)d сразу.") % {
                "n": settings.WS_CONNECTIONS_PER_ADDRESS
            }
        frame = {**_error("too_many_connections", message), **self._REFUSAL_EXTRA}
        await self.send(text_data=json.dumps(frame, ensure_ascii=False))
        await self.close(code=CLOSE_TOO_MANY_CONNECTIONS)

    async def _renew(self) -> None:
        """Stay counted in every new window of the counts while open."""
        while True:
            spread = random.uniform(0, RENEW_SPREAD_SECONDS)
            await asyncio.sleep(connections.next_window_in() + spread)
            try:
                if self.counted is not None:
                    await sync_to_async(connections.connection_renew, thread_sensitive=False)(
                        self.counted
                    )
            except Exception:
                # One failed renewal (the cache unreachable for a moment) must not end
                # the renewals: the socket would stop counting while it is open.
                logger.exception("connection count of %s not renewed", self.channel_name)

    async def _count_out(self) -> None:
        """Out of the counts: once, however the socket ends."""
        if self.renewal is not None:
            self.renewal.cancel()
        counted, self.counted = self.counted, None
        if counted is not None:
            try:
                await sync_to_async(connections.connection_close, thread_sensitive=False)(counted)
            except Exception:
                # The cache unreachable: the windows it counted in expire by themselves.
                logger.exception("connection count of %s not released", self.channel_name)

    def _remember_session(self) -> str | None:
        """The socket's session key, and its user's group (which tells it when a session
        of theirs ends), if signed in."""
        session = self.scope.get("session")
        self.session_key = getattr(session, "session_key", None) if session is not None else None
        user = self._signed_in_user()
        return sessions.user_group(user.pk) if user is not None else None

    async def _session_current(self) -> bool:
        return bool(
            await _database(sessions.session_current)(
                session_key=self.session_key, user=self._signed_in_user()
            )
        )

    async def session_ended(self, event: dict[str, Any]) -> None:
        """A session of this socket's user may have ended (accounts.sessions): this one
        (named by its digest), or any (then the socket checks its own)."""
        named = event.get("session")
        if named is not None and named != sessions.session_digest(self.session_key):
            return  # another of the user's sessions
        if named is None and await self._session_current():
            return
        with translation.override(_language(self.scope)):  # a group message brings none
            await self._end_for_session()

    async def _end_for_session(self) -> None:
        raise NotImplementedError


class LobbyConsumer(  # type: ignore[misc]
    DispatchesOnTheLoop,
    SendsUntilGone,
    GuardedInput,
    CountedAndSignedIn,
    AsyncJsonWebsocketConsumer,
):
    """The open tables, sent on connect and again whenever one changes."""

    async def connect(self) -> None:
        broadcast.bind_loop()
        user = self.scope.get("user")
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        if not await self._count_in():
            return
        self.groups_joined = [LOBBY_GROUP, str(self._remember_session())]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.send_json({"type": "lobby", **await self._listing()})

    async def disconnect(self, code: int) -> None:
        await self._count_out()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def _end_for_session(self, answering: dict[str, str] | None = None) -> None:
        await self.send_json(_error("session_ended", _session_ended_message(), **(answering or {})))
        await self.close(code=CLOSE_SESSION_ENDED)

    async def _send(self, message: dict[str, Any]) -> None:
        await self.send_json(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        with translation.override(_language(self.scope)):
            content = await self._read(text_data, bytes_data)
            if content is None:
                return
            # Every lobby message may open a table: only while the session stands.
            if not await self._session_current():
                await self._end_for_session(_echo(content))
                return
            await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if content.get("type") != "open_table":
            await self.send_json(
                _error(
                    "unknown_type",
                    _("Сообщение лобби одно: open_table (docs/protocol.md)."),
                    **_echo(content),
                )
            )
            return
        if not isinstance(content.get("private", False), bool):
            await self.send_json(
                _error(
                    "bad_message",
                    _("Поле %(name)r неверного типа.") % {"name": "private"},
                    **_echo(content),
                )
            )
            return
        with translation.override(_language(self.scope)):
            fields = {
                k: v for k, v in content.items() if k not in ("type", "id", "variant", "private")
            }
            try:
                table = await _database(services.table_open_with)(
                    by=self.scope["user"],
                    variant=str(content.get("variant", "")),
                    private=bool(content.get("private", False)),
                    fields=fields,
                )
            except services.PlayError as error:
                await self.send_json(_error(error.code, error.message, **_echo(content)))
                return
        await self.send_json(
            {
                "type": "table_opened",
                "table": table.pk,
                "invite": table.invite_code or None,
                **_echo(content),
            }
        )

    async def lobby_diff(self, event: dict[str, Any]) -> None:
        """Changed tables (tables.broadcast.lobby_changed): each as its own message, in
        this connection's language — not the whole list again — then the batch's
        `lobby_counts` (docs/protocol.md §14)."""
        tables = event["tables"]
        rows = tables.get(_language(self.scope)) or tables.get(settings.LANGUAGE_CODE) or []
        added = set(event["added"])
        hosts = event.get("hosts") or {}
        user_id = getattr(self.scope.get("user"), "pk", None)
        for row in rows:
            kind = "table_added" if row["id"] in added else "table_changed"
            message: dict[str, Any] = {"type": kind, "table": row}
            if user_id is not None and hosts.get(str(row["id"])) == user_id:
                # Only to the one who opened it: their «Ваши столы» (lobby.json's `me`)
                # has a new table, without every other client asking lobby.json.
                message["yours"] = True
            await self.send_json(message)
        for table_id in event["removed"]:
            await self.send_json({"type": "table_removed", "table": table_id})
        if "counts" in event:  # (a diff from a web process of the release before has none)
            await self.send_json(
                {
                    "type": "lobby_counts",
                    "counts": event["counts"],
                    "counts_total": event["counts_total"],
                }
            )

    @_database  # type: ignore[misc]
    def _listing(self) -> dict[str, Any]:
        """The first message's page of tables, under the filters of the socket's query
        string (as lobby.json takes them)."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        filters = LobbyFilterForm({k: v[0] for k, v in query.items()}).filters()
        with translation.override(_language(self.scope)):  # as lobby_diff sends it
            return lobby_listing(**filters)


class TableConsumer(  # type: ignore[misc]
    DispatchesOnTheLoop,
    SendsUntilGone,
    GuardedInput,
    CountedAndSignedIn,
    AsyncWebsocketConsumer,
):
    """One live table: anyone may watch; signed-in players sit and play."""

    # Every frame of a table socket carries a version; none is read for a refusal.
    _REFUSAL_EXTRA = {"version": None}

    async def connect(self) -> None:
        broadcast.bind_loop()
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.signed_in = bool(self.user is not None and self.user.is_authenticated)
        self.language = _language(self.scope)
        self.joined: list[str] = []
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.invite = (query.get("invite") or [""])[0]
        await self.accept()
        # Before the database is read: a flood of sockets costs the cache alone.
        if not await self._count_in():
            return
        user_group = self._remember_session()
        table = await self._table()
        if table is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if table.private and not await self._may_watch_private(table):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if (query.get("view") or [""])[0] == "spectator":
            # Watch only (classic's shared screen, on a TV that may be signed in as a
            # seated player): from here on the connection is an anonymous spectator — the
            # spectators' frames, no presence, no command. Its session has only let it
            # watch a private table above.
            self.signed_in = False
        # Every change and presence note comes through the table's group
        # (tables.broadcast); `table_frames` picks this connection's frame of a change.
        self.joined = [table_group(self.table_id), *([user_group] if user_group else [])]
        for group in self.joined:
            await self.channel_layer.group_add(group, self.channel_name)
        if self.signed_in:
            await _database(services.presence_join)(
                table=table, user=self.user, channel_name=self.channel_name
            )
            self.heartbeat = asyncio.ensure_future(self._beat())
        await self._send_snapshot()

    async def _beat(self) -> None:
        """Keep this connection's presence fresh: a server that dies leaves connections
        that stop beating, and the sweep then counts them as drops. A beat is a cache
        write (services.presence_touch), made off the consumers' database thread."""
        while True:
            await asyncio.sleep(services.PRESENCE_HEARTBEAT_SECONDS)
            try:
                await sync_to_async(services.presence_touch, thread_sensitive=False)(
                    channel_name=self.channel_name
                )
            except Exception:
                # One failed beat (Redis or the database unreachable for a moment) must
                # not end the heartbeat: the connection would stop being refreshed and,
                # a minute later, count as dropped while it is open.
                logger.exception("presence heartbeat of %s failed", self.channel_name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            # An exception ended the consumer without disconnect(): the channel layer
            # lost Redis (every consumer of the process fails at once), or a handler
            # failed. daphne closes the socket, but the heartbeat would go on refreshing
            # this connection's presence for as long as the process lives, so the player
            # would count as connected for ever — no presence frame, no reconnect grace,
            # never stood up as away. Leave as a closed connection does, as far as the
            # database allows.
            with contextlib.suppress(Exception):
                await self._leave()
            raise

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def _leave(self) -> None:
        """Forget this connection: once, however the consumer ends."""
        if getattr(self, "left", False):
            return
        self.left = True
        heartbeat = getattr(self, "heartbeat", None)
        if heartbeat is not None:
            heartbeat.cancel()
        await self._count_out()
        joined: list[str] = getattr(self, "joined", [])
        try:
            for group in joined:
                await self.channel_layer.group_discard(group, self.channel_name)
        finally:
            # Even when the groups cannot be left (Redis is down: they are gone with it).
            if joined and getattr(self, "signed_in", False):
                table = await self._table()
                if table is not None:
                    await _database(services.presence_leave)(
                        table=table, user=self.user, channel_name=self.channel_name
                    )

    # --- incoming ------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        with translation.override(self.language):
            message = await self._read(text_data, bytes_data)
            if message is not None:
                await self._dispatch(message)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ping":
            await self._send({"type": "pong", "version": await self._version()})
            return
        if kind == "snapshot":
            await self._send_snapshot()
            return
        if kind == "record":
            await self._send_record(message)
            return
        handler = self._COMMANDS.get(kind)
        if handler is None:
            await self._send(
                _error(
                    "unknown_type",
                    _("Неизвестный тип сообщения %(type)r; см. docs/protocol.md.")
                    % {"type": kind[:40]},
                    **_echo(message),
                )
            )
            return
        client_id = message.get("id")
        if not self.signed_in:
            await self._send(
                _error("not_signed_in", _("Войдите, чтобы играть."), id=_safe_id(client_id))
            )
            return
        if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
            await self._send(
                _error("bad_message", _('Каждое действие несёт "id": строку до 64 знаков.'))
            )
            return
        problem = _check_arguments(kind, message)
        if problem:
            await self._send(_error("bad_message", problem, id=client_id))
            return
        # An action's version is checked by the move itself (services.game_act), with
        # the overdue decision it may meet; any other command's here.
        move = kind == "action"
        version = None if move else message.get("version")
        await self._command(
            client_id,
            lambda table: handler(self, table, message),
            version,
            locks_its_table=kind in self._LOCK_THEIR_TABLE,
        )

    async def _command(
        self,
        client_id: str,
        build: Callable[[Table], Any],
        version: int | None = None,
        *,
        locks_its_table: bool = False,
    ) -> None:
        def run() -> dict[str, Any]:
            with translation.override(self.language):
                # In this trip to the database thread: one query more per command.
                if not sessions.session_current(session_key=self.session_key, user=self.user):
                    raise services.PlayError("session_ended", _session_ended_message())
                # A command that reads its table itself, under the table's lock, is given
                # the table's id alone, not a read of ours that would be stale by then.
                table = (
                    Table(pk=self.table_id)
                    if locks_its_table
                    else Table.objects.get(pk=self.table_id)
                )
                outcome = services.command_run(
                    user=self.user,
                    table=table,
                    client_id=client_id,
                    run=lambda: build(table),
                    version=version,
                    plays_overdue=locks_its_table,
                )
                if "version" not in outcome:
                    # The ack's version (as _send would add it), read in this call rather
                    # than in another trip to the database thread.
                    outcome = {**outcome, "version": self._version_now()}
                return outcome

        try:
            outcome = await _database(run)()
        except services.PlayError as error:
            await self._send(_error(error.code, error.message, id=client_id))
            if error.code == "stale_version":
                await self._send_snapshot()
            elif error.code == "session_ended":
                await self.close(code=CLOSE_SESSION_ENDED)
            return
        except ValidationError as error:  # SeatError
            code = getattr(error, "code", None) or "refused"
            await self._send(_error(code, " ".join(error.messages), id=client_id))
            return
        except DatabaseError:
            # The database connection failed mid-command (PostgreSQL restarted, the
            # backend terminated): the command's transaction rolled back — unless its
            # commit was what failed — so nothing of it was applied. Raised, this killed
            # the consumer: the socket closed with no answer to the command. Answer it
            # instead; a resend with the same id runs it at most once (docs/protocol.md).
            logger.exception("command %s at table %s failed", client_id, self.table_id)
            await self._send(
                _error(
                    "unavailable",
                    _("Сервер не смог выполнить команду: повторите её с тем же id."),
                    id=client_id,
                )
            )
            return
        await self._send({"type": "ack", "id": client_id, **outcome})

    async def _end_for_session(self) -> None:
        await self._send(_error("session_ended", _session_ended_message()))
        await self.close(code=CLOSE_SESSION_ENDED)

    # Each command: (consumer, table, message) -> outcome dict. Run inside command_run.
    def _sit(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        # The invite in the message, else the one the connection came in with.
        invite = message.get("invite", self.invite)
        seat = services.seat_take(table=table, player=self.user, invite=invite)
        return {"seat": seat.seat_id}

    def _stand(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        services.seat_leave(table=table, player=self.user)
        return {}

    def _ready(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        services.seat_ready(table=table, player=self.user, ready=message.get("ready", True))
        return {}

    def _start(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        # `match_length` is the table's name for it (open_table, the lobby); `rounds`,
        # the name `start` first took, stays an alias for the clients written against it.
        length = message.get("match_length", message.get("rounds"))
        if "rounds" in message and message["rounds"] != length:
            raise services.PlayError(
                "bad_message",
                _("match_length и rounds — одна длина партии: укажите одно значение."),
            )
        game = services.game_start(table=table, by=self.user, rounds=length)
        table.refresh_from_db(fields=["pending"])
        return {"game": game.number if game is not None else table.pending["number"]}

    def _client_seed(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        return services.client_seed_give(table=table, player=self.user, seed=message["seed"])

    def _action(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        action = {k: message[k] for k in ("action", "amount", "position") if k in message}
        return services.game_act(
            table=table, player=self.user, action=action, version=message.get("version")
        )

    def _pause(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        return services.game_pause(table=table, by=self.user)

    def _resume(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        return services.game_resume(table=table, by=self.user)

    def _remove(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        services.player_remove(table=table, by=self.user, seat_id=message["seat"])
        return {}

    def _add_ai(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        seat = services.ai_seat_add(table=table, by=self.user, level=message["level"])
        return {"seat": seat.seat_id}

    def _remove_ai(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        services.ai_seat_remove(table=table, by=self.user, number=message["number"])
        return {}

    def _new_game(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        return services.solo_new_game(table=table, player=self.user)

    def _end_session(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        return services.session_end(table=table, player=self.user)

    def _close(self, table: Table, message: dict[str, Any]) -> dict[str, Any]:
        return services.table_close_by_host(table=table, by=self.user)

    # Commands whose service reads the table under its lock before anything else
    # (services.game_act, services.client_seed_give): the two a game's play is made of.
    # Neither needs command_run's look for an overdue decision: a move plays one itself,
    # under that lock, and a client seed is given between games, when none can be due.
    _LOCK_THEIR_TABLE = frozenset({"action", "client_seed"})

    _COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
        "sit": _sit,
        "stand": _stand,
        "ready": _ready,
        "start": _start,
        "action": _action,
        "pause": _pause,
        "resume": _resume,
        "remove": _remove,
        "add_ai": _add_ai,
        "remove_ai": _remove_ai,
        "new_game": _new_game,
        "end_session": _end_session,
        "close": _close,
        "client_seed": _client_seed,
    }

    # --- outgoing ------------------------------------------------------------------------

    async def table_frame(self, event: dict[str, Any]) -> None:
        """A frame for every connection of the table (a presence note)."""
        await self._send(event["frame"])

    async def table_frames(self, event: dict[str, Any]) -> None:
        """A change of the table (tables.broadcast): a seated player's connection sends
        its player's own frame, any other connection — anonymous, a shared screen, a
        signed-in person not seated — the spectators'. Never another seat's."""
        own = event["players"].get(str(self.user.pk)) if self.signed_in else None
        await self._send(own if own is not None else event["spectator"])

    async def _send(self, message: dict[str, Any]) -> None:
        if "version" not in message:  # every server message carries the table's version
            message = {**message, "version": await self._version()}
        await self.send(text_data=json.dumps(message, ensure_ascii=False))

    async def _send_snapshot(self) -> None:
        snapshot = await _database(self._snapshot)()
        if snapshot is not None:
            await self._send(snapshot)

    def _snapshot(self) -> dict[str, Any] | None:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return None
        return services.table_snapshot(table=table, user=self.user if self.signed_in else None)

    async def _send_record(self, message: dict[str, Any]) -> None:
        number = message.get("game")
        record = await _database(self._record)(number)
        await self._send({**record, **_echo(message)})

    def _record(self, number: Any) -> dict[str, Any]:
        with translation.override(self.language):
            # Checked before the query: a string would make the lookup raise and drop the
            # connection.
            valid = type(number) is int
            game = (
                Game.objects.filter(table_id=self.table_id, number=number).first()
                if valid
                else None
            )
            if game is None:
                return _error("not_found", _("Такой игры за этим столом нет."))
            if not self.signed_in or not _played_in(game, self.user):
                return _error("forbidden", _("Запись раздачи видят только её игроки."))
            return {"type": "record", "game": number, "record": services.public_record(game)}

    @_database  # type: ignore[misc]
    def _table(self) -> Table | None:
        return Table.objects.filter(pk=self.table_id).first()

    @_database  # type: ignore[misc]
    def _version(self) -> int | None:
        return self._version_now()

    def _version_now(self) -> int | None:
        return Table.objects.filter(pk=self.table_id).values_list("version", flat=True).first()

    @_database  # type: ignore[misc]
    def _may_watch_private(self, table: Table) -> bool:
        if self.invite and self.invite == table.invite_code:
            return True
        if not self.signed_in:
            return False
        return bool(
            self.user.is_staff
            or table.created_by_id == self.user.pk
            or table.seats.filter(player=self.user).exists()
        )


def _holding_nul(message: dict[str, Any]) -> str | None:
    """The name of the top-level field of `message` in which some string (a value or a
    key, at any depth) holds a NUL character, or None. Walked without recursion: a frame
    of 4096 bytes may nest deeper than Python's stack allows."""
    for name, value in message.items():
        if "\x00" in name:
            return name.replace("\x00", "\\0")
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if "\x00" in item:
                    return name
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return None


def _played_in(game: Game, user: Any) -> bool:
    return bool(user.is_staff or any(p["user"] == user.pk for p in game.players))


def _echo(message: dict[str, Any]) -> dict[str, str]:
    """`{"id": …}` for an answer to a message that carried a usable id (a string of 1–64
    characters), else nothing: a client matches every answer to its request by the id,
    errors included (docs/protocol.md §6.3)."""
    value = message.get("id")
    return {"id": value} if isinstance(value, str) and 1 <= len(value) <= 64 else {}


def _safe_id(value: Any) -> str | None:
    return value if isinstance(value, str) and len(value) <= 64 else None


# The arguments each command needs, with their JSON types.
_ARGUMENTS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "action": {"action": str},
    "remove": {"seat": str},
    "add_ai": {"level": str},
    "remove_ai": {"number": int},
    "client_seed": {"seed": str},
}
_OPTIONAL: dict[str, dict[str, type | tuple[type, ...]]] = {
    "action": {"amount": int, "position": int},
    "sit": {"invite": str},
    "start": {"match_length": int, "rounds": int},
    "ready": {"ready": bool},
}
# Every command may name the table version it was decided on (docs/protocol.md §5.2).
for _kind in TableConsumer._COMMANDS:
    _OPTIONAL.setdefault(_kind, {})["version"] = int


def _check_arguments(kind: str, message: dict[str, Any]) -> str | None:
    for name, kind_type in _ARGUMENTS.get(kind, {}).items():
        value = message.get(name)
        if not isinstance(value, kind_type) or (isinstance(value, bool) and kind_type is int):
            return _("Поле %(name)r обязательно (%(type)s).") % {
                "name": name,
                "type": kind_type.__name__ if isinstance(kind_type, type) else "",
            }
    for name, kind_type in _OPTIONAL.get(kind, {}).items():
        if name in message:
            value = message[name]
            if not isinstance(value, kind_type) or (isinstance(value, bool) and kind_type is int):
                return _("Поле %(name)r неверного типа.") % {"name": name}
    return None
