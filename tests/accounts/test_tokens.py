"""Personal access tokens: made on the account page, stored hashed, shown once, and taken
as `Authorization: Bearer` by the JSON endpoints with their scopes (docs/protocol.md
§2.2.1). The sockets' side: tests/accounts/test_token_sockets.py."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import sessions, tokens
from accounts.models import AccessToken, AccessTokenEvent, User
from tests.conftest import reset_throttle_counts

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    reset_throttle_counts()


@pytest.fixture
def owner() -> User:
    return User.objects.create_user(username="bot-owner", password="x-correct-9", email="o@e.st")


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_the_page_shows_a_new_tokens_secret_once_and_stores_only_its_sha256(owner):
    browser = Client()
    browser.force_login(owner)
    made = browser.post(reverse("access_tokens"), {"name": "my bot", "scopes": ["read", "play"]})
    assert made.status_code == 201
    secret = made.context["secret"]
    assert secret.startswith("t21_") and len(secret) >= 40
    assert secret in made.content.decode()
    token = AccessToken.objects.get(user=owner)
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert token.scope_list == ["read", "play"] and token.name == "my bot"
    assert secret.startswith(token.prefix) and len(token.prefix) < 12
    stored = json.dumps(list(AccessToken.objects.values()), default=str)
    assert secret not in stored
    # Listed afterwards, by name and prefix, never again with the secret.
    listing = browser.get(reverse("access_tokens")).content.decode()
    assert "my bot" in listing and token.prefix in listing and secret not in listing
    assert AccessTokenEvent.objects.filter(kind="created", token=token).exists()


def test_the_page_answers_in_both_languages(owner):
    browser = Client()
    browser.force_login(owner)
    tokens.token_create(user=owner, name="listed", scopes=["read"])
    for language, words in (("ru", "Токены доступа"), ("en", "Access tokens")):
        browser.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = browser.get(reverse("access_tokens"))
        assert page.status_code == 200 and words in page.content.decode()


def test_a_user_holds_at_most_the_settings_number_of_active_tokens(owner, settings):
    settings.ACCESS_TOKENS_PER_USER = 2
    first, _ = tokens.token_create(user=owner, name="a", scopes=["read"])
    tokens.token_create(user=owner, name="b", scopes=["read"])
    with pytest.raises(tokens.TokenError):
        tokens.token_create(user=owner, name="c", scopes=["read"])
    tokens.token_revoke(token=first, by=owner)
    tokens.token_create(user=owner, name="c", scopes=["read"])


def test_an_unknown_scope_is_refused(owner):
    with pytest.raises(tokens.TokenError):
        tokens.token_create(user=owner, name="a", scopes=["read", "admin"])


def test_a_token_authenticates_its_user_with_its_scopes_until_revoked(owner):
    token, secret = tokens.token_create(user=owner, name="a", scopes=["read", "chat"])
    found = tokens.token_authenticate(secret)
    assert found is not None and found.user == owner and found.scopes == {"read", "chat"}
    assert tokens.token_authenticate(secret + "x") is None
    assert tokens.token_authenticate("not-a-token") is None
    tokens.token_revoke(token=token, by=owner)
    assert tokens.token_authenticate(secret) is None
    assert AccessTokenEvent.objects.filter(kind="revoked", token=token).exists()


def test_a_deactivated_users_token_no_longer_authenticates(owner):
    _token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    User.objects.filter(pk=owner.pk).update(is_active=False)
    assert tokens.token_authenticate(secret) is None


def test_last_use_is_recorded_at_most_once_a_minute(owner):
    token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    assert token.last_used_at is None
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        tokens.token_authenticate(secret)
        assert sessions.token_current(token_id=token.pk, user_id=owner.pk)
    token.refresh_from_db()
    assert token.last_used_at == start
    with time_machine.travel(start + timedelta(seconds=30), tick=False):
        tokens.token_authenticate(secret)
    token.refresh_from_db()
    assert token.last_used_at == start
    with time_machine.travel(start + timedelta(seconds=61), tick=False):
        assert sessions.token_current(token_id=token.pk, user_id=owner.pk)
    token.refresh_from_db()
    assert token.last_used_at == start + timedelta(seconds=61)


def test_revoking_on_the_page_takes_a_post_of_the_owner(owner):
    token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    stranger = User.objects.create_user(username="stranger", password="x-correct-9")
    other = Client()
    other.force_login(stranger)
    assert other.post(reverse("access_token_revoke", args=[token.pk])).status_code == 404
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(owner)
    assert browser.get(reverse("access_token_revoke", args=[token.pk])).status_code == 405
    assert browser.post(reverse("access_token_revoke", args=[token.pk])).status_code == 403
    browser = Client()
    browser.force_login(owner)
    assert browser.post(reverse("access_token_revoke", args=[token.pk])).status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert tokens.token_authenticate(secret) is None


# --- the JSON endpoints ----------------------------------------------------------------


def test_a_read_token_gets_the_json_endpoints_as_its_user(owner):
    _token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    answer = Client().get(reverse("chips_balance"), **bearer(secret))
    assert answer.status_code == 200 and answer.json()["balance"] is not None
    assert Client().get(reverse("chips_balance")).json()["balance"] is None


def test_an_endpoint_refuses_a_token_without_its_scope_with_403_scope_missing(owner):
    _token, secret = tokens.token_create(user=owner, name="a", scopes=["play"])
    answer = Client().get(reverse("chips_balance"), **bearer(secret))
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "scope_missing"
    assert "read" in answer.json()["error"]["message"]


def test_a_token_post_needs_no_csrf_token_but_its_scope(owner):
    friend = User.objects.create_user(username="pal", password="x-correct-9")
    _t, reader = tokens.token_create(user=owner, name="r", scopes=["read"])
    _t, player = tokens.token_create(user=owner, name="p", scopes=["play"])
    browser = Client(enforce_csrf_checks=True)
    body = json.dumps({"name": friend.username})
    url = "/friends/request/"
    refused = browser.post(url, body, content_type="application/json", **bearer(reader))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "scope_missing"
    done = browser.post(url, body, content_type="application/json", **bearer(player))
    assert done.status_code == 200, done.content


def test_a_page_that_is_no_json_endpoint_refuses_a_token(owner):
    _token, secret = tokens.token_create(user=owner, name="a", scopes=["read", "play", "chat"])
    for url in (reverse("access_tokens"), reverse("chips"), "/admin/"):
        answer = Client().get(url, **bearer(secret))
        assert answer.status_code == 403
        assert answer.json()["error"]["code"] == "token_not_accepted"


def test_a_revoked_or_unknown_token_is_refused_with_401_not_served_anonymously(owner):
    token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    tokens.token_revoke(token=token, by=owner)
    for header in (f"Bearer {secret}", "Bearer t21_nothing", "Basic Ym90OnB3"):
        answer = Client().get(reverse("chips_balance"), HTTP_AUTHORIZATION=header)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "bad_token"
        assert answer["WWW-Authenticate"].startswith("Bearer")
    assert AccessTokenEvent.objects.filter(kind="refused", detail="bad_token").count() == 3


def test_a_token_in_the_query_string_is_refused_and_not_used(owner):
    _token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    for query in (f"access_token={secret}", f"token={secret}", f"x={secret}"):
        answer = Client().get(f"{reverse('chips_balance')}?{query}")
        assert answer.status_code == 400
        assert answer.json()["error"]["code"] == "token_in_url"


def test_an_address_past_its_refused_tokens_is_refused_even_a_good_one_with_429(owner, settings):
    settings.BEARER_FAILURES_PER_HOUR = 3
    _token, secret = tokens.token_create(user=owner, name="a", scopes=["read"])
    client = Client(REMOTE_ADDR="10.9.8.7")
    for _ in range(3):
        assert client.get("/lobby.json", **bearer("t21_guess")).status_code == 401
    answer = client.get("/lobby.json", **bearer(secret))
    assert answer.status_code == 429 and answer.json()["error"]["code"] == "rate_limited"
    # A program reads the limit and how long to wait: until the clock hour ends.
    error = answer.json()["error"]
    left = 3600 - int(time.time()) % 3600
    assert error["limit"] == "bad_tokens" and left - 2 <= error["retry_after"] <= left
    assert answer["Retry-After"] == str(error["retry_after"])
    # Another address is not affected; the next hour the address is served again.
    assert Client(REMOTE_ADDR="10.9.8.8").get("/lobby.json", **bearer(secret)).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(hours=1)):
        assert client.get("/lobby.json", **bearer(secret)).status_code == 200
