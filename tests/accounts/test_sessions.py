"""accounts.sessions: whether a socket's session still stands (one query), and the note
to a user's sockets whenever a session of theirs may have ended — however the password
changes (docs/protocol.md §2.4, close code 4440)."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core import mail
from django.test import Client

from accounts.sessions import session_current, session_digest, user_group

PASSWORD = "correct-horse-9"


def signed_in(user: Any) -> Client:
    browser = Client()
    assert browser.post("/login/", {"username": user.username, "password": PASSWORD}).status_code
    return browser


class Listening:
    """A channel in the user's group, as each of their sockets is, on an event loop of its
    own that lives as long as the test: a channel of the pub/sub layer (the default)
    belongs to the loop that made it, and `async_to_sync` runs each call on a new one."""

    def __init__(self, user: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.layer = get_channel_layer()
        self.channel = self._run(self._join(user_group(user.pk)))

    def _run(self, coroutine: Any, timeout: float = 15) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _join(self, group: str) -> str:
        channel = await self.layer.new_channel()
        await self.layer.group_add(group, channel)
        return str(channel)

    def note(self) -> dict[str, Any]:
        """The next message to the channel (a bound on the wait, so that a missing note
        fails the test rather than hanging it)."""
        return dict(self._run(asyncio.wait_for(self.layer.receive(self.channel), timeout=10)))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def listening():
    opened: list[Listening] = []

    def listen(user: Any) -> Listening:
        opened.append(Listening(user))
        return opened[-1]

    yield listen
    for listener in opened:
        listener.close()


@pytest.mark.django_db(transaction=True)
def test_a_current_session_is_seen_in_one_query(make_user, django_assert_num_queries):
    user = make_user()
    key = signed_in(user).session.session_key
    with django_assert_num_queries(1):
        assert session_current(session_key=key, user=user)
    assert not session_current(session_key="not-a-session", user=user)
    assert not session_current(session_key=key, user=make_user())  # another user's session
    assert not session_current(session_key=None, user=user)


@pytest.mark.django_db(transaction=True)
def test_signing_out_names_the_ended_session_to_the_users_sockets(make_user, listening):
    user = make_user()
    browser = signed_in(user)
    key = browser.session.session_key
    sockets = listening(user)
    browser.post("/logout/")
    assert sockets.note() == {"type": "session.ended", "session": session_digest(key)}
    assert not session_current(session_key=key, user=user)


@pytest.mark.django_db(transaction=True)
def test_a_password_reset_through_the_reset_pages_ends_every_session(make_user, listening):
    user = make_user()
    key = signed_in(user).session.session_key
    sockets = listening(user)
    Client().post("/password/reset/", {"email": user.email})
    link = re.search(r"/password/reset/[^/\s]+/[^/\s]+/", mail.outbox[-1].body)
    assert link is not None
    reset = Client()
    form = reset.get(link.group(0), follow=True)
    new = "x9-brand-new-pass"
    assert (
        reset.post(
            form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}
        ).status_code
        == 302
    )
    assert sockets.note() == {"type": "session.ended", "session": None}
    user.refresh_from_db()
    assert not session_current(session_key=key, user=user)


@pytest.mark.django_db(transaction=True)
def test_a_save_that_keeps_the_password_sends_no_note(make_user, listening):
    user = make_user()
    sockets = listening(user)
    user.first_name = "Same"
    user.save()
    user.save(update_fields=["last_login"])
    # A marker sent after them is the first thing the user's sockets receive.
    async_to_sync(get_channel_layer().group_send)(user_group(user.pk), {"type": "marker"})
    assert sockets.note() == {"type": "marker"}
