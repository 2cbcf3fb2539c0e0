"""Free chips wait for a played account (issue 32, item 3): the daily bonus and a
freeroll's entry go to accounts at least FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS old or with
FREE_CHIPS_MIN_DECISIONS reviewed decisions; others are told why, in their language."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation

from accounts.bonus import FreeChipsRefused, daily_bonus_claim
from accounts.models import LedgerEntry
from accounts.services import chips_transfer, escrow_account, wallet_for
from insights.models import Decision
from play.models import Game
from play.services.seating import seat_take
from tables import services
from tests.tournaments.helpers import make_tournament
from tournaments.services import (
    TournamentRefused,
    entry_register,
    tournament_registration_open,
)

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("_gate_on"),
]

DAYS, DECISIONS = 3, 5


@pytest.fixture
def _gate_on():
    with override_settings(
        FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS=DAYS, FREE_CHIPS_MIN_DECISIONS=DECISIONS
    ):
        yield


def _poor(user):
    """Leave 10 chips in the wallet, the rest in an escrow, so the bonus is due."""
    wallet = wallet_for(user)
    chips_transfer(
        source=wallet,
        destination=escrow_account(f"escrow:test:{user.pk}"),
        amount=wallet.balance - 10,
        reason=LedgerEntry.Reason.STAKE,
        idempotency_key=f"test:poor:{user.pk}",
    )
    return user


def _decided(user, count: int) -> None:
    """`count` reviewed decisions of the player's (the review's rows, written directly) in
    a solo game of theirs."""
    table = services.table_create(variant="solo", name="t")
    seat_take(table=table, player=user)
    game = Game.objects.filter(table=table).get()
    start = Decision.objects.filter(user=user).count()
    Decision.objects.bulk_create(
        Decision(
            game=game,
            user=user,
            variant="blackjack",
            seat="p1",
            number=start + i,
            round=1,
            situation="hard16:T",
            options=[],
            chosen={"action": "hit"},
            best={"action": "stand"},
            loss=0.0,
        )
        for i in range(count)
    )


def test_a_new_account_that_has_not_played_gets_no_daily_bonus(make_user):
    ann = _poor(make_user("ann"))
    with pytest.raises(FreeChipsRefused) as refused:
        daily_bonus_claim(user=ann, time_zone="Europe/Moscow")
    assert refused.value.code == "bonus_account_too_new"
    assert "старше 3 дней" in refused.value.message
    assert "не меньше 5 решений" in refused.value.message
    assert wallet_for(ann).balance == 10


def test_the_refusal_is_said_in_english_too(make_user):
    ann = _poor(make_user("ann"))
    with translation.override("en"), pytest.raises(FreeChipsRefused) as refused:
        daily_bonus_claim(user=ann, time_zone="Europe/Moscow")
    assert refused.value.message == (
        "Free chips (the daily bonus, free tournaments) are for accounts older than 3 days "
        "or with at least 5 decisions made at the tables."
    )


def test_an_old_enough_account_gets_the_bonus(make_user):
    ann = _poor(make_user("ann", date_joined=timezone.now() - datetime.timedelta(days=DAYS)))
    daily_bonus_claim(user=ann, time_zone="Europe/Moscow")
    assert wallet_for(ann).balance == 1_000


def test_a_new_account_that_has_played_enough_gets_the_bonus(make_user):
    ann = _poor(make_user("ann"))
    _decided(ann, DECISIONS - 1)
    with pytest.raises(FreeChipsRefused):
        daily_bonus_claim(user=ann, time_zone="Europe/Moscow")
    _decided(make_user("bob"), 10)  # someone else's decisions count for nothing
    with pytest.raises(FreeChipsRefused):
        daily_bonus_claim(user=ann, time_zone="Europe/Moscow")
    Decision.objects.filter(user=ann).delete()
    _decided(ann, DECISIONS)
    daily_bonus_claim(user=ann, time_zone="Europe/Moscow")
    assert wallet_for(ann).balance == 1_000


def test_the_bonus_refusal_reaches_a_program_as_json(make_user):
    ann = _poor(make_user("ann"))
    client = Client()
    client.force_login(ann)
    answer = client.post(
        reverse("bonus_claim"), {"time_zone": "UTC"}, HTTP_ACCEPT="application/json"
    )
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "bonus_account_too_new"


def test_a_freeroll_refuses_a_new_account_and_a_buy_in_event_does_not(make_user):
    ann = make_user("ann")
    freeroll = tournament_registration_open(
        tournament=make_tournament(buy_in=0, freeroll_pool=1_000)
    )
    with pytest.raises(TournamentRefused) as refused:
        entry_register(tournament_id=freeroll.pk, player=ann, now=timezone.now())
    assert refused.value.code == "account_too_new"
    assert "Бесплатные фишки" in refused.value.message
    paid = tournament_registration_open(tournament=make_tournament(buy_in=100))
    entry_register(tournament_id=paid.pk, player=ann, now=timezone.now())
    _decided(ann, DECISIONS)
    entry_register(tournament_id=freeroll.pk, player=ann, now=timezone.now())
