"""Password guessing is throttled by django-axes, per user name and address."""

from __future__ import annotations

import datetime
import re

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.urls import reverse

from tests.contract.http_bodies import assert_limit_refusal

pytestmark = pytest.mark.django_db

PASSWORD = "Tuz-i-desyatka-21"
# Fifty seconds before a clock hour ends: an hourly limit's refusal then waits 50 s.
FIFTY_SECONDS_BEFORE_ONE = datetime.datetime(2026, 3, 2, 12, 59, 10, tzinfo=datetime.UTC)
JSON = {"HTTP_ACCEPT": "application/json"}


def _sign_in(client, username: str, password: str, address: str = "203.0.113.7", **headers):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **headers,
    )


def test_a_locked_out_sign_in_says_when_the_cool_off_ends(client, make_user):
    make_user("vera", password=PASSWORD)
    cool_off = int(settings.AXES_COOLOFF_TIME.total_seconds())
    with time_machine.travel(FIFTY_SECONDS_BEFORE_ONE, tick=False) as clock:
        for _ in range(settings.AXES_FAILURE_LIMIT):
            _sign_in(client, "vera", "wrong")
        clock.shift(60)
        page = _sign_in(client, "vera", PASSWORD)
        # The page, saying when the cool-off is over (the first whole second after it): a
        # refused attempt is a failure too, so each one starts it again.
        assert page.status_code == 429 and "Слишком много попыток входа" in page.content.decode()
        assert page["Retry-After"] == str(cool_off + 1)
        clock.shift(1)
        waited = assert_limit_refusal(_sign_in(client, "vera", PASSWORD, **JSON), "sign_ins")
        assert waited == cool_off + 1
        clock.shift(waited)
        assert _sign_in(client, "vera", PASSWORD).status_code == 302


