"""Personal access tokens (docs/protocol.md §2.2.1): made on the account page, sent by a
program as `Authorization: Bearer <secret>` on a socket's handshake or a JSON request.

The secret is `t21_` and 43 URL-safe characters (256 random bits); only its SHA-256 is
stored (`AccessToken.digest`), so the table leaks no usable secret: a token of this
length needs no slow hash, the digest is looked up directly. A token signs its user in as
a session does, with the scopes it was given, and ends as a session does: a socket
signed in with one remembers the key `token_session_key(id)` where a session's socket
remembers its session key (play.edge.sockets.CountedAndSignedIn), so that revoking the
token closes its sockets with 4440 through `accounts.sessions` (the same note, the same
check before every command).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts import sessions
from accounts.models import AccessToken, AccessTokenEvent
from accounts.throttling import HOUR, seconds_until, throttle_count, throttle_hit, window_end

logger = logging.getLogger(__name__)

SECRET_PREFIX = "t21_"
# Each scope a token may hold; what each allows is docs/protocol.md §2.2.1's.
SCOPES = ("read", "play", "chat")
# The session key a token's sockets remember (never a real session's: those are
# lowercase letters and digits only).
TOKEN_SESSION_PREFIX = sessions.TOKEN_SESSION_PREFIX
# Refused bearers per client address (accounts.throttling), counted per hour.
FAILURE_SCOPE = "bearer-fail"
# The query-string names a token would be looked for under in a URL.
URL_NAMES = frozenset({"token", "access_token", "bearer"})


class TokenError(Exception):
    """Why a token could not be made."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Bearer:
    """A token that authenticated: its id, scopes and user."""

    id: int
    scopes: frozenset[str]
    user: Any

    @property
    def session_key(self) -> str:
        return token_session_key(self.id)


def token_session_key(token_id: int) -> str:
    return f"{TOKEN_SESSION_PREFIX}{token_id}"


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(*, user: Any, name: str, scopes: list[str], address: str = "") -> tuple[Any, str]:
    """A new token of `user` and its secret, which is not kept anywhere: the caller shows
    it once. Refused (TokenError) past ACCESS_TOKENS_PER_USER active tokens, or without a
    known scope."""
    chosen = [scope for scope in SCOPES if scope in set(scopes)]
    if not chosen or len(chosen) != len(set(scopes)):
        raise TokenError("bad_scopes")
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        # The user's row locked: two tokens made at once cannot both pass the cap.
        get_user_model()._default_manager.select_for_update().filter(pk=user.pk).first()
        active = AccessToken.objects.filter(user=user, revoked_at__isnull=True).count()
        if active >= settings.ACCESS_TOKENS_PER_USER:
            raise TokenError("too_many_tokens")
        token = AccessToken.objects.create(
            user=user,
            name=name.strip()[:60],
            scopes=" ".join(chosen),
            digest=digest_of(secret),
            prefix=secret[: len(SECRET_PREFIX) + 4],
        )
        AccessTokenEvent.objects.create(
            kind=AccessTokenEvent.Kind.CREATED, token=token, user=user, address=address
        )
    logger.info("access token %s made for user %s from %s", token.pk, user.pk, address)
    return token, secret


def token_revoke(*, token: AccessToken, by: Any = None, address: str = "") -> bool:
    """Revoke `token` (False: it already was) and close its open sockets with 4440."""
    with transaction.atomic():
        changed = AccessToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        if changed:
            AccessTokenEvent.objects.create(
                kind=AccessTokenEvent.Kind.REVOKED,
                token=token,
                user_id=token.user_id,
                address=address,
                detail=f"by {getattr(by, 'username', 'system')}"[:100],
            )
            user_id = token.user_id
            transaction.on_commit(
                lambda: sessions.sessions_may_have_ended(
                    user_id=user_id, session_key=token_session_key(token.pk)
                )
            )
    if changed:
        logger.info("access token %s revoked by %s", token.pk, getattr(by, "pk", None))
    return bool(changed)


def throttled(address: str | None) -> bool:
    """Whether `address` is over its refused bearers for this hour: then even a good
    token is refused until the hour is over, as a locked-out sign-in is."""
    if not address:
        return False
    return throttle_count(scope=FAILURE_SCOPE, subject=address) >= settings.BEARER_FAILURES_PER_HOUR


def throttle_retry_after() -> int:
    """The seconds a throttled address waits: its refused bearers are counted per clock
    hour, so until the hour is over (docs/protocol.md §3, `bad_tokens`)."""
    return seconds_until(window_end(HOUR))


def failure_record(*, address: str | None, reason: str) -> None:
    """Count and audit a refused bearer."""
    if address:
        throttle_hit(scope=FAILURE_SCOPE, subject=address, limit=settings.BEARER_FAILURES_PER_HOUR)
    AccessTokenEvent.objects.create(
        kind=AccessTokenEvent.Kind.REFUSED, address=address or "", detail=reason[:100]
    )
    logger.warning("bearer refused (%s) from %s", reason, address)


def token_authenticate(secret: str) -> Bearer | None:
    """The token the secret is, if it stands (not revoked, its user active); its last use
    recorded (at most once a minute). None for anything else."""
    if not secret.startswith(SECRET_PREFIX) or len(secret) > 100:
        return None
    token = (
        AccessToken.objects.select_related("user")
        .filter(digest=digest_of(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    sessions.token_last_use_record(token.pk, token.last_used_at)
    return Bearer(id=token.pk, scopes=frozenset(token.scope_list), user=token.user)


def bearer_of(headers: Any) -> str | None:
    """The secret of an `Authorization: Bearer …` header (ASGI headers: pairs of bytes),
    "" for an Authorization header that is not one, None without the header."""
    for name, value in headers or ():
        if name.lower() == b"authorization":
            return secret_of_header(value.decode("latin-1"))
    return None


def secret_of_header(value: str) -> str:
    scheme, _, secret = value.strip().partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else ""


def in_url(query_string: str) -> bool:
    """Whether the query string carries a token (which is refused, not used: a URL ends
    up in logs, histories and Referer headers)."""
    for name, value in parse_qsl(query_string, keep_blank_values=True):
        if name.lower() in URL_NAMES or value.startswith(SECRET_PREFIX):
            return True
    return False
