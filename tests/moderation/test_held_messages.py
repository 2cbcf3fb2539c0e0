"""A spectator's message held from the seated players mid-deal (docs/protocol.md §17.3)
is not there for them on /report/ either: the form does not quote it, and the form and
JSON alike answer as if there were no such message (message ids are sequential, so the
report form must not be a way around the hold)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from chat.models import ChatMessage
from moderation.models import Report
from tables.models import Seat

pytestmark = pytest.mark.django_db

URL = "/report/"
COACHING = "Бери ещё, у дилера 6!"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "ru"
    return client


@pytest.fixture
def held(make_user: Any, table: Any) -> dict[str, Any]:
    """ann sits at the table; carol, watching, coached her mid-deal: held from ann."""
    ann, carol, dave = make_user("ann"), make_user("carol"), make_user("dave")
    Seat.objects.create(table=table, number=1, player=ann)
    message = ChatMessage.objects.create(
        table=table,
        author=carol,
        text=COACHING,
        shown=COACHING,
        from_spectator=True,
        held=True,
        withheld_from=[ann.pk],
    )
    return {"ann": ann, "carol": carol, "dave": dave, "table": table, "message": message}


def test_the_form_does_not_quote_a_held_message_to_the_player_it_is_held_from(held):
    page = _client(held["ann"]).get(URL, {"message": held["message"].pk})
    assert page.status_code == 404
    text = page.content.decode()
    assert "у дилера 6" not in text and "carol" not in text


def test_the_form_does_not_quote_a_held_message_to_a_player_seated_since(held):
    # dave sat down after carol wrote: he is seated now, so it is held from him too.
    Seat.objects.create(table=held["table"], number=2, player=held["dave"])
    page = _client(held["dave"]).get(URL, {"message": held["message"].pk})
    assert page.status_code == 404
    assert "у дилера 6" not in page.content.decode()


def test_a_held_message_cannot_be_reported_by_the_player_it_is_held_from(held):
    client = _client(held["ann"])
    answer = client.post(
        URL,
        data=json.dumps({"message": held["message"].pk, "reason": "insult"}),
        content_type="application/json",
    )
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"
    form = client.post(URL, {"message": held["message"].pk, "reason": "insult"})
    assert form.status_code == 404
    assert "у дилера 6" not in form.content.decode()
    assert not Report.objects.exists()


def test_a_spectator_sees_and_reports_a_held_message(held):
    client = _client(held["dave"])
    page = client.get(URL, {"message": held["message"].pk})
    assert page.status_code == 200 and COACHING in page.content.decode()
    answer = client.post(
        URL,
        data=json.dumps({"message": held["message"].pk, "reason": "spam"}),
        content_type="application/json",
    )
    assert answer.status_code == 201


def test_once_released_the_player_sees_and_reports_it(held):
    ChatMessage.objects.filter(pk=held["message"].pk).update(released_at=timezone.now())
    client = _client(held["ann"])
    page = client.get(URL, {"message": held["message"].pk})
    assert page.status_code == 200 and COACHING in page.content.decode()
    answer = client.post(
        URL,
        data=json.dumps({"message": held["message"].pk, "reason": "spam"}),
        content_type="application/json",
    )
    assert answer.status_code == 201
