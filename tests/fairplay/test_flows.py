"""Chip flows as a signal (issue 32): several new or linked accounts whose chips end with
one player at player-bank tables open a case against that player — decided hands or not."""

from __future__ import annotations

import datetime
import itertools

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from fairplay.cases import fairplay_scan
from fairplay.flows import bank_flows, flow_cases_open, flows_record
from moderation.models import Report
from play.models import Game, GameEvent
from tables import services
from tests.fairplay.helpers import link

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _thresholds(settings):
    """The documented defaults, pinned so the tests read against them."""
    settings.FAIRPLAY_FLOW_GIVERS = 3
    settings.FAIRPLAY_FLOW_CHIPS = 1000
    settings.FAIRPLAY_NEW_ACCOUNT_DAYS = 7


_tables = itertools.count(1)


def _banker36(banker, ponter, deltas: list[int]) -> Game:
    """A finished banker36 game where `ponter` settled these deltas against `banker`'s
    bank (a fold is a settle with a loss, no decision needed)."""
    table = services.table_create(variant="banker36", name=f"b{next(_tables)}")
    game = Game.objects.create(
        table=table,
        number=1,
        variant="banker36",
        status=Game.Status.FINISHED,
        state={},
        players=[{"id": "a", "user": banker.pk}, {"id": "b", "user": ponter.pk}],
        options={},
        seed="s",
        commitment="c",
        finished_at=timezone.now(),
    )
    events = [{"type": "bank_open", "banker": "a", "bank": 100, "number": 1}]
    events += [{"type": "settle", "seat": "b", "outcome": "lose", "delta": d} for d in deltas]
    GameEvent.objects.create(game=game, version=1, action=None, events=events)
    return game


def _salon(banker, ponters_deltas: dict) -> Game:
    table = services.table_create(variant="salon", name=f"s{next(_tables)}")
    seats = {user.pk: f"p{i}" for i, user in enumerate(ponters_deltas)}
    game = Game.objects.create(
        table=table,
        number=1,
        variant="salon",
        status=Game.Status.FINISHED,
        state={},
        players=[{"id": "bank", "user": banker.pk}]
        + [{"id": seat, "user": pk} for pk, seat in seats.items()],
        options={},
        seed="s",
        commitment="c",
        finished_at=timezone.now(),
    )
    hands = [{"seat": seats[u.pk], "delta": d} for u, d in ponters_deltas.items()]
    GameEvent.objects.create(
        game=game,
        version=1,
        events=[{"type": "settle", "deal": 1, "banker": "bank", "hands": hands}],
    )
    return game


def _recorded_flows(*, since):
    """The flows once the finished games' settlements are recorded (as a scan does)."""
    flows_record()
    return bank_flows(since=since)


def _flow_cases():
    flows_record()
    return flow_cases_open()


def _old(user) -> User:
    User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - datetime.timedelta(days=60))
    return user


def test_flows_are_read_from_both_variants_settlements(make_user):
    bank, a, b = make_user("bank"), make_user("a"), make_user("b")
    _banker36(bank, a, [-300, -200, 100])
    _salon(bank, {a: -50, b: 70})
    assert _recorded_flows(since=timezone.now() - datetime.timedelta(days=1)) == {
        (a.pk, bank.pk): 550,
        (bank.pk, a.pk): 100,
        (bank.pk, b.pk): 70,
    }


def test_a_tournament_stacks_tables_chips_are_no_flow(make_user):
    # A sit-and-go's stacks are the event's counters: losing them feeds no wallet.
    bank, a = make_user("bank"), make_user("a")
    game = _banker36(bank, a, [-300])
    game.table.stacks = {"chips": {str(bank.pk): 200, str(a.pk): 200}, "banks": 2}
    game.table.save(update_fields=["stacks"])
    assert _recorded_flows(since=timezone.now() - datetime.timedelta(days=1)) == {}


