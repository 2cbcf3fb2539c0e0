"""`Authorization: Bearer <token>` (a personal access token, accounts/tokens.py) on the
sockets' handshake and on the JSON endpoints (docs/protocol.md §2.2.1).

A request or handshake that carries an Authorization header is judged by its token alone:
a token that stands signs its user in with the token's scopes, and anything else — an
unknown, revoked or malformed token, another scheme — is refused, never treated as
anonymous and never signed in by a session cookie sent alongside. A token in the URL's
query string is refused and not used. Refusals are counted per client address
(accounts.throttling, as sign-ups and resets are) and, past BEARER_FAILURES_PER_HOUR,
the address is refused even a good token until the hour is over (HTTP 429, close
4429), as django-axes locks a guessed sign-in out; each refusal is audited
(accounts.models.AccessTokenEvent).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from accounts import tokens
from contract.http import ENDPOINTS
from lib.bodies import rate_limited, refusal
from play.edge.sockets import (
    CLOSE_FLOODING,
    CLOSE_FORBIDDEN,
    CLOSE_UNAUTHENTICATED,
    handshake_error_text,
    scope_missing_text,
    socket_language,
)

# The limit's key in the refusals of a throttled address (docs/protocol.md §3).
BAD_TOKENS_LIMIT = "bad_tokens"


def _bad_token_text() -> str:
    return _("Токен не принят: неизвестен, отозван или записан неверно.")


def _in_url_text() -> str:
    return _("Токен не принимается в адресе: пошлите его в заголовке Authorization: Bearer.")


def _throttled_text() -> str:
    return _("Слишком много неверных токенов с вашего адреса: попробуйте через час.")


# --- the sockets -----------------------------------------------------------------------


@dataclass(frozen=True)
class TokenSession:
    """What a token's socket has where a signed-in socket has its session: the key its
    end is announced under (accounts.sessions, accounts.tokens.token_session_key)."""

    session_key: str


def _address(scope: dict[str, Any]) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def bearer_handshake(scope: dict[str, Any]) -> bool:
    """Whether a handshake is judged by a token (BearerSockets): it carries an
    Authorization header or a token in its query string. A browser's WebSocket cannot
    send an Authorization header, and BearerSockets refuses any such handshake that a
    token does not sign in, cookies or not: so the Origin check (config/origin.py),
    which keeps other sites' pages from using a visitor's cookie, does not apply."""
    query = scope.get("query_string", b"").decode("latin-1")
    return tokens.bearer_of(scope.get("headers")) is not None or tokens.in_url(query)


class BearerSockets:
    """ASGI middleware inside the session's (config/asgi.py): a handshake with a token
    gets the token's user and `scope["token"]` (its id and scopes), or is refused:
    accepted, sent an `error` (`token_in_url`, `bad_token`, `rate_limited`,
    `scope_missing` for a token without `read`), and closed (4401, 4401, 4429, 4403)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        query = scope.get("query_string", b"").decode("latin-1")
        secret = tokens.bearer_of(scope.get("headers"))
        if secret is None and not tokens.in_url(query):
            return await self.app(scope, receive, send)
        address = _address(scope)
        refusal = None
        if await database_sync_to_async(tokens.throttled)(address):
            refusal = ("rate_limited", _throttled_text, CLOSE_FLOODING)
        elif tokens.in_url(query):
            refusal = ("token_in_url", _in_url_text, CLOSE_UNAUTHENTICATED)
        else:
            bearer = await database_sync_to_async(tokens.token_authenticate)(secret or "")
            if bearer is None:
                refusal = ("bad_token", _bad_token_text, CLOSE_UNAUTHENTICATED)
            elif "read" not in bearer.scopes:
                code, close = "scope_missing", CLOSE_FORBIDDEN
                with translation.override(socket_language(scope)):
                    text = scope_missing_text("read")
                return await _refuse(scope, receive, send, code, text, close)
            else:
                scope = {
                    **scope,
                    "user": bearer.user,
                    "session": TokenSession(bearer.session_key),
                    "token": {"id": bearer.id, "scopes": bearer.scopes},
                }
                return await self.app(scope, receive, send)
        code, text_of, close = refusal
        extra: dict[str, Any] = {}
        if code == "rate_limited":
            extra = {"limit": BAD_TOKENS_LIMIT, "retry_after": tokens.throttle_retry_after()}
        else:
            await database_sync_to_async(tokens.failure_record)(address=address, reason=code)
        with translation.override(socket_language(scope)):
            text = text_of()
        return await _refuse(scope, receive, send, code, text, close, **extra)


async def _refuse(
    scope: dict[str, Any],
    receive: Any,
    send: Any,
    code: str,
    text: str,
    close: int,
    **extra: Any,
) -> None:
    """Accept the handshake (a refusal before accept would reach a client as a failed
    handshake, without a reason), send the `error`, close with `close`."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": handshake_error_text(scope, code, text, **extra)})
    await send({"type": "websocket.close", "code": close})


# --- the JSON endpoints ----------------------------------------------------------------


@functools.cache
def _endpoint_patterns() -> list[tuple[str, re.Pattern[str], tuple[str, ...]]]:
    patterns = []
    for endpoint in ENDPOINTS:
        if not endpoint.scopes:
            continue
        regex = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(endpoint.path))
        patterns.append((endpoint.method.upper(), re.compile(regex), endpoint.scopes))
    return patterns


def endpoint_scopes(method: str, path: str) -> tuple[str, ...] | None:
    """The scopes a token needs for this endpoint (contract.http.ENDPOINTS), or None
    when the path is no endpoint a token is accepted at."""
    for wanted, pattern, scopes in _endpoint_patterns():
        if wanted == method and pattern.fullmatch(path):
            return scopes
    return None


class BearerRequests:
    """Django middleware (after AuthenticationMiddleware): a request with an
    Authorization header is signed in by its token, or refused — 401 `bad_token`,
    429 `rate_limited`, 403 `token_not_accepted` at a path that is no token endpoint,
    403 `scope_missing` for a token without the endpoint's scope; a token endpoint's URL
    carrying a token is refused with 400 `token_in_url`. A token request needs no CSRF
    token: it carries no cookie a browser could have sent for another site."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        header = request.META.get("HTTP_AUTHORIZATION")
        scopes = endpoint_scopes(request.method or "", request.path_info)
        in_url = scopes is not None and tokens.in_url(request.META.get("QUERY_STRING", ""))
        if header is None and not in_url:
            return self.get_response(request)
        address = str(request.META.get("REMOTE_ADDR", ""))
        if tokens.throttled(address):
            return rate_limited(_throttled_text(), BAD_TOKENS_LIMIT, tokens.throttle_retry_after())
        if in_url:
            tokens.failure_record(address=address, reason="token_in_url")
            return refusal("token_in_url", _in_url_text(), 400)
        bearer = tokens.token_authenticate(tokens.secret_of_header(header or ""))
        if bearer is None:
            tokens.failure_record(address=address, reason="bad_token")
            response = refusal("bad_token", _bad_token_text(), 401)
            response["WWW-Authenticate"] = 'Bearer error="invalid_token"'
            return response
        if scopes is None:
            return refusal(
                "token_not_accepted",
                _("Эта страница не принимает токен: только JSON-запросы из docs/protocol.md."),
                403,
            )
        for needed in scopes:
            if needed not in bearer.scopes:
                return refusal("scope_missing", scope_missing_text(needed), 403)
        request.user = bearer.user
        request.token = bearer  # type: ignore[attr-defined]
        request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
        return self.get_response(request)
