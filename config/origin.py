"""The WebSocket handshake's Origin check: the page must be our own, scheme and port too.

Channels' AllowedHostsOriginValidator compares only the Origin's host with ALLOWED_HOSTS,
so a page served from http://our-host:8080, or over plain http while the site is https,
could open a signed-in socket. This compares the whole origin, as Django's CSRF check does
for forms: the Origin must equal the site's own origin as the handshake reaches us —
`https://` when the connection is secure (wss, or the proxy's X-Forwarded-Proto when
SECURE_PROXY_SSL_HEADER trusts it), else `http://`, then the Host header, port included
— with that host in ALLOWED_HOSTS; or it must be listed in CSRF_TRUSTED_ORIGINS
(`https://*.example.com` admits subdomains). A handshake without an Origin is refused.
A refused handshake is denied (HTTP 403) before any consumer runs. A handshake judged by
an access token (an Authorization header, or a token in the URL, which is refused) is
not checked here: config/bearer.py says why.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

from config.bearer import bearer_handshake


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _secure(scope: dict[str, Any]) -> bool:
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        meta_name, expected = proxy  # e.g. ("HTTP_X_FORWARDED_PROTO", "https")
        header = meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode()
        value = _header(scope, header)
        if value is not None:
            return value.split(",")[0].strip() == expected
    return scope.get("scheme") == "wss"


def _trusted(origin: str) -> bool:
    parts = urlsplit(origin)
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        if origin == trusted.lower():
            return True
        pattern = urlsplit(trusted.lower())
        if (
            pattern.netloc.startswith("*.")
            and parts.scheme == pattern.scheme
            and parts.netloc.endswith(pattern.netloc[1:])
        ):
            return True
    return False


def origin_allowed(scope: dict[str, Any]) -> bool:
    origin = (_header(scope, b"origin") or "").strip().lower()
    if not origin or origin == "null":
        return False
    if _trusted(origin):
        return True
    host = (_header(scope, b"host") or "").strip().lower()
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    own = f"{'https' if _secure(scope) else 'http'}://{host}"
    return origin == own


class SameOriginValidator:
    """ASGI middleware for the websocket router: only our own pages may open a socket."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if (
            scope["type"] == "websocket"
            and not bearer_handshake(scope)
            and not origin_allowed(scope)
        ):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
