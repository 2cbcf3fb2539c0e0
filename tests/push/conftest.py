"""Web Push's fixtures: the site's VAPID keys (made here, as `manage.py webpush_keys` makes
them), a browser's subscription keys, and a local push service — an HTTP server in a
thread that records each push it is sent and answers with the status a test chooses."""

from __future__ import annotations

import base64
import http.server
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from push.management.commands.webpush_keys import vapid_key_pair


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture(autouse=True)
def _deliveries_run_in_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    # push.tasks.push_deliver goes to a worker when REDIS_URL is set; none runs here.
    from config.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)


@pytest.fixture
def vapid(settings: Any) -> tuple[str, str]:
    """Push on: a fresh VAPID key pair in the settings."""
    public, private = vapid_key_pair()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private
    settings.WEBPUSH_VAPID_SUBJECT = "mailto:ops@example.com"
    return public, private


@dataclass
class Browser:
    """A browser's side of a subscription: its P-256 key pair and auth secret."""

    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    secret: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def keys(self) -> dict[str, str]:
        public = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"p256dh": b64url(public), "auth": b64url(self.secret)}

    def decrypt(self, body: bytes) -> bytes:
        return http_ece.decrypt(
            body, private_key=self.private, auth_secret=self.secret, version="aes128gcm"
        )


@pytest.fixture
def browser() -> Browser:
    return Browser()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class PushService:
    """What the local push service was sent, and the status it answers with."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status = 201
        self.port = 0

    def endpoint(self, name: str = "browser-1") -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            service.received.append(
                Received(
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length),
                )
            )
            self.send_response(service.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield service
    server.shutdown()
    server.server_close()