def test_after_the_failure_limit_even_the_right_password_is_refused_with_429(client, make_user):
    make_user("vera", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _sign_in(client, "vera", "wrong").status_code == 200  # the form again
    locked = _sign_in(client, "vera", "wrong")
    assert locked.status_code == 429
    assert "Слишком много попыток входа" in locked.content.decode()
    refused = _sign_in(client, "vera", PASSWORD)
    assert refused.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_lockout_is_per_user_name_and_address(client, make_user):
    make_user("vera", password=PASSWORD)
    make_user("gleb", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _sign_in(client, "vera", "wrong")
    # Guessing vera's password from one address locks neither vera elsewhere nor gleb.
    assert _sign_in(client, "vera", PASSWORD, address="198.51.100.2").status_code == 302
    client.logout()
    assert _sign_in(client, "gleb", PASSWORD).status_code == 302


def test_a_successful_sign_in_resets_the_count(client, make_user):
    make_user("vera", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _sign_in(client, "vera", "wrong")
    assert _sign_in(client, "vera", PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _sign_in(client, "vera", "wrong")
    assert _sign_in(client, "vera", PASSWORD).status_code == 302


def test_sign_ups_from_one_address_are_limited_per_hour(client, settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 2
    address = "198.51.100.77"

    def sign_up(name: str, **headers):
        client.post(reverse("logout"))
        return client.post(
            reverse("signup"),
            {
                "username": name,
                "email": f"{name}@example.com",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
            REMOTE_ADDR=address,
            **headers,
        )

    with time_machine.travel(FIFTY_SECONDS_BEFORE_ONE, tick=False) as clock:
        assert sign_up("one").status_code == 302
        assert sign_up("two").status_code == 302
        third = sign_up("three")
        assert third.status_code == 429 and third["Retry-After"] == "50"
        assert "Слишком много регистраций" in third.content.decode()
        assert assert_limit_refusal(sign_up("three", **JSON), "sign_ups") == 50
        clock.shift(50)  # a new clock hour: the address signs up again
        assert sign_up("next-hour").status_code == 302
        client.post(reverse("logout"))
    from accounts.models import User

    assert not User.objects.filter(username="three").exists()
    # Another address may still sign up.
    client.post(reverse("logout"))
    other = client.post(
        reverse("signup"),
        {
            "username": "four",
            "email": "four@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        REMOTE_ADDR="198.51.100.78",
    )
    assert other.status_code == 302


def test_a_name_taken_between_the_check_and_the_insert_is_refused_by_the_form_and_not_counted(
    client, make_user, monkeypatch
):
    from accounts import views
    from accounts.models import User
    from accounts.throttling import throttle_count

    real_register = views.player_register

    def register_after_a_rival(**kwargs):
        # Another sign-up takes the name after this one's form checked it.
        make_user(kwargs["username"])
        return real_register(**kwargs)

    monkeypatch.setattr(views, "player_register", register_after_a_rival)
    response = client.post(
        reverse("signup"),
        {
            "username": "rival",
            "email": "second@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        REMOTE_ADDR="198.51.100.90",
    )
    assert response.status_code == 200
    assert response.context["form"].errors["username"] == ["Это имя уже занято."]
    assert list(User.objects.values_list("email", flat=True)) == ["rival@example.com"]
    assert throttle_count(scope=views.SIGNUP_SCOPE, subject="198.51.100.90") == 0


def _reset(client, email: str, address: str = "203.0.113.50", **headers):
    return client.post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address, **headers)


def _page(response) -> str:
    # A page's CSRF tokens differ between any two responses; nothing else may.
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())


def test_password_reset_requests_are_limited_per_client_address(client, make_user, settings):
    settings.PASSWORD_RESET_LIMIT_PER_HOUR = 2
    make_user("dina", email="dina@example.com")
    with time_machine.travel(FIFTY_SECONDS_BEFORE_ONE, tick=False):
        assert _reset(client, "dina@example.com").status_code == 302
        assert _reset(client, "nobody@example.com").status_code == 302
        refused = _reset(client, "other@example.com")
        assert refused.status_code == 429 and refused["Retry-After"] == "50"
        assert "Слишком много запросов" in refused.content.decode()
        refused = _reset(client, "other@example.com", **JSON)
        assert assert_limit_refusal(refused, "password_resets") == 50
    assert len(mail.outbox) == 1
    # Another client may still ask, for the same address too.
    assert _reset(client, "dina@example.com", address="198.51.100.50").status_code == 302
    assert len(mail.outbox) == 2


def test_password_reset_requests_are_limited_per_e_mail_from_any_address(
    client, make_user, settings
):
    settings.PASSWORD_RESET_EMAIL_LIMIT_PER_HOUR = 2
    make_user("dina", email="dina@example.com")
    assert _reset(client, "dina@example.com", address="198.51.100.1").status_code == 302
    assert _reset(client, "DINA@example.com", address="198.51.100.2").status_code == 302
    refused = _reset(client, " dina@example.com", address="198.51.100.3", **JSON)
    assert 1 <= assert_limit_refusal(refused, "password_reset_emails") <= 3600
    assert len(mail.outbox) == 2
    # The one client's count was taken; others' resets are untouched.
    assert _reset(client, "gleb@example.com", address="198.51.100.3").status_code == 302


def test_a_throttled_reset_answers_alike_for_registered_and_unknown_e_mails(
    client, make_user, settings
):
    settings.PASSWORD_RESET_EMAIL_LIMIT_PER_HOUR = 3
    make_user("dina", email="dina@example.com")
    for attempt in range(5):
        known = _reset(client, "dina@example.com", address=f"198.51.100.{attempt}")
        unknown = _reset(client, "nobody@example.com", address=f"198.51.100.{attempt}")
        assert known.status_code == unknown.status_code == (302 if attempt < 3 else 429)
        assert _page(known) == _page(unknown)
        if known.status_code == 302:
            assert known["Location"] == unknown["Location"]
    assert len(mail.outbox) == 3  # dina's three; nobody's none


def test_the_throttled_reset_answer_is_translated(client, settings):
    settings.PASSWORD_RESET_LIMIT_PER_HOUR = 0
    refused = _reset(client, "dina@example.com", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 429
    assert "Too many password resets have been requested" in refused.content.decode()


def test_the_embedded_cache_keeps_an_addresss_count_through_a_flood_of_other_keys():
    # LocMem culls keys beyond MAX_ENTRIES (300 by default): a flood of throwaway
    # subjects (addresses, e-mails) must not make the cache forget one address's count.
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    from accounts.throttling import throttle_count, throttle_hit

    if not isinstance(caches["default"], LocMemCache):
        pytest.skip("the embedded (local-memory) cache only")
    for _ in range(3):
        throttle_hit(scope="sign-up", subject="198.51.100.7", limit=5)
    for n in range(2_000):
        throttle_hit(scope="password-reset-email", subject=f"u{n}@example.com", limit=3)
    assert throttle_count(scope="sign-up", subject="198.51.100.7") == 3


@pytest.mark.services
def test_on_redis_an_attempt_is_counted_in_one_round_trip_and_its_window_expires(
    redis_url, monkeypatch
):
    """The sockets count every message a client sends: on Redis that is one MULTI of
    INCRBY and PEXPIRE NX, not Django's add, exists and incr (three round trips)."""
    import redis

    from accounts import throttling

    single: list[tuple] = []
    execute = redis.Redis.execute_command

    def counted(self, *args, **kwargs):
        single.append(args)
        return execute(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "execute_command", counted)
    key = "throttle:test-one-trip"
    assert [throttling.cache_count(key, timeout=5) for _ in range(3)] == [1, 2, 3]
    assert single == []  # each count was one pipelined MULTI/EXEC, no single command
    client = throttling._redis_client(key)
    ttl = client.pttl(throttling.cache.make_and_validate_key(key))
    assert 0 < ttl <= 5000
    assert throttling.cache.get(key) == 3  # what throttle_count reads


@pytest.mark.services
def test_on_redis_the_counting_client_is_made_once_per_cache_client(redis_url):
    """Django's RedisCache makes a redis-py client for every call; the count keeps one per
    Django cache client (each context has its own), whatever the key."""
    from accounts import throttling

    mine = throttling._redis_client("throttle:a")
    assert mine is not None and throttling._redis_client("throttle:b") is mine
    assert throttling.cache_count("throttle:once-per-client", timeout=5) == 1
