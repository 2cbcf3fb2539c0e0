"""Subscribing over HTTP with a real session, and a push delivered through a local push
service: encrypted for the browser, with the right TTL and topic; a subscription the
service answers 410 (or 404) for is deleted, other failures keep it."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from push import services
from push.models import Notice, Subscription
from push.sending import notice_deliver

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/push/subscriptions/"


def signed_in(user: Any, language: str = "ru") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def subscribe(client: Client, endpoint: str, keys: dict[str, str]) -> Any:
    body = {"endpoint": endpoint, "expirationTime": None, "keys": keys}
    return client.post(URL, json.dumps(body), content_type="application/json")


def test_a_subscription_is_stored_through_the_endpoint_and_forgotten_on_delete(
    make_user, vapid, browser, push_service
):
    ann = make_user("ann")
    client = signed_in(ann, "en")
    first = subscribe(client, push_service.endpoint(), browser.keys)
    assert first.status_code == 201, first.content
    stored = Subscription.objects.get()
    assert (stored.user, stored.endpoint, stored.language) == (
        ann,
        push_service.endpoint(),
        "en",
    )
    assert (stored.p256dh, stored.auth) == (browser.keys["p256dh"], browser.keys["auth"])
    again = subscribe(client, push_service.endpoint(), browser.keys)
    assert again.status_code == 200 and again.json() == {
        "subscription": stored.pk,
        "created": False,
    }
    gone = client.delete(
        URL, json.dumps({"endpoint": push_service.endpoint()}), content_type="application/json"
    )
    assert gone.json() == {"deleted": True}
    assert not Subscription.objects.exists()


def test_subscribing_needs_a_session_csrf_push_on_and_a_well_formed_body(
    make_user, settings, vapid, browser
):
    anonymous = subscribe(Client(), "https://push.example/1", browser.keys)
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "not_signed_in"
    ann = make_user("ann")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(ann)
    assert subscribe(strict, "https://push.example/1", browser.keys).status_code == 403
    client = signed_in(ann)
    bad = subscribe(client, "https://push.example/1", {"p256dh": "not base64!", "auth": "x"})
    assert bad.status_code == 400
    assert bad.json()["error"]["field"] == "keys.p256dh"
    # Over https (production) only https push services; over http, a local one too.
    body = {"endpoint": "http://127.0.0.1:9/push", "keys": browser.keys}
    plain = client.post(URL, json.dumps(body), content_type="application/json", secure=True)
    assert plain.status_code == 400 and plain.json()["error"]["field"] == "endpoint"
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    off = subscribe(client, "https://push.example/1", browser.keys)
    assert off.status_code == 404 and off.json()["error"]["code"] == "push_off"
    assert not Subscription.objects.exists()


def _turn_notice(user: Any, seconds: float) -> Notice:
    return Notice.objects.create(
        user=user,
        kind=Notice.Kind.TURN,
        key="7:12",
        tag="table-7",
        url="/tables/7/",
        open_until=timezone.now() + datetime.timedelta(seconds=seconds),
        context={"table": "Классика"},
    )


def test_a_push_reaches_the_push_service_encrypted_with_its_ttl_and_topic(
    make_user, vapid, browser, push_service
):
    ann = make_user("ann")
    assert subscribe(signed_in(ann), push_service.endpoint(), browser.keys).status_code == 201
    notice = _turn_notice(ann, 25)
    assert notice_deliver(notice_id=notice.pk, now=timezone.now()) == 1
    [push] = push_service.received
    assert push.path == "/push/browser-1"
    assert 23 <= int(push.headers["ttl"]) <= 25
    assert push.headers["topic"] == "table-7"
    assert push.headers["content-encoding"] == "aes128gcm"
    assert push.headers["authorization"].startswith("vapid t=")
    assert f"k={vapid[0]}" in push.headers["authorization"]
    assert json.loads(browser.decrypt(push.body)) == {
        "title": "Ваш ход",
        "body": "Стол «Классика» ждёт вашего решения.",
        "url": "/tables/7/",
        "tag": "table-7",
    }
    assert Subscription.objects.get().last_success_at is not None


@pytest.mark.parametrize("status", [410, 404])
def test_a_subscription_the_push_service_calls_gone_is_deleted(
    make_user, vapid, browser, push_service, status
):
    ann = make_user("ann")
    subscribe(signed_in(ann), push_service.endpoint(), browser.keys)
    push_service.status = status
    assert notice_deliver(notice_id=_turn_notice(ann, 25).pk, now=timezone.now()) == 0
    assert len(push_service.received) == 1
    assert not Subscription.objects.exists()


def test_another_failure_keeps_the_subscription_and_is_not_retried(
    make_user, vapid, browser, push_service
):
    ann = make_user("ann")
    subscribe(signed_in(ann), push_service.endpoint(), browser.keys)
    push_service.status = 500
    assert notice_deliver(notice_id=_turn_notice(ann, 25).pk, now=timezone.now()) == 0
    assert len(push_service.received) == 1
    assert Subscription.objects.get().last_success_at is None


def test_stale_news_is_not_sent(make_user, vapid, browser, push_service):
    ann = make_user("ann")
    subscribe(signed_in(ann), push_service.endpoint(), browser.keys)
    notice = _turn_notice(ann, -1)
    assert notice_deliver(notice_id=notice.pk, now=timezone.now()) == 0
    assert push_service.received == []


def test_a_notice_is_decided_once_and_delivered_after_commit(
    make_user, vapid, browser, push_service
):
    ann = make_user("ann")
    subscribe(signed_in(ann), push_service.endpoint(), browser.keys)
    fields: dict[str, Any] = {
        "user_id": ann.pk,
        "kind": Notice.Kind.TABLE_READY,
        "key": "3",
        "tag": "table-3",
        "url": "/tables/3/",
        "open_until": timezone.now() + datetime.timedelta(minutes=5),
        "context": {"event": "Вечерний заезд"},
    }
    assert services.notice_create(**fields) is not None
    assert services.notice_create(**fields) is None
    [push] = push_service.received
    assert json.loads(browser.decrypt(push.body))["title"] == "Ваш стол готов"