def test_three_new_accounts_losing_to_one_player_open_a_case_listing_them(make_user):
    taker = _old(make_user("taker"))
    givers = [make_user(f"new{i}") for i in range(3)]
    for i, giver in enumerate(givers):
        _banker36(taker, giver, [-200, -150])
        _salon(taker, {giver: -100 * (i + 1)})
    [case] = _flow_cases()
    assert case.reported_id == taker.pk and case.partner_id == givers[2].pk
    evidence = case.evidence["many_to_one"]
    assert evidence["chips"] == 350 * 3 + 600
    assert [(g["username"], g["chips"], g["new"]) for g in evidence["givers"]] == [
        ("new2", 650, True),
        ("new1", 550, True),
        ("new0", 450, True),
    ]
    assert User.objects.get(pk=taker.pk).leaderboard_hold


def test_linked_old_accounts_count_as_givers(make_user):
    taker = _old(make_user("taker"))
    givers = [_old(make_user(f"alt{i}")) for i in range(3)]
    link(taker, *givers)
    for giver in givers:
        _banker36(taker, giver, [-400])
    [case] = _flow_cases()
    listed = case.evidence["many_to_one"]["givers"]
    assert [g["link_score"] > 0 and not g["new"] for g in listed] == [True] * 3


def test_two_givers_are_not_enough(make_user):
    taker = _old(make_user("taker"))
    for i in range(2):
        _banker36(taker, make_user(f"new{i}"), [-900])
    assert _flow_cases() == []


def test_old_unlinked_givers_are_honest_losers(make_user):
    taker = _old(make_user("taker"))
    for i in range(4):
        _banker36(taker, _old(make_user(f"old{i}")), [-900])
    assert _flow_cases() == []


def test_too_few_chips_open_no_case(make_user):
    taker = _old(make_user("taker"))
    for i in range(3):
        _banker36(taker, make_user(f"new{i}"), [-300])
    assert _flow_cases() == []


def test_chips_won_back_are_netted(make_user):
    taker = _old(make_user("taker"))
    for i in range(3):
        _banker36(taker, make_user(f"new{i}"), [-900, 800])
    assert _flow_cases() == []


def test_scanning_twice_opens_one_case(make_user):
    taker = _old(make_user("taker"))
    for i in range(3):
        _banker36(taker, make_user(f"new{i}"), [-500])
    fairplay_scan()
    fairplay_scan()
    assert Report.objects.filter(reported=taker, evidence__has_key="many_to_one").count() == 1


def test_a_handled_case_is_not_reopened_without_new_evidence(make_user):
    taker = _old(make_user("taker"))
    givers = [make_user(f"new{i}") for i in range(3)]
    for giver in givers:
        _banker36(taker, giver, [-500])
    [case] = _flow_cases()
    Report.objects.filter(pk=case.pk).update(status=Report.Status.HANDLED)
    assert _flow_cases() == []
    _banker36(taker, givers[0], [-10])
    [again] = _flow_cases()
    assert again.pk != case.pk


def test_the_case_page_lists_the_givers_with_their_net_chips(make_user):
    taker = _old(make_user("taker"))
    for i in range(3):
        _banker36(taker, make_user(f"new{i}"), [-400 - i])
    [case] = _flow_cases()
    client = Client()
    client.force_login(make_user("mod", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:moderation_report_change", args=[case.pk])).content.decode()
    assert "Фишки многих к одному" in page and "1203" in page
    for i in range(3):
        assert f"new{i}" in page and f"<td>{400 + i}</td>" in page


def test_each_game_is_read_once_and_a_pass_sums_rows(make_user, django_assert_max_num_queries):
    """A game's settlements are read when it has finished and never again: a later pass
    reads no events, and the flows are one aggregate query however many games."""
    bank, a = make_user("bank"), make_user("a")
    for _ in range(5):
        _banker36(bank, a, [-100, 40])
    assert flows_record() == 5
    assert flows_record() == 0  # nothing left to read
    since = timezone.now() - datetime.timedelta(days=1)
    with django_assert_max_num_queries(1):
        flows = bank_flows(since=since)
    assert flows == {(a.pk, bank.pk): 500, (bank.pk, a.pk): 200}
    _banker36(bank, a, [-7])
    assert flows_record() == 1
    assert bank_flows(since=since)[(a.pk, bank.pk)] == 507
