"""Whether a signed-in socket's session still stands, and the note that tells a user's
sockets when one of their sessions may have ended (docs/protocol.md §2.4).

A socket is authenticated once, at its handshake (Channels' AuthMiddleware). A session
ended afterwards — signing out, a password changed or reset, an account deactivated —
would leave it signed in for as long as it stays open. So the sockets join their user's
group (`user_group`), which is told whenever a session of theirs may have ended, and
every command first asks `session_current`: a note that never arrived cannot let an
ended session act.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from datetime import timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts.models import AccessToken
from lib.group_send import group_send_from_sync
from lib.rows import column, table_name

logger = logging.getLogger(__name__)

_DATABASE_SESSIONS = "django.contrib.sessions.backends.db"
# The session key of a socket signed in with an access token (accounts.tokens): the token's
# id after it.
TOKEN_SESSION_PREFIX = "token:"
# A token's last_used_at is written at most this often, not at every message.
LAST_USE_EVERY = timedelta(minutes=1)
# The group event the consumers handle (their `session_ended` method).
SESSION_ENDED_EVENT = "session.ended"


def user_group(user_id: int) -> str:
    """The channel-layer group every signed-in socket of a user joins."""
    return f"user-sessions.{user_id}"


def session_digest(session_key: str | None) -> str:
    """A session named without its key (the key is a credential; the channel layer's
    messages pass through Redis)."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()


@functools.cache
def _session_with_user_sql() -> str:
    user = get_user_model()
    users = table_name(user)
    # Every command of a socket asks it (play.edge.consumers): the session row with its user's
    # password hash and active flag, one statement, written once (the same SQL on
    # PostgreSQL and SQLite).
    return f"""
        SELECT s.{column(Session, "session_data")}, u.{column(user, "password")},
               u.{column(user, "is_active")}
        FROM {table_name(Session)} s
        LEFT JOIN {users} u ON u.{column(user, "id")} = %s
        WHERE s.{column(Session, "session_key")} = %s AND s.{column(Session, "expire_date")} > %s
        LIMIT 1"""


def _session_with_user(session_key: str, now: Any, user_id: int) -> Any:
    expire_date = Session._meta.get_field("expire_date")
    with connection.cursor() as cursor:
        cursor.execute(
            _session_with_user_sql(),
            [user_id, session_key, expire_date.get_db_prep_value(now, connection)],
        )
        return cursor.fetchone()


def session_current(*, session_key: str | None, user: Any) -> bool:
    """The session still exists, unexpired, signs `user` in, and was signed with their
    current password (the session's `_auth_user_hash` against the user's
    `get_session_auth_hash()`, or one made with a SECRET_KEY_FALLBACKS key, as Django's
    own `get_user` accepts), and the user is still active.

    One query with the database sessions (the default): the session row, with the user's
    password and active flag read in the same statement."""
    if not session_key or user is None or not user.is_authenticated:
        return False
    if session_key.startswith(TOKEN_SESSION_PREFIX):
        # A socket signed in with an access token: the token stands (accounts.tokens).
        token_id = session_key.removeprefix(TOKEN_SESSION_PREFIX)
        return token_id.isdigit() and token_current(token_id=int(token_id), user_id=user.pk)
    if settings.SESSION_ENGINE == _DATABASE_SESSIONS:
        row = _session_with_user(session_key, timezone.now(), user.pk)
        if row is None:
            return False
        encoded, password, active = row
        keys = (settings.SECRET_KEY, tuple(settings.SECRET_KEY_FALLBACKS))
        return bool(active) and password is not None and _signs_in(encoded, password, user.pk, keys)
    # Another session engine: its own read, then the user's.
    users = get_user_model()._default_manager.filter(pk=user.pk)
    data = import_module(settings.SESSION_ENGINE).SessionStore(session_key).load()
    found = users.values_list("password", "is_active").first()
    password, active = found if found is not None else (None, False)
    if password is None or not active:
        return False
    return _data_signs_in(data, password, user.pk)


@functools.lru_cache(maxsize=4096)
def _signs_in(encoded: str, password: str, user_id: int, keys: tuple[Any, ...]) -> bool:
    """Whether the stored session data `encoded` signs user `user_id` in with the password
    hash `password` under the signing `keys`. Remembered: a socket's every command asks it
    again of the same row, and for the same data, hash and keys the answer cannot change,
    so the signature check and the HMACs are not computed again for each command."""
    data = import_module(_DATABASE_SESSIONS).SessionStore().decode(encoded)
    return _data_signs_in(data, password, user_id)


def _data_signs_in(data: dict[str, Any], password: str, user_id: int) -> bool:
    if data.get(SESSION_KEY) != str(user_id):
        return False
    stored = data.get(HASH_SESSION_KEY)
    if not stored:
        return False
    holder = get_user_model()(pk=user_id, password=password)
    hashes = [holder.get_session_auth_hash(), *holder.get_session_auth_fallback_hash()]
    return any(constant_time_compare(stored, expected) for expected in hashes)


def sessions_may_have_ended(*, user_id: int, session_key: str | None = None) -> None:
    """Tell the user's sockets: the session `session_key` ended (each closes if it is
    theirs), or, without a key, that any of the user's sessions may have (each checks
    its own). A channel layer that cannot be reached loses only the note: every command
    is checked anyway."""
    event = {
        "type": SESSION_ENDED_EVENT,
        "session": session_digest(session_key) if session_key else None,
    }
    try:
        group_send_from_sync(user_group(user_id), event)
    except Exception:
        logger.exception("could not tell the sockets of user %s that a session ended", user_id)


def token_current(*, token_id: int, user_id: int) -> bool:
    """Whether the token a socket signed in with still stands (checked before each of its
    commands, as a session is); its last use recorded at most once a minute."""
    row = (
        AccessToken.objects.filter(
            pk=token_id, user_id=user_id, revoked_at__isnull=True, user__is_active=True
        )
        .values_list("pk", "last_used_at")
        .first()
    )
    if row is None:
        return False
    token_last_use_record(token_id, row[1])
    return True


def token_last_use_record(token_id: int, last: Any) -> None:
    """Record a token's use now, unless it was recorded less than LAST_USE_EVERY ago."""
    now = timezone.now()
    if last is not None and now - last < LAST_USE_EVERY:
        return
    # Conditional: of many sockets of one token, one write a minute.
    AccessToken.objects.filter(pk=token_id).exclude(last_used_at__gte=now - LAST_USE_EVERY).update(
        last_used_at=now
    )
