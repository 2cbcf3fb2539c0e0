"""The JSON bodies of the HTTP endpoints against their definitions (contract.http): a
malformed request body is refused with `400` naming its field, never a 500, and every
answer a real request gets fits its response type."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from django.test import Client
from django.urls import reverse

from contract import http
from lobby import services as lobby_services
from moderation.models import Report
from play.services import moves, seating
from tables import services
from tests.conftest import reset_throttle_counts
from tests.contract.http_bodies import assert_body
from tests.moderation.conftest import say
from tests.people.conftest import forget_online_marks
from tests.play.live_helpers import playing

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counts() -> Iterator[None]:
    forget_online_marks()
    reset_throttle_counts()
    yield


def signed_in(user: Any, language: str = "ru") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def post_json(client: Client, url: str, body: Any) -> Any:
    return client.post(url, json.dumps(body), content_type="application/json")


# --- malformed request bodies ----------------------------------------------------------

# Each endpoint that reads a JSON body: its URL (bob is the player named in a path) and,
# per kind of malformation, a body and the field the refusal names. A NextOnly body
# has no required field, so no "missing" case.
LONG_NAME = "x" * 151
MALFORMED: dict[str, tuple[str, dict[str, tuple[Any, str]]]] = {}
_NAMED = {
    "type": ({"name": 5}, "name"),
    "missing": ({}, "name"),
    "unknown": ({"name": "bob", "colour": "red"}, "colour"),
    "nul": ({"name": "bo\x00b"}, "name"),
    "too_long": ({"name": LONG_NAME}, "name"),
}
_NEXT_ONLY = {
    "type": ({"next": 5}, "next"),
    "unknown": ({"colour": "red"}, "colour"),
    "nul": ({"next": "/\x00"}, "next"),
    "too_long": ({"next": "/" + "x" * 2000}, "next"),
}
for _name in ("friend_request", "friend_accept", "friend_decline", "friend_cancel"):
    MALFORMED[_name] = (f"people:{_name}", _NAMED)
MALFORMED["friend_remove"] = ("people:friend_remove", _NAMED)
MALFORMED["block"] = ("people:block", _NEXT_ONLY)
MALFORMED["unblock"] = ("people:unblock", _NEXT_ONLY)
MALFORMED["invite_dismiss"] = ("people:invite_dismiss", _NEXT_ONLY)
MALFORMED["invite_send"] = (
    "people:invite_send",
    {
        "type": ({"table": "1", "name": "bob"}, "table"),
        "missing": ({"name": "bob"}, "table"),
        "unknown": ({"table": 1, "name": "bob", "colour": "red"}, "colour"),
        "nul": ({"table": 1, "name": "bo\x00b"}, "name"),
        "too_long": ({"table": 1, "name": LONG_NAME}, "name"),
    },
)
MALFORMED["report"] = (
    "moderation:report",
    {
        "type": ({"message": "12", "reason": "spam"}, "message"),
        "missing": ({"player": "bob"}, "reason"),
        "unknown": ({"player": "bob", "reason": "spam", "colour": "red"}, "colour"),
        "nul": ({"player": "bob", "reason": "spam", "note": "a\x00b"}, "note"),
        "too_long": ({"player": "bob", "reason": "spam", "note": "x" * 501}, "note"),
    },
)
CASES = [
    pytest.param(endpoint, kind, id=f"{endpoint}-{kind}")
    for endpoint, (_url, kinds) in MALFORMED.items()
    for kind in kinds
]


def _url(name: str) -> str:
    if name in ("people:block", "people:unblock"):
        return reverse(name, args=["bob"])
    if name == "people:invite_dismiss":
        return reverse(name, args=[1])
    return reverse(name)


@pytest.mark.parametrize(("endpoint", "kind"), CASES)
def test_a_malformed_json_body_is_refused_naming_its_field(make_user, endpoint, kind):
    make_user("bob")
    client = signed_in(make_user("ann"))
    name, kinds = MALFORMED[endpoint]
    body, field = kinds[kind]
    answer = post_json(client, _url(name), body)
    assert answer.status_code == 400
    error = assert_body(answer, http.ErrorBody).error
    assert (error.code, error.field) == ("bad_message", field)
    assert field in error.message
    assert not Report.objects.exists()


def test_the_refusal_is_in_the_requests_language(make_user):
    client = signed_in(make_user("ann"), "en")
    answer = post_json(client, reverse("people:friend_request"), {"name": "ann", "colour": 1})
    message = assert_body(answer, http.ErrorBody).error.message
    assert message == "The protocol has no field 'colour'."


@pytest.mark.parametrize("name", ["people:friend_request", "people:block"])
def test_a_json_body_that_is_not_an_object_is_bad_json_without_a_field(make_user, name):
    make_user("bob")
    answer = post_json(signed_in(make_user("ann")), _url(name), ["bob"])
    assert answer.status_code == 400
    error = assert_body(answer, http.ErrorBody).error
    assert error.code == "bad_json" and error.field is msgspec.UNSET


def test_an_invite_to_a_table_id_past_64_bits_is_no_such_table(make_user):
    make_user("bob")
    answer = post_json(
        signed_in(make_user("ann")), reverse("people:invite_send"), {"table": 2**70, "name": "bob"}
    )
    assert answer.status_code == 404
    assert assert_body(answer, http.ErrorBody).error.code == "not_found"


def test_form_posts_are_read_as_forms(make_user):
    """The pages post forms: their fields are text and `next` leads back."""
    make_user("bob")
    response = signed_in(make_user("ann")).post(
        reverse("people:friend_request"), {"name": "bob", "next": "/friends/"}
    )
    assert response.status_code == 302 and response["Location"] == "/friends/"


# --- answers against their types -------------------------------------------------------


def test_the_chip_balance(client, make_user):
    assert assert_body(client.get(reverse("chips_balance")), http.ChipBalance).balance is None
    answer = signed_in(make_user("ann")).get(reverse("chips_balance") + "?tz=Europe/Moscow")
    assert isinstance(assert_body(answer, http.ChipBalance).balance, int)


def test_the_coach_from_a_bet_to_a_reviewed_round(make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann = make_user("ann")
    table = lobby_services.table_open(by=ann, variant="solo", private=True)
    seating.seat_take(table=table, player=ann)
    client = signed_in(ann)
    url = reverse("coach_state", args=[table.pk])
    playing(table)
    bet = assert_body(client.get(url), http.Coach)
    assert bet.hint is not None and bet.hint.bet is not msgspec.UNSET
    moves.game_act(table=table, player=ann, action={"action": "bet", "amount": 10}, version=None)
    draw = assert_body(client.get(url), http.Coach)
    assert draw.hint is not None and draw.hint.bet is msgspec.UNSET
    moves.game_act(table=table, player=ann, action={"action": "stand"}, version=None)
    reviewed = assert_body(client.get(url), http.Coach)
    assert reviewed.last_round is not None and len(reviewed.last_round.review) == 2

    refused = signed_in(make_user("bob")).get(url)
    assert refused.status_code == 403
    assert assert_body(refused, http.CoachError).code == "not_seated"
    public = services.table_create(variant="classic", name="Общий")
    refused = client.get(reverse("coach_state", args=[public.pk]))
    assert assert_body(refused, http.CoachError).code == "not_coached"


def test_friends_blocks_invites_and_the_panel(make_user):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    ann_c, bob_c = signed_in(ann), signed_in(bob)
    sent = post_json(ann_c, reverse("people:friend_request"), {"name": "bob"})
    assert assert_body(sent, http.Done).state == "outgoing"
    post_json(signed_in(cid), reverse("people:friend_request"), {"name": "bob"})
    accepted = post_json(bob_c, reverse("people:friend_accept"), {"name": "ann"})
    assert assert_body(accepted, http.Done).state == "friends"

    table = services.table_create(created_by=ann, variant="classic", name="Свои", private=True)
    seating.seat_take(table=table, player=ann)
    invited = post_json(ann_c, reverse("people:invite_send"), {"table": table.pk, "name": "bob"})
    assert assert_body(invited, http.Invited).state == "invited"
    public = services.table_create(variant="classic", name="Общий")
    refused = post_json(ann_c, reverse("people:invite_send"), {"table": public.pk, "name": "bob"})
    assert assert_body(refused, http.ErrorBody).error.code == "not_private"

    ann_c.get(reverse("people:friends_json"))  # ann is online now
    panel = assert_body(bob_c.get(reverse("people:friends_json")), http.FriendsPanel)
    assert [(f.name, f.online) for f in panel.friends] == [("ann", True)]
    assert [r.name for r in panel.incoming] == ["cid"] and panel.invites[0].from_ == "ann"

    dismissed = post_json(
        bob_c, reverse("people:invite_dismiss", args=[panel.invites[0].id]), {"next": "/"}
    )
    assert assert_body(dismissed, http.Done).state == "dismissed"
    blocked = post_json(bob_c, reverse("people:block", args=["cid"]), {})
    assert assert_body(blocked, http.Done).state == "blocked"
    unblocked = post_json(bob_c, reverse("people:unblock", args=["cid"]), {})
    assert assert_body(unblocked, http.Done).state == "none"
    refused = post_json(bob_c, reverse("people:friend_request"), {"name": "ghost"})
    assert assert_body(refused, http.ErrorBody).error.code == "not_found"
    anonymous = Client().get(reverse("people:friends_json"))
    assert anonymous.status_code == 403
    assert assert_body(anonymous, http.ErrorBody).error.code == "not_signed_in"


def test_reports(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="classic", name="Общий")
    rude = say(table, bob, "ты дурак")
    client = signed_in(ann)
    url = reverse("moderation:report")
    filed = post_json(client, url, {"message": rude.pk, "reason": "insult", "note": "снова"})
    assert filed.status_code == 201
    assert assert_body(filed, http.ReportFiled).report == Report.objects.get().pk
    on_player = post_json(client, url, {"player": "bob", "reason": "collusion"})
    assert on_player.status_code == 201 and assert_body(on_player, http.ReportFiled)
    own = post_json(client, url, {"player": "ann", "reason": "spam"})
    assert assert_body(own, http.ErrorBody).error.code == "self_report"
    gone = post_json(client, url, {"message": rude.pk + 1000, "reason": "spam"})
    assert gone.status_code == 404
    assert assert_body(gone, http.ErrorBody).error.code == "not_found"
    anonymous = post_json(Client(), url, {"player": "bob", "reason": "spam"})
    assert anonymous.status_code == 401
    assert assert_body(anonymous, http.ErrorBody).error.code == "not_signed_in"


def test_the_lobby_json(client, make_user):
    ann = make_user("ann")
    services.table_create(variant="salon", name="Салон")
    mine = lobby_services.table_open(by=ann, variant="classic", private=True)
    seating.seat_take(table=mine, player=ann)
    visitor = assert_body(client.get(reverse("lobby_state")), http.LobbyState)
    assert visitor.me is None and visitor.tables[0].join is not msgspec.UNSET
    seen = assert_body(signed_in(ann).get(reverse("lobby_state") + "?html=1"), http.LobbyState)
    assert seen.me is not None and [t.table for t in seen.me.seats] == [mine.pk]
    assert seen.tables[0].html is not msgspec.UNSET
    bad = client.get(reverse("lobby_state") + "?page=x")
    assert bad.status_code == 400
    assert assert_body(bad, http.ErrorBody).error.code == "bad_filter"


def test_the_web_manifest(client, db):
    assert assert_body(client.get("/manifest.webmanifest"), http.WebManifest).icons


def test_every_body_of_the_endpoints_makes_a_json_schema():
    kinds = {
        kind
        for endpoint in http.ENDPOINTS
        for kind in (endpoint.request, *(r.body for r in endpoint.responses))
        if kind is not None
    }
    assert http.ErrorBody in kinds and http.ReportRequest in kinds
    msgspec.json.schema_components(sorted(kinds, key=lambda k: k.__name__))
    ids = [endpoint.operation_id for endpoint in http.ENDPOINTS]
    assert len(ids) == len(set(ids))
