"""`manage.py webpush_keys`: a new VAPID key pair for Web Push, printed as the lines of
`.env` that turn push on (WEBPUSH_VAPID_PUBLIC_KEY, WEBPUSH_VAPID_PRIVATE_KEY)."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management.base import BaseCommand


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def vapid_key_pair() -> tuple[str, str]:
    """(public, private), base64url: the public key as the uncompressed P-256 point the
    browsers' `applicationServerKey` takes, the private one as its 32 raw bytes."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(public), b64url(private.private_numbers().private_value.to_bytes(32, "big"))


class Command(BaseCommand):
    help = "Print a new VAPID key pair for Web Push, as lines for .env."

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = vapid_key_pair()
        self.stdout.write(f"WEBPUSH_VAPID_PUBLIC_KEY={public}")
        self.stdout.write(f"WEBPUSH_VAPID_PRIVATE_KEY={private}")
