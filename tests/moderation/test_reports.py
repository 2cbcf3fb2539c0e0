"""«Пожаловаться» (issue 21, item 2): /report/ as a page, a form post and JSON."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from contract.http import ErrorBody, ReportFiled
from moderation.models import Report
from moderation.services import ReportRefused, report_create
from tests.contract.http_bodies import assert_body, assert_limit_refusal

pytestmark = pytest.mark.django_db

URL = "/report/"


def _client(user: Any, language: str = "ru", **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


_FIFTY_SECONDS_BEFORE_ONE = datetime.datetime(2026, 3, 2, 12, 59, 10, tzinfo=datetime.UTC)


def _post_json(client: Client, body: Any) -> Any:
    """A JSON post, its answer checked against its definition (contract.http)."""
    answer = client.post(URL, data=json.dumps(body), content_type="application/json")
    if answer["Content-Type"] == "application/json":
        assert_body(answer, ReportFiled if answer.status_code == 201 else ErrorBody)
    return answer


def test_the_url_is_the_contracts():
    assert reverse("moderation:report") == URL


# --- the page ------------------------------------------------------------------------------


def test_the_form_for_a_message_shows_the_message_and_the_four_reasons(conversation):
    page = _client(conversation["ann"]).get(URL, {"message": conversation["rude"].pk})
    text = page.content.decode()
    assert page.status_code == 200
    assert "Жалоба на игрока bob" in text
    assert "ты *****" in text and "ты дурак" not in text  # players see the masked text
    for value in ("insult", "collusion", "spam", "other"):
        assert f'value="{value}"' in text
    assert "оскорбления".capitalize() in text and 'maxlength="500"' in text


def test_the_form_for_a_player_in_english(conversation):
    page = _client(conversation["ann"], "en").get(URL, {"player": "bob"})
    text = page.content.decode()
    assert page.status_code == 200
    assert "Report bob" in text and "Insults" in text and "Collusion" in text


def test_the_form_needs_a_signed_in_player(conversation):
    page = Client().get(URL, {"player": "bob"})
    assert page.status_code == 302 and page["Location"].startswith("/login/?next=")


def test_the_form_for_an_unknown_player_or_message_is_404(conversation):
    client = _client(conversation["ann"])
    assert client.get(URL, {"player": "nobody"}).status_code == 404
    assert client.get(URL, {"message": 999_999}).status_code == 404
    assert client.get(URL).status_code == 400


def test_the_form_refuses_reporting_yourself(conversation):
    page = _client(conversation["bob"]).get(URL, {"message": conversation["rude"].pk})
    assert page.status_code == 400
    assert "На себя пожаловаться нельзя" in page.content.decode()


# --- a form post ---------------------------------------------------------------------------


def test_a_form_post_files_the_report_and_thanks_with_a_link_back(conversation):
    client = _client(conversation["ann"])
    answer = client.post(
        URL,
        {
            "message": conversation["rude"].pk,
            "reason": "insult",
            "note": "грубит",
            "next": "/tables/1/",
        },
    )
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "Спасибо! Модераторы рассмотрят жалобу." in text
    assert 'href="/tables/1/"' in text
    report = Report.objects.get()
    assert (report.reporter, report.reported) == (conversation["ann"], conversation["bob"])
    assert (report.reason, report.note, report.status) == ("insult", "грубит", "open")
    assert report.message == conversation["rude"] and report.table == conversation["table"]


def test_a_form_post_without_a_reason_shows_the_form_again(conversation):
    answer = _client(conversation["ann"]).post(URL, {"player": "bob"})
    assert answer.status_code == 400
    assert "Выберите причину жалобы." in answer.content.decode()
    assert not Report.objects.exists()


def test_a_link_back_to_another_site_is_not_followed(conversation):
    answer = _client(conversation["ann"]).post(
        URL, {"player": "bob", "reason": "spam", "next": "https://evil.example/"}
    )
    assert "evil.example" not in answer.content.decode()
    assert 'href="/players/bob/"' in answer.content.decode()


def test_a_form_post_needs_the_csrf_token(conversation):
    client = _client(conversation["ann"], enforce_csrf_checks=True)
    assert client.post(URL, {"player": "bob", "reason": "spam"}).status_code == 403
    assert not Report.objects.exists()


# --- JSON ----------------------------------------------------------------------------------


def test_a_json_report_on_a_message_reports_its_author_with_the_evidence(conversation):
    answer = _post_json(
        _client(conversation["ann"]),
        {"message": conversation["rude"].pk, "reason": "insult", "note": "опять"},
    )
    assert answer.status_code == 201
    report = Report.objects.get()
    assert answer.json() == {
        "report": report.pk,
        "message": "Спасибо! Модераторы рассмотрят жалобу.",
    }
    assert report.reported == conversation["bob"]
    evidence = report.evidence
    assert evidence["table"] == {"id": conversation["table"].pk, "name": "Зелёный стол"}
    assert evidence["message"]["text"] == "ты дурак"  # the original, not the masked text
    assert [m["text"] for m in evidence["messages"]] == [
        "Удачи!",
        "Спасибо",
        "Ещё партию?",
        "ты дурак",
        "Зачем так?",
    ]
    assert [m["author"] for m in evidence["messages"]] == ["ann", "bob", "ann", "bob", "ann"]
    assert [m.get("reported", False) for m in evidence["messages"]] == [
        False,
        False,
        False,
        True,
        False,
    ]


def test_the_evidence_outlives_the_message(conversation):
    _post_json(
        _client(conversation["ann"]), {"message": conversation["rude"].pk, "reason": "insult"}
    )
    conversation["rude"].delete()  # expired after CHAT_RETENTION_DAYS
    report = Report.objects.get()
    assert report.message is None and report.evidence["message"]["text"] == "ты дурак"


def test_a_json_report_on_a_player_in_english(conversation):
    answer = _post_json(
        _client(conversation["ann"], "en"), {"player": "bob", "reason": "collusion"}
    )
    assert answer.status_code == 201
    assert answer.json()["message"] == "Thank you! The moderators will look into it."
    report = Report.objects.get()
    assert report.message is None and report.reason == "collusion"
    assert [m["text"] for m in report.evidence["messages"]] == ["Спасибо", "ты дурак"]


def test_reporting_the_same_message_twice_files_one_report(conversation):
    client = _client(conversation["ann"])
    first = _post_json(client, {"message": conversation["rude"].pk, "reason": "insult"})
    second = _post_json(client, {"message": conversation["rude"].pk, "reason": "insult"})
    assert first.json()["report"] == second.json()["report"]
    assert Report.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"message": 999_999, "reason": "insult"}, 404, "not_found"),
        ({"player": "nobody", "reason": "insult"}, 404, "not_found"),
        ({"player": "bob", "reason": "rude"}, 400, "bad_message"),
        ({"player": "bob"}, 400, "bad_message"),
        ({"reason": "spam"}, 400, "bad_message"),
        ({"message": "abc", "reason": "spam"}, 400, "bad_message"),
        ({"message": True, "reason": "spam"}, 400, "bad_message"),
        ({"message": 1.9, "reason": "spam"}, 400, "bad_message"),
        ({"message": "1e3", "reason": "spam"}, 400, "bad_message"),
        ({"message": 12.0, "reason": "spam"}, 400, "bad_message"),
        ({"message": "", "reason": "spam"}, 400, "bad_message"),
        ({"message": [12], "reason": "spam"}, 400, "bad_message"),
        ({"player": ["bob"], "reason": "spam"}, 400, "bad_message"),
        ({"player": "bob", "reason": "spam", "note": "x" * 501}, 400, "bad_message"),
        ({"player": "bob", "reason": "spam", "note": 5}, 400, "bad_message"),
        ({"player": "bo\x00b", "reason": "spam"}, 400, "bad_message"),
        (["bob"], 400, "bad_message"),
    ],
)
def test_json_errors_say_what_is_wrong(conversation, body, status, code):
    answer = _post_json(_client(conversation["ann"]), body)
    assert answer.status_code == status
    error = answer.json()["error"]
    assert error["code"] == code and error["message"]
    assert not Report.objects.exists()


@pytest.mark.parametrize("message", ["digits", True, False, "float"])
def test_json_names_a_message_by_a_json_integer_only(conversation, message):
    """docs/protocol.md: `message` is an integer. A string of its digits, a bool or a
    float is refused — nothing is filed — even when it would name a real message."""
    rude = conversation["rude"].pk
    given = {"digits": str(rude), "float": float(rude)}.get(message, message)
    client = _client(conversation["ann"])

    answer = _post_json(client, {"message": given, "reason": "insult"})

    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_message"
    assert not Report.objects.exists()
    assert _post_json(client, {"message": rude, "reason": "insult"}).status_code == 201


def test_a_form_post_names_a_message_by_its_digits_as_a_form_can_only_send_text(conversation):
    client = _client(conversation["ann"])
    rude = conversation["rude"].pk
    for wrong in (f"{rude}.0", f" {rude}", "1e3", "-1"):
        answer = client.post(URL, {"message": wrong, "reason": "insult"})
        assert answer.status_code == 400, wrong
    assert not Report.objects.exists()
    assert client.post(URL, {"message": str(rude), "reason": "insult"}).status_code == 200
    assert Report.objects.get().message_id == rude


def test_a_body_that_is_not_json(conversation):
    answer = _client(conversation["ann"]).post(URL, data="{", content_type="application/json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "bad_json")


def test_json_from_someone_not_signed_in(conversation):
    answer = _post_json(Client(), {"player": "bob", "reason": "spam"})
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_signed_in"


def test_a_player_cannot_report_themselves(conversation):
    client = _client(conversation["bob"], "en")
    answer = _post_json(client, {"message": conversation["rude"].pk, "reason": "insult"})
    assert answer.status_code == 400
    assert answer.json()["error"] == {
        "code": "self_report",
        "message": "You cannot report yourself.",
    }
    answer = _post_json(client, {"player": "bob", "reason": "insult"})
    assert answer.json()["error"]["code"] == "self_report"
    with pytest.raises(ReportRefused):
        report_create(reporter=conversation["bob"], reason="spam", player_name="bob")


def test_json_needs_the_csrf_header_and_passes_with_it(conversation):
    client = _client(conversation["ann"], enforce_csrf_checks=True)
    client.get(URL, {"player": "bob"})  # the form page sets the csrftoken cookie
    body = json.dumps({"player": "bob", "reason": "spam"})
    refused = client.post(URL, data=body, content_type="application/json")
    assert refused.status_code == 403
    token = client.cookies["csrftoken"].value
    accepted = client.post(URL, data=body, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201


def test_reports_are_rate_limited_per_player(conversation, make_user, settings):
    settings.REPORTS_PER_HOUR = 3
    client = _client(conversation["ann"])
    others = [make_user(f"spammer{i}") for i in range(6)]
    # Counted per clock hour: at 12:59:10 the hour ends in 50 s.
    with time_machine.travel(_FIFTY_SECONDS_BEFORE_ONE, tick=False) as clock:
        answers = [_post_json(client, {"player": o.username, "reason": "spam"}) for o in others[:5]]
        assert [a.status_code for a in answers] == [201, 201, 201, 429, 429]
        assert assert_limit_refusal(answers[3], "reports") == 50
        assert Report.objects.count() == 3
        form = client.post(URL, {"player": "bob", "reason": "spam"})
        assert form.status_code == 429 and "Слишком много жалоб" in form.content.decode()
        assert form["Retry-After"] == "50"
        # Another player has their own count.
        assert (
            _post_json(
                _client(conversation["bob"]), {"player": "ann", "reason": "spam"}
            ).status_code
            == 201
        )
        # After the wait it named, the player reports again.
        clock.shift(50)
        assert (
            _post_json(client, {"player": others[5].username, "reason": "spam"}).status_code == 201
        )


def test_get_and_post_only(conversation):
    assert _client(conversation["ann"]).put(URL).status_code == 405


def test_the_form_quotes_a_private_tables_message_only_to_its_guests(conversation, make_user):
    from play.services.seating import seat_take
    from tables.models import Table

    Table.objects.filter(pk=conversation["table"].pk).update(private=True)
    outsider, guest = make_user("outsider"), make_user("guest")
    seat_take(table=conversation["table"], player=guest, invite=conversation["table"].invite_code)
    query = {"message": conversation["rude"].pk}
    hidden = _client(outsider).get(URL, query).content.decode()
    assert (
        "ты *****" not in hidden and f'name="message" value="{conversation["rude"].pk}"' in hidden
    )
    assert "ты *****" in _client(guest).get(URL, query).content.decode()
    assert (
        "ты *****" in _client(conversation["ann"]).get(URL, query).content.decode()
    )  # wrote there
