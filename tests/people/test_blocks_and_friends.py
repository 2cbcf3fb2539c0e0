"""Blocks, friend requests and invites over HTTP (issue 21, items 2 and 4): each endpoint
answers a form with a redirect and a message, and JSON with JSON
(docs/protocol.md, "Friends, invites and blocks (HTTP)")."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from contract.http import Done, ErrorBody, Invited
from people.blocks import blocked_ids
from people.friends import INVITE_HOURS, friend_state, friends_of, live_invites
from people.models import Block, FriendRequest, Friendship, Invite
from people.signals import blocks_changed
from play.services import seating
from tables import services
from tables.models import Table
from tests.contract.http_bodies import assert_body, assert_limit_refusal

pytestmark = pytest.mark.django_db
# Fifty seconds before a clock hour ends: an hourly limit's refusal then waits 50 s.
FIFTY_SECONDS_BEFORE_ONE = datetime.datetime(2026, 3, 2, 12, 59, 10, tzinfo=datetime.UTC)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post_json(client: Client, url: str, body: dict[str, Any] | None = None) -> Any:
    """A JSON post, its answer checked against its definition (contract.http)."""
    answer = client.post(url, json.dumps(body or {}), content_type="application/json")
    if answer["Content-Type"] == "application/json":
        ok = answer.status_code == 200
        assert_body(answer, (Invited if "invite" in answer.json() else Done) if ok else ErrorBody)
    return answer


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- blocks ----------------------------------------------------------------------------


def test_block_and_unblock_by_form_redirect_back_with_a_message(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    client = signed_in(ann)
    profile = reverse("people:profile", args=["bob"])
    response = client.post(reverse("people:block", args=["bob"]), {"next": profile}, follow=True)
    assert response.redirect_chain[-1][0] == profile
    assert blocked_ids(ann.pk) == {bob.pk}
    assert any("заблокирован" in m for m in messages_of(response))
    html = response.content.decode()
    assert 'id="unblock"' in html and 'id="block"' not in html
    response = client.post(reverse("people:unblock", args=["bob"]), {"next": profile}, follow=True)
    assert blocked_ids(ann.pk) == set()
    assert any("разблокирован" in m for m in messages_of(response))


def test_block_and_unblock_by_json_answer_json(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    client = signed_in(ann)
    answer = post_json(client, reverse("people:block", args=["bob"]))
    assert answer.status_code == 200
    assert answer.json()["ok"] is True and answer.json()["state"] == "blocked"
    # Blocking twice is no error and one row.
    assert post_json(client, reverse("people:block", args=["bob"])).json()["state"] == "blocked"
    assert Block.objects.filter(blocker=ann, blocked=bob).count() == 1
    answer = post_json(client, reverse("people:unblock", args=["bob"]))
    assert answer.json()["state"] == "none" and blocked_ids(ann.pk) == set()


def test_blocking_oneself_is_refused_and_unknown_names_are_404(make_user):
    make_user("ann")
    client = signed_in(make_user("cid"))
    answer = post_json(client, reverse("people:block", args=["cid"]))
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "self"
    assert post_json(client, reverse("people:block", args=["nobody"])).status_code == 404
    assert client.get(reverse("people:block", args=["ann"])).status_code == 405
    anonymous = Client().post(reverse("people:block", args=["ann"]))
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]


def test_blocks_changed_is_sent_after_commit_with_the_blocker(
    make_user, django_capture_on_commit_callbacks
):
    ann, bob = make_user("ann"), make_user("bob")
    seen: list[tuple[int, set[int]]] = []

    def receiver(sender: Any, user_id: int, **kwargs: Any) -> None:
        seen.append((user_id, blocked_ids(user_id)))

    blocks_changed.connect(receiver)
    try:
        client = signed_in(ann)
        with django_capture_on_commit_callbacks(execute=True):
            post_json(client, reverse("people:block", args=["bob"]))
        with django_capture_on_commit_callbacks(execute=True):
            post_json(client, reverse("people:unblock", args=["bob"]))
    finally:
        blocks_changed.disconnect(receiver)
    assert seen == [(ann.pk, {bob.pk}), (ann.pk, set())]


def test_blocking_ends_a_friendship_and_pending_requests(make_user):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    post_json(signed_in(bob), reverse("people:friend_accept"), {"name": "ann"})
    post_json(signed_in(cid), reverse("people:friend_request"), {"name": "ann"})
    assert friend_state(ann, bob) == "friends" and friend_state(ann, cid) == "incoming"
    post_json(signed_in(ann), reverse("people:block", args=["bob"]))
    post_json(signed_in(cid), reverse("people:block", args=["ann"]))
    assert friend_state(ann, bob) == "none" and friend_state(ann, cid) == "none"
    assert not Friendship.objects.exists() and not FriendRequest.objects.exists()


def test_a_blocked_player_cannot_send_the_blocker_a_request_nor_the_blocker_them(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    post_json(signed_in(ann), reverse("people:block", args=["bob"]))
    for sender, name in ((bob, "ann"), (ann, "bob")):
        answer = post_json(signed_in(sender), reverse("people:friend_request"), {"name": name})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "blocked"
    assert not FriendRequest.objects.exists()


# --- friends ---------------------------------------------------------------------------


def test_request_accept_and_both_see_each_other(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    answer = post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    assert answer.json()["state"] == "outgoing"
    page = signed_in(bob).get(reverse("people:friends")).content.decode()
    assert 'data-request-from="ann"' in page
    response = signed_in(bob).post(reverse("people:friend_accept"), {"name": "ann"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("people:friends")
    assert any("в друзьях" in m for m in messages_of(response))
    assert [name for _pk, name in friends_of(ann)] == ["bob"]
    assert [name for _pk, name in friends_of(bob)] == ["ann"]
    for viewer, other in ((ann, "bob"), (bob, "ann")):
        panel = signed_in(viewer).get(reverse("people:friends_json")).json()
        assert [f["name"] for f in panel["friends"]] == [other]
        assert panel["friends"][0]["profile"] == f"/players/{other}/"


def test_requests_both_ways_make_friends(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    answer = post_json(signed_in(bob), reverse("people:friend_request"), {"name": "ann"})
    assert answer.json()["state"] == "friends" and friend_state(ann, bob) == "friends"


def test_decline_cancel_and_remove(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    assert (
        post_json(signed_in(bob), reverse("people:friend_decline"), {"name": "ann"}).json()["state"]
        == "none"
    )
    assert friend_state(ann, bob) == "none"
    answer = post_json(signed_in(bob), reverse("people:friend_accept"), {"name": "ann"})
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "no_request"

    post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    response = signed_in(ann).post(reverse("people:friend_cancel"), {"name": "bob"}, follow=True)
    assert any("отозвана" in m for m in messages_of(response))
    assert friend_state(bob, ann) == "none"

    post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    post_json(signed_in(bob), reverse("people:friend_accept"), {"name": "ann"})
    assert post_json(signed_in(bob), reverse("people:friend_remove"), {"name": "ann"}).json()["ok"]
    assert friend_state(ann, bob) == "none" and not Friendship.objects.exists()


def test_friend_request_refusals(make_user):
    make_user("ann")
    client = signed_in(make_user("bob"))
    assert (
        post_json(client, reverse("people:friend_request"), {"name": "bob"}).json()["error"]["code"]
        == "self"
    )
    answer = post_json(client, reverse("people:friend_request"), {"name": "ghost"})
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    # A body without the name is malformed, not a name no one has.
    answer = post_json(client, reverse("people:friend_request"), {})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_message"
    assert answer.json()["error"]["field"] == "name"
    # A form post with a refusal goes back with the reason as the page's message.
    response = client.post(reverse("people:friend_request"), {"name": "ghost"}, follow=True)
    assert any("нет" in m for m in messages_of(response))


def test_friend_requests_and_invites_over_the_hourly_limit_say_when_to_retry(
    make_user, monkeypatch
):
    from people import views

    monkeypatch.setattr(views, "PEOPLE_POSTS_PER_HOUR", 2)
    ann = make_user("ann")
    make_user("bob")
    make_user("cid")
    client = signed_in(make_user("dan"))
    table = services.table_create(variant="classic", name="Частный", private=True, created_by=ann)
    request = reverse("people:friend_request")
    with time_machine.travel(FIFTY_SECONDS_BEFORE_ONE, tick=False) as clock:
        assert post_json(client, request, {"name": "ann"}).status_code == 200
        assert post_json(client, request, {"name": "bob"}).status_code == 200
        # One budget for requests and invites together, per clock hour: 50 s left.
        refused = post_json(client, request, {"name": "cid"})
        assert assert_limit_refusal(refused, "friend_requests_and_invites") == 50
        refused = post_json(
            client, reverse("people:invite_send"), {"table": table.pk, "name": "ann"}
        )
        assert assert_limit_refusal(refused, "friend_requests_and_invites") == 50
        # A form post goes back with the reason as the page's message.
        response = client.post(reverse("people:friend_request"), {"name": "cid"}, follow=True)
        assert any("Слишком много запросов" in m for m in messages_of(response))
        clock.shift(50)
        assert post_json(client, request, {"name": "cid"}).status_code == 200


def test_profile_buttons_follow_the_friend_state(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    url = reverse("people:profile", args=["bob"])
    html = signed_in(ann).get(url).content.decode()
    assert "Добавить в друзья" in html and "Заблокировать" in html
    assert 'href="/report/?player=bob"' in html
    post_json(signed_in(ann), reverse("people:friend_request"), {"name": "bob"})
    assert "Заявка отправлена" in signed_in(ann).get(url).content.decode()
    assert (
        "Принять в друзья"
        in signed_in(bob).get(reverse("people:profile", args=["ann"])).content.decode()
    )
    # Not on one's own profile; an anonymous visitor is asked to sign in.
    own = signed_in(bob).get(url).content.decode()
    assert 'id="profile-actions"' not in own and "Пожаловаться" not in own
    anonymous = Client().get(url).content.decode()
    assert 'id="profile-actions"' not in anonymous and "/login/?next=" in anonymous


def test_the_header_links_the_friends_page(make_user):
    html = signed_in(make_user("ann")).get(reverse("lobby")).content.decode()
    assert f'href="{reverse("people:friends")}"' in html


def test_english(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    client = signed_in(ann)
    client.cookies["django_language"] = "en"
    answer = post_json(client, reverse("people:friend_request"), {"name": "ann"})
    assert answer.json()["error"]["message"] == "You cannot add yourself as a friend."
    html = client.get(reverse("people:profile", args=["bob"])).content.decode()
    assert "Add friend" in html and "Block" in html and "Report" in html
    post_json(signed_in(bob), reverse("people:friend_request"), {"name": "ann"})
    page = client.get(reverse("people:friends")).content.decode()
    assert "Incoming requests" in page and "Accept" in page


# --- invites ---------------------------------------------------------------------------


def befriend(a: Any, b: Any) -> None:
    post_json(signed_in(a), reverse("people:friend_request"), {"name": b.username})
    post_json(signed_in(b), reverse("people:friend_accept"), {"name": a.username})


def private_table(host: Any) -> Table:
    return services.table_create(created_by=host, variant="classic", name="Свои", private=True)


def test_an_invite_reaches_a_friend_in_the_lobby_and_its_link_seats_them(make_user):
    host, friend = make_user("host"), make_user("fay")
    befriend(host, friend)
    table = private_table(host)
    table_page = signed_in(host).get(reverse("table", args=[table.pk])).content.decode()
    assert "Пригласить друга" in table_page and '<option value="fay">' in table_page
    response = signed_in(host).post(
        reverse("people:invite_send"), {"table": table.pk, "name": "fay"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("table", args=[table.pk])
    lobby = signed_in(friend).get(reverse("lobby")).content.decode()
    assert "зовёт за стол «Свои»" in lobby
    invite = signed_in(friend).get(reverse("people:friends_json")).json()["invites"][0]
    assert invite["from"] == "host" and invite["table"]["id"] == table.pk
    assert invite["join_url"] == f"/tables/{table.pk}/?invite={table.invite_code}&sit=1"
    # The link is the private table's invite: the table page lets the friend in, and the
    # invite code in it seats them.
    assert signed_in(friend).get(invite["join_url"]).status_code == 200
    seat = seating.seat_take(table=table, player=friend, invite=table.invite_code)
    assert seat.player == friend


def test_invites_only_to_friends_at_a_private_open_table_by_its_host_or_players(make_user):
    host, friend, stranger = make_user("host"), make_user("fay"), make_user("sam")
    befriend(host, friend)
    table = private_table(host)
    client = signed_in(host)
    answer = post_json(client, reverse("people:invite_send"), {"table": table.pk, "name": "sam"})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_friends"
    befriend(stranger, friend)
    answer = post_json(
        signed_in(stranger), reverse("people:invite_send"), {"table": table.pk, "name": "fay"}
    )
    assert answer.json()["error"]["code"] == "not_at_table"
    public = services.table_create(created_by=host, variant="classic", name="Все")
    answer = post_json(client, reverse("people:invite_send"), {"table": public.pk, "name": "fay"})
    assert answer.json()["error"]["code"] == "not_private"
    answer = post_json(client, reverse("people:invite_send"), {"table": 999999, "name": "fay"})
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    # A seated guest may invite their own friend.
    seating.seat_take(table=table, player=stranger, invite=table.invite_code)
    answer = post_json(
        signed_in(stranger), reverse("people:invite_send"), {"table": table.pk, "name": "fay"}
    )
    assert answer.json()["state"] == "invited"
    assert Invite.objects.filter(recipient=friend, table=table).count() == 1


def test_an_invite_lapses_when_dismissed_when_the_table_closes_and_after_hours(make_user):
    host, friend = make_user("host"), make_user("fay")
    befriend(host, friend)
    table = private_table(host)
    client = signed_in(host)
    invite_id = post_json(
        client, reverse("people:invite_send"), {"table": table.pk, "name": "fay"}
    ).json()["invite"]
    answer = post_json(signed_in(friend), reverse("people:invite_dismiss", args=[invite_id]))
    assert answer.json()["state"] == "dismissed" and live_invites(friend) == []

    post_json(client, reverse("people:invite_send"), {"table": table.pk, "name": "fay"})
    Invite.objects.update(
        created_at=timezone.now() - datetime.timedelta(hours=INVITE_HOURS, minutes=1)
    )
    assert live_invites(friend) == []

    post_json(client, reverse("people:invite_send"), {"table": table.pk, "name": "fay"})
    assert len(live_invites(friend)) == 1
    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    assert live_invites(friend) == []
    answer = post_json(client, reverse("people:invite_send"), {"table": table.pk, "name": "fay"})
    assert answer.json()["error"]["code"] == "table_closed"


def test_no_invite_across_a_block(make_user):
    host, friend = make_user("host"), make_user("fay")
    befriend(host, friend)
    table = private_table(host)
    post_json(signed_in(friend), reverse("people:block", args=["host"]))
    answer = post_json(
        signed_in(host), reverse("people:invite_send"), {"table": table.pk, "name": "fay"}
    )
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "blocked"


def test_a_guest_cannot_invite_someone_the_host_blocked_or_who_blocked_the_host(make_user):
    host, guest, fay = make_user("host"), make_user("guest"), make_user("fay")
    befriend(guest, fay)
    table = private_table(host)
    seating.seat_take(table=table, player=guest, invite=table.invite_code)
    for blocker, blocked in ((host, "fay"), (fay, "host")):
        post_json(signed_in(blocker), reverse("people:block", args=[blocked]))
        answer = post_json(
            signed_in(guest), reverse("people:invite_send"), {"table": table.pk, "name": "fay"}
        )
        # The invite carries the table's link: not to someone the host will not have.
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "blocked"
        assert "заблокировал" not in answer.json()["error"]["message"]  # not who did
        assert not Invite.objects.exists()
        Block.objects.all().delete()
    answer = post_json(
        signed_in(guest), reverse("people:invite_send"), {"table": table.pk, "name": "fay"}
    )
    assert answer.status_code == 200 and answer.json()["state"] == "invited"


def test_a_json_post_whose_body_is_not_an_object_is_bad_json(make_user):
    make_user("fay")
    client = signed_in(make_user("ann"))
    for body in ("{not json", "[1, 2]", '"fay"'):
        answer = client.post(
            reverse("people:block", args=["fay"]), body, content_type="application/json"
        )
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_json"
        answer = client.post(
            reverse("people:friend_request"), body, content_type="application/json"
        )
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_json"
    assert not Block.objects.exists() and not FriendRequest.objects.exists()


# --- the lobby's panel -----------------------------------------------------------------


def test_the_panel_costs_two_queries_and_three_with_a_friend_at_a_table(
    make_user, django_assert_max_num_queries
):
    from people.friends import friends_online
    from play.services.presence import presence_join

    ann = make_user("ann")
    friends = [make_user(f"f{i}") for i in range(6)]
    for friend in friends:
        befriend(ann, friend)
    with django_assert_max_num_queries(2):
        assert not any(line.online for line in friends_online(ann))
    host = make_user("hal")
    public = services.table_create(created_by=host, variant="classic", name="Все")
    private = private_table(host)
    for n, friend in enumerate(friends[:4]):
        presence_join(table=public if n % 2 else private, user=friend, channel_name=f"ch{n}")
    with django_assert_max_num_queries(3):
        lines = {line.name: line for line in friends_online(ann)}
    assert lines["f1"].table == public and lines["f0"].online and lines["f0"].table is None
    assert not lines["f5"].online


def test_the_lobby_renders_the_panel_and_its_fragment_refreshes_it(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    befriend(ann, bob)
    lobby = signed_in(ann).get(reverse("lobby")).content.decode()
    assert 'id="friends-panel"' in lobby and 'data-friend="bob"' not in lobby  # bob is away
    signed_in(bob).get(reverse("lobby"))  # bob opens the lobby: online for his friends
    fragment = signed_in(ann).get(reverse("people:friends_panel"))
    assert fragment.status_code == 200 and 'data-friend="bob"' in fragment.content.decode()
    assert "no-cache" in fragment["Cache-Control"]
    assert Client().get(reverse("people:friends_panel")).status_code == 204
    assert 'id="friends-panel"' not in Client().get(reverse("lobby")).content.decode()
    answer = Client().get(reverse("people:friends_json"))
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_signed_in"
