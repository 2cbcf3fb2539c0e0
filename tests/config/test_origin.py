"""The WebSocket Origin check compares scheme, host and port (config/origin.py)."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from config.origin import origin_allowed


def _scope(origin: str | None, host: str | None, scheme: str = "ws", **headers: str) -> dict:
    pairs = [(b"origin", origin), (b"host", host)] + [
        (k.replace("_", "-").encode(), v) for k, v in headers.items()
    ]
    return {
        "type": "websocket",
        "scheme": scheme,
        "headers": [(k, v.encode()) for k, v in pairs if v is not None],
    }


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://localhost", "localhost", "ws"),
        ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws"),
        ("https://localhost", "localhost", "wss"),
        ("HTTP://LocalHost:8000", "localhost:8000", "ws"),
    ],
)
def test_the_sites_own_origin_is_allowed(origin, host, scheme):
    assert origin_allowed(_scope(origin, host, scheme))


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "why"),
    [
        ("http://localhost:8080", "localhost:8000", "ws", "another port"),
        ("http://localhost", "localhost:8000", "ws", "a port missing"),
        ("http://localhost", "localhost", "wss", "plain http page, secure socket"),
        ("https://localhost", "localhost", "ws", "https page, plain socket"),
        ("https://evil.example", "localhost", "ws", "another host"),
        ("http://evil.example", "evil.example", "ws", "a host not in ALLOWED_HOSTS"),
        (None, "localhost", "ws", "no Origin"),
        ("null", "localhost", "ws", "an opaque origin"),
        ("http://localhost", None, "ws", "no Host"),
    ],
)
def test_any_other_origin_is_refused(origin, host, scheme, why):
    assert not origin_allowed(_scope(origin, host, scheme)), why


def test_behind_a_trusted_tls_proxy_the_origin_is_https(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    behind = {"x_forwarded_proto": "https"}
    assert origin_allowed(_scope("https://localhost", "localhost", "ws", **behind))
    assert not origin_allowed(_scope("http://localhost", "localhost", "ws", **behind))
    # Without the header the connection is plain, whatever the proxy setting.
    assert origin_allowed(_scope("http://localhost", "localhost", "ws"))


def test_csrf_trusted_origins_are_admitted_exactly_or_by_subdomain(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.com", "https://*.tables.example"]
    assert origin_allowed(_scope("https://play.example.com", "backend:8000"))
    assert origin_allowed(_scope("https://tv.tables.example", "backend:8000"))
    assert not origin_allowed(_scope("http://play.example.com", "backend:8000"))
    assert not origin_allowed(_scope("https://tables.example.evil", "backend:8000"))


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_socket_from_another_port_is_denied_before_any_consumer():
    communicator = WebsocketCommunicator(
        application,
        "/ws/tables/1/",
        headers=[(b"origin", b"http://localhost:8080"), (b"host", b"localhost:8000")],
    )
    connected, _ = await communicator.connect()
    assert not connected
