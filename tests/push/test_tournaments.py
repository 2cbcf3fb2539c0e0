"""«Турнир начинается через 5 минут» (the beat entry, once per entrant and event) and
«Ваш стол готов» (a heat opened for an entrant)."""

from __future__ import annotations

import datetime
import json

import pytest
from django.conf import settings
from django.utils import timezone

from push.models import Notice, Subscription
from push.tasks import push_reminders
from tests.tournaments.helpers import make_tournament
from tournaments.models import Entry, Tournament
from tournaments.services import (
    entry_register,
    tournament_registration_open,
    tournament_start,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_reminder_beat_is_sent_once_to_each_subscribed_entrant(
    make_user, vapid, browser, push_service
):
    soon = tournament_registration_open(
        tournament=make_tournament(
            buy_in=0, starts_at=timezone.now() + datetime.timedelta(minutes=4, seconds=30)
        )
    )
    # In an hour: not yet.
    later = tournament_registration_open(tournament=make_tournament(name="Ночной", buy_in=0))
    ann, bob, cid, dan = (make_user(n) for n in ("ann", "bob", "cid", "dan"))
    for player in (ann, bob, cid):
        entry_register(tournament_id=soon.pk, player=player, now=timezone.now())
    entry_register(tournament_id=later.pk, player=dan, now=timezone.now())
    Entry.objects.filter(player=cid).update(status=Entry.Status.WITHDRAWN)
    for player in (ann, cid, dan):  # bob never subscribed
        Subscription.objects.create(
            user=player, endpoint=push_service.endpoint(player.username), **browser.keys
        )
    assert push_reminders() == 1
    assert push_reminders() == 0  # the beat again: nothing twice
    [push] = push_service.received
    assert push.path.endswith("/ann")
    assert 260 <= int(push.headers["ttl"]) <= 270
    assert json.loads(browser.decrypt(push.body)) == {
        "title": "Турнир начинается через 5 минут",
        "body": "Вечерний заезд",
        "url": f"/tournaments/{soon.pk}/",
        "tag": f"tournament-{soon.pk}",
    }


def test_the_reminder_beat_is_in_the_schedule_and_does_nothing_while_push_is_off(
    make_user, browser, push_service
):
    assert settings.CELERY_BEAT_SCHEDULE["push-reminders"]["task"] == "push.tasks.push_reminders"
    soon = tournament_registration_open(
        tournament=make_tournament(
            buy_in=0, starts_at=timezone.now() + datetime.timedelta(minutes=3)
        )
    )
    ann = make_user("ann")
    entry_register(tournament_id=soon.pk, player=ann, now=timezone.now())
    Subscription.objects.create(user=ann, endpoint=push_service.endpoint(), **browser.keys)
    assert push_reminders() == 0
    assert push_service.received == [] and not Notice.objects.exists()


def test_an_entrants_heat_opening_sends_your_table_is_ready(
    make_user, vapid, browser, push_service
):
    event = tournament_registration_open(
        tournament=make_tournament(
            variant="blackjack",
            buy_in=0,
            min_entrants=1,
            starts_at=timezone.now() + datetime.timedelta(minutes=1),
        )
    )
    ann = make_user("ann")
    entry_register(tournament_id=event.pk, player=ann, now=timezone.now())
    Subscription.objects.create(user=ann, endpoint=push_service.endpoint(), **browser.keys)
    tournament_start(tournament=event)
    table_id = Entry.objects.get(player=ann).table_id
    assert Tournament.objects.get(pk=event.pk).status == Tournament.Status.RUNNING
    notices = list(Notice.objects.filter(user=ann).values_list("kind", flat=True))
    # The heat's first decision came with it: one notification for the table, not two.
    assert notices == ["table_ready"]
    [push] = push_service.received
    payload = json.loads(browser.decrypt(push.body))
    assert payload["title"] == "Ваш стол готов"
    assert payload["url"] == f"/tables/{table_id}/"
    assert payload["tag"] == f"table-{table_id}"


def test_the_beat_forgets_notices_a_day_past_their_news_and_closed_sockets_visibility(
    make_user, vapid
):
    from push.models import PageView

    ann = make_user("ann")
    now = timezone.now()
    for key, ended in (("old", now - datetime.timedelta(days=2)), ("recent", now)):
        Notice.objects.create(
            user=ann, kind="turn", key=key, tag="table-1", url="/", open_until=ended
        )
    PageView.objects.create(channel_name="gone", user=ann, table_id=1, visible=True)
    push_reminders()
    assert list(Notice.objects.values_list("key", flat=True)) == ["recent"]
    assert not PageView.objects.exists()
