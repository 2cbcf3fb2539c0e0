"""What every socket of the platform stands on (the table's, play/edge/consumers.py, and the
lobby's, lobby/consumers.py): the close codes and message budgets of docs/protocol.md,
reading a client frame safely, counting connections, the session a socket signed in
with, and answering a database fault with `unavailable` instead of a dead socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import DatabaseError
from django.db import connection as default_database
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation.trans_real import parse_accept_lang_header

from accounts import sessions
from accounts.throttling import cache_count, seconds_until, window_end
from contract.lobby import LobbyError
from contract.reading import Problem
from contract.table_out import Error as TableError
from contract.tournament import TournamentError
from lib.jsontext import json_text
from lib.problems import problem_text
from play.edge import connections

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
# A socket renews its place in the connection counts (play.edge.connections) within this
# many seconds after each window starts: spread, so that a process's sockets do not all
# write to the cache in the same instant.
RENEW_SPREAD_SECONDS = 10.0


def socket_language(scope: dict[str, Any]) -> str:
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
    # The vendor, not the ENGINE's name: the test suite's PostgreSQL is a subclass of
    # Django's backend (config/testdb) and must run the consumers as production does.
    default = CONSUMER_DATABASE_THREADS if default_database.vendor == "postgresql" else 0
    return int(getattr(settings, "CONSUMER_DATABASE_THREADS", default))


def database(function: Callable[..., Any]) -> Any:
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


def error_frame(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}


def refusal_of(problem: Problem, **extra: Any) -> dict[str, Any]:
    """The `bad_message` answering a message that does not fit its definition (contract),
    naming the field in `field` and in its text."""
    if problem.field:
        extra["field"] = problem.field
    return error_frame("bad_message", problem_text(problem), **extra)


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
    the event loop. Ours never do: their database work runs through `database`, whose
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
        frame = error_frame(
            "unavailable",
            _unavailable_text(socket_language(self.scope)),
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
    return handshake_error_text(scope, "unavailable", _unavailable_text(socket_language(scope)))


def handshake_error_text(scope: dict[str, Any], code: str, text: str, **extra: Any) -> str:
    """An `error` sent before a socket's consumer runs (a refused token, a database
    fault), as JSON text, built as its socket's definition: at a table with a null
    version (every table frame carries one; the table was not read)."""
    path = str(scope.get("path", ""))
    if path.startswith("/ws/tables/"):
        return json_text(TableError(code=code, message=text, version=None, **extra))  # type: ignore[arg-type]
    if path.startswith("/ws/tournaments/"):
        return json_text(TournamentError(code=code, message=text, **extra))  # type: ignore[arg-type]
    return json_text(LobbyError(code=code, message=text, **extra))  # type: ignore[arg-type]


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

    def _bucket_retry_after(self) -> int:
        """Whole seconds until the bucket holds a token again (at least 1)."""
        return max(1, math.ceil((1 - self.tokens) / RATE_PER_SECOND))

    async def _shared_refusal(self) -> dict[str, Any] | None:
        """None within the budget shared by the user's sockets, or by the anonymous
        sockets of the connection's address; else the refusal's fields."""
        user = self.scope.get("user")
        now = time.time()
        if user is not None and user.is_authenticated:
            key, limit = f"ws-rate:{user.pk}:{int(now)}", USER_RATE_PER_SECOND
        else:
            address = _address(self.scope)
            if address is None:
                return None
            key, limit = f"ws-rate:addr:{address}:{int(now)}", ADDRESS_RATE_PER_SECOND
        # Off the thread that runs the consumers' database work (thread_sensitive, as
        # the cache's own async methods are): a cache call needs no database connection.
        count = await sync_to_async(_count_message, thread_sensitive=False)(key)
        if count <= limit:
            return None
        # The window is the UTC second the message was counted in: the next one is free.
        retry_after = seconds_until(window_end(1, now), now)
        if user is not None and user.is_authenticated:
            text = _(
                "Слишком много сообщений со всех ваших подключений: не больше %(n)d в секунду."
            ) % {"n": limit}
            return {"message": text, "limit": "user_messages", "retry_after": retry_after}
        text = _("Слишком много сообщений с вашего адреса: не больше %(n)d в секунду.") % {
            "n": limit
        }
        return {"message": text, "limit": "address_messages", "retry_after": retry_after}

    async def _read(self, text_data: str | None, bytes_data: bytes | None) -> dict[str, Any] | None:
        """The message, or None once its refusal has been sent."""
        self.reading_id: str | None = None
        refusal = None
        if not self._allow():
            text = _("Слишком много сообщений: не больше %(n)d в секунду.") % {
                "n": int(RATE_PER_SECOND)
            }
            refusal = {
                "message": text,
                "limit": "socket_messages",
                "retry_after": self._bucket_retry_after(),
            }
        elif (refusal := await self._shared_refusal()) is not None:
            self.refused_in_a_row += 1
        if refusal is not None:
            if self.refused_in_a_row >= FLOOD_CLOSE_AFTER:
                await self.close(code=CLOSE_FLOODING)
            elif self.refused_in_a_row == 1 or self.refused_in_a_row % 10 == 0:
                await self._send(
                    error_frame(
                        "rate_limited",
                        refusal["message"],
                        limit=refusal["limit"],
                        retry_after=refusal["retry_after"],
                    )
                )
            return None
        raw = text_data if text_data is not None else bytes_data or b""
        size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
        if size > MAX_FRAME_BYTES:
            await self._send(
                error_frame(
                    "too_large",
                    _("Сообщение больше %(n)d байт не принимается.") % {"n": MAX_FRAME_BYTES},
                )
            )
            return None
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):  # too deep: "[[[[…"
            await self._send(error_frame("bad_json", _("Сообщение не в формате JSON.")))
            return None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self._send(
                error_frame(
                    "bad_message",
                    _('Сообщение — объект JSON с полем "type".'),
                    **echo(message if isinstance(message, dict) else {}),
                )
            )
            return None
        with_nul = _holding_nul(message)
        # The id a refusal of this message answers (a command's; none if it is unusable).
        self.reading_id = safe_id(message.get("id")) if with_nul != "id" else None
        if with_nul is not None:
            # No text of ours holds a NUL, and PostgreSQL's driver fails on one (a table
            # name with it closed the lobby socket): refused before any handler sees it.
            refusal = _("Поле %(name)r содержит символ NUL: такой текст не принимается.")
            extra = {"id": self.reading_id} if self.reading_id else {}
            extra["field"] = with_nul
            await self._send(error_frame("bad_message", refusal % {"name": with_nul}, **extra))
            return None
        return message


def scope_missing_text(scope: str) -> str:
    return _("У токена нет права %(scope)r, нужного здесь.") % {"scope": scope}


def scope_refusal(socket_scope: dict[str, Any], needed: str, **extra: Any) -> dict[str, Any] | None:
    """The `scope_missing` error for a socket signed in with an access token that lacks
    `needed` (config/bearer.py puts the token's scopes in the ASGI scope), else None: a
    socket signed in with a session lacks nothing."""
    token = socket_scope.get("token")
    if token is None or needed in token["scopes"]:
        return None
    return error_frame("scope_missing", scope_missing_text(needed), **extra)


def session_ended_message() -> str:
    return _("Сессия завершена (выход или смена пароля): войдите снова.")


class CountedAndSignedIn:
    """What every socket of ours does around its life: it counts itself in the sockets
    its user and its client address hold open (play.edge.connections; one over a limit is
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
            with translation.override(socket_language(self.scope)):
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
        frame = {
            **error_frame(
                "too_many_connections",
                message,
                limit="user_sockets" if over == "user" else "address_sockets",
                retry_after=connections.retry_after(),
            ),
            **self._REFUSAL_EXTRA,
        }
        await self._send(frame)  # built as the socket's definition
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
            await database(sessions.session_current)(
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
        with translation.override(socket_language(self.scope)):  # a group message brings none
            await self._end_for_session()

    async def _end_for_session(self) -> None:
        raise NotImplementedError


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


def echo(message: dict[str, Any]) -> dict[str, str]:
    """`{"id": …}` for an answer to a message that carried a usable id (a string of 1–64
    characters), else nothing: a client matches every answer to its request by the id,
    errors included (docs/protocol.md §6.3)."""
    value = message.get("id")
    return {"id": value} if isinstance(value, str) and 1 <= len(value) <= 64 else {}


def safe_id(value: Any) -> str | None:
    return value if isinstance(value, str) and len(value) <= 64 else None
