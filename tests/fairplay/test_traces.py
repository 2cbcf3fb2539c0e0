"""Linked accounts' evidence (issue 32, item 1): every sign-in records its client address
and the browser's device cookie, only as keyed hashes, kept for
FAIRPLAY_TRACE_RETENTION_DAYS after last seen; two accounts' link score is lichess's
a + f + a·f over what they share."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from fairplay.links import Link, link_between, links_to
from fairplay.middleware import DEVICE_COOKIE
from fairplay.models import Trace
from fairplay.tasks import fairplay_traces_purge
from fairplay.traces import traces_record
from tests.conftest import reset_throttle_counts

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-9"


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    reset_throttle_counts()
    yield


def _sign_in(client: Client, username: str, address: str) -> None:
    answer = client.post(
        reverse("login"), {"username": username, "password": PASSWORD}, REMOTE_ADDR=address
    )
    assert answer.status_code == 302, answer.content[:300]


def test_a_browser_gets_an_httponly_device_cookie_once(client):
    first = client.get(reverse("login"))
    cookie = first.cookies[DEVICE_COOKIE]
    assert len(cookie.value) == 32 and cookie["httponly"] and cookie["samesite"] == "Lax"
    again = client.get(reverse("login"))
    assert DEVICE_COOKIE not in again.cookies  # kept, not replaced


def test_a_forged_device_cookie_is_replaced_not_recorded(client, make_user):
    make_user("ann")
    client.cookies[DEVICE_COOKIE] = "x" * 5000
    _sign_in(client, "ann", "198.51.100.1")
    assert client.cookies[DEVICE_COOKIE].value != "x" * 5000
    assert len(client.cookies[DEVICE_COOKIE].value) == 32


def test_a_sign_in_records_the_address_and_device_hashed_never_in_clear(client, make_user):
    ann = make_user("ann")
    client.get(reverse("login"))
    device = client.cookies[DEVICE_COOKIE].value
    _sign_in(client, "ann", "198.51.100.23")
    traces = {t.kind: t.digest for t in Trace.objects.filter(user=ann)}
    assert set(traces) == {"address", "device"}
    stored = " ".join(Trace.objects.values_list("digest", flat=True))
    assert "198.51.100.23" not in stored and device not in stored
    assert all(len(d) == 64 for d in traces.values())


def test_two_accounts_from_one_browser_and_address_score_three(client, make_user):
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    _sign_in(client, "ann", "198.51.100.23")
    client.post(reverse("logout"))
    _sign_in(client, "bob", "198.51.100.23")  # the same browser keeps its device cookie
    Client().post(
        reverse("login"), {"username": "eve", "password": PASSWORD}, REMOTE_ADDR="198.51.100.23"
    )
    assert link_between(ann.pk, bob.pk) == Link(addresses=1, devices=1)
    assert link_between(ann.pk, bob.pk).score == 3
    # eve shares the address (a café, a household) but not the browser: 1.
    assert link_between(ann.pk, eve.pk).score == 1
    assert links_to(ann.pk, [bob.pk, eve.pk, ann.pk]).keys() == {bob.pk, eve.pk}


def test_the_score_grows_as_lichess_counts_it(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    for address in ("192.0.2.1", "192.0.2.2"):
        traces_record(user=ann, address=address)
        traces_record(user=bob, address=address)
    assert link_between(ann.pk, bob.pk).score == 2  # two addresses, no device
    traces_record(user=ann, device="a" * 32)
    traces_record(user=bob, device="a" * 32)
    assert link_between(bob.pk, ann.pk) == Link(addresses=2, devices=1)
    assert link_between(bob.pk, ann.pk).score == 2 + 1 + 2 * 1


def test_a_trace_seen_again_keeps_one_row_and_moves_last_seen(make_user):
    ann = make_user("ann")
    then = timezone.now() - datetime.timedelta(days=10)
    traces_record(user=ann, address="192.0.2.1", now=then)
    traces_record(user=ann, address="192.0.2.1")
    trace = Trace.objects.get(user=ann)
    assert trace.first_seen == then and trace.last_seen > then


@override_settings(FAIRPLAY_TRACE_RETENTION_DAYS=90)
def test_traces_not_seen_for_the_retention_period_are_purged(make_user):
    ann = make_user("ann")
    old = timezone.now() - datetime.timedelta(days=91)
    traces_record(user=ann, address="192.0.2.1", now=old)
    traces_record(user=ann, address="192.0.2.2", now=old)
    traces_record(user=ann, address="192.0.2.2")  # seen again since: kept
    assert fairplay_traces_purge() == 1
    assert Trace.objects.filter(user=ann).count() == 1
