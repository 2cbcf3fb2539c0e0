"""Registration, withdrawal, cancellation and prizes move chips only through the one ledger,
into and out of the event's escrow, and conserve them on every path."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from accounts import bots
from accounts.models import LedgerEntry
from accounts.services import chips_in_circulation, escrow_account, wallet_for
from games import fairness
from tests.tournaments.helpers import make_tournament
from tournaments.models import Entry, Tournament
from tournaments.services import (
    TournamentRefused,
    entry_register,
    entry_withdraw,
    tournament_cancel,
    tournament_commitment_context,
    tournament_finish,
    tournament_registration_open,
    tournament_start,
    tournaments_advance,
)

pytestmark = pytest.mark.django_db


def opened(**fields):
    return tournament_registration_open(tournament=make_tournament(**fields))


def register(tournament, user):
    return entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())


def escrow(tournament):
    return escrow_account(tournament.escrow_code).balance


def refused_code(call) -> str:
    with pytest.raises(TournamentRefused) as refused:
        call()
    return refused.value.code


def test_opening_registration_publishes_a_commitment_to_a_secret_server_seed():
    tournament = opened()
    assert tournament.status == Tournament.Status.REGISTERING
    assert len(tournament.server_seed) == 64
    context = tournament_commitment_context(tournament)
    assert tournament.commitment == fairness.commit(tournament.server_seed, context)


def test_a_registration_moves_the_buy_in_from_the_wallet_into_the_events_escrow(make_user):
    tournament = opened()
    ann = make_user("ann")
    before = wallet_for(ann).balance
    circulating = chips_in_circulation()
    entry = register(tournament, ann)
    assert entry.status == Entry.Status.REGISTERED
    assert wallet_for(ann).balance == before - 100
    assert escrow(tournament) == 100
    assert chips_in_circulation() == circulating
    assert LedgerEntry.objects.filter(reason="tournament_buy_in").count() == 1


def test_a_second_registration_is_refused_and_moves_nothing(make_user):
    tournament = opened()
    ann = make_user("ann")
    register(tournament, ann)
    assert refused_code(lambda: register(tournament, ann)) == "already_registered"
    assert escrow(tournament) == 100


def test_a_withdrawal_before_the_start_refunds_and_a_new_registration_pays_again(make_user):
    tournament = opened()
    ann = make_user("ann")
    before = wallet_for(ann).balance
    register(tournament, ann)
    entry = entry_withdraw(tournament_id=tournament.pk, player=ann)
    assert entry.status == Entry.Status.WITHDRAWN
    assert wallet_for(ann).balance == before and escrow(tournament) == 0
    entry = register(tournament, ann)
    assert entry.attempt == 2 and escrow(tournament) == 100
    assert refused_code(lambda: entry_withdraw(tournament_id=tournament.pk, player=make_user()))


def test_after_the_start_a_withdrawal_is_refused_and_the_buy_in_stays_in_the_pool(make_user):
    tournament = opened()
    ann, bob = make_user("ann"), make_user("bob")
    register(tournament, ann), register(tournament, bob)
    before = wallet_for(ann).balance
    started = tournament_start(tournament=tournament)
    assert started.status == Tournament.Status.RUNNING
    code = refused_code(lambda: entry_withdraw(tournament_id=tournament.pk, player=ann))
    assert code == "tournament_started"
    assert wallet_for(ann).balance == before and escrow(tournament) == 200
    assert Entry.objects.get(tournament=tournament, player=ann).status == Entry.Status.REGISTERED


def test_the_cap_is_kept_and_the_closed_or_unopened_event_refuses(make_user):
    tournament = opened(max_entrants=2)
    register(tournament, make_user())
    register(tournament, make_user())
    assert refused_code(lambda: register(tournament, make_user())) == "tournament_full"
    unopened = make_tournament()
    assert refused_code(lambda: register(unopened, make_user())) == "registration_closed"


def test_entry_conditions_keep_new_accounts_bots_and_the_poor_out(make_user):
    tournament = opened(min_account_age_days=7)
    assert refused_code(lambda: register(tournament, make_user())) == "account_too_new"
    old = make_user(date_joined=timezone.now() - datetime.timedelta(days=8))
    register(tournament, old)
    tournament = opened(min_games_played=3)
    assert refused_code(lambda: register(tournament, make_user())) == "too_few_games"
    owner = make_user()
    bot = bots.bot_create(owner=owner, username="robo")
    assert refused_code(lambda: register(opened(), bot)) == "bots_not_allowed"
    poor = make_user()
    wallet = wallet_for(poor)
    rich = opened(buy_in=wallet.balance + 1)
    assert refused_code(lambda: register(rich, poor)) == "not_enough_chips"
    assert escrow(rich) == 0 and wallet_for(poor).balance == wallet.balance


def test_a_cancelled_event_refunds_everyone_and_conserves_chips(make_user):
    tournament = opened()
    users = [make_user() for _ in range(3)]
    balances = {u.pk: wallet_for(u).balance for u in users}
    circulating = chips_in_circulation()
    for user in users:
        register(tournament, user)
    tournament = tournament_cancel(tournament=tournament)
    assert tournament.status == Tournament.Status.CANCELLED
    assert {u.pk: wallet_for(u).balance for u in users} == balances
    assert escrow(tournament) == 0 and chips_in_circulation() == circulating
    tournament_cancel(tournament=tournament)  # again: nothing moves twice
    assert LedgerEntry.objects.filter(reason="tournament_refund").count() == 3


def test_an_event_below_its_minimum_is_cancelled_at_its_start(make_user):
    tournament = opened(min_entrants=3)
    ann = make_user()
    register(tournament, ann)
    tournament = tournament_start(tournament=tournament)
    assert tournament.status == Tournament.Status.CANCELLED
    assert escrow(tournament) == 0


def test_prizes_are_paid_by_place_from_the_escrow_and_the_escrow_ends_empty(make_user):
    tournament = opened()
    users = [make_user(f"p{i}") for i in range(6)]
    for user in users:
        register(tournament, user)
    tournament = tournament_start(tournament=tournament)
    assert tournament.status == Tournament.Status.RUNNING
    stacks = [1500, 900, 1200, 1200, 0, 300]
    for user, stack in zip(users, stacks, strict=True):
        Entry.objects.filter(tournament=tournament, player=user).update(stack=stack)
    before = {u.pk: wallet_for(u).balance for u in users}
    circulating = chips_in_circulation()
    tournament = tournament_finish(tournament=tournament)
    assert tournament.status == Tournament.Status.FINISHED
    entries = {e.player.username: e for e in tournament.entries.select_related("player")}
    # 600 in the pool, six entrants: 50/30/20; p2 and p3 tie on 1200 for second and third.
    assert [(entries[f"p{i}"].place, entries[f"p{i}"].prize) for i in range(6)] == [
        (1, 300),
        (4, 0),
        (2, 150),
        (2, 150),
        (6, 0),
        (5, 0),
    ]
    assert escrow(tournament) == 0 and chips_in_circulation() == circulating
    gained = {u.username: wallet_for(u).balance - before[u.pk] for u in users}
    assert gained == {"p0": 300, "p1": 0, "p2": 150, "p3": 150, "p4": 0, "p5": 0}
    tournament_finish(tournament=tournament)  # again: nothing is paid twice
    assert LedgerEntry.objects.filter(reason="tournament_prize").count() == 3


def test_an_events_own_prize_table_decides_who_is_paid(make_user):
    # Six entrants would be paid 50/30/20 by the field's size; this event's table says the
    # winner takes all.
    tournament = opened(prize_table=Tournament.PrizeTable.WINNER)
    users = [make_user(f"w{i}") for i in range(6)]
    for user in users:
        register(tournament, user)
    tournament = tournament_start(tournament=tournament)
    for user, stack in zip(users, [900, 1500, 1200, 300, 0, 1000], strict=True):
        Entry.objects.filter(tournament=tournament, player=user).update(stack=stack)
    tournament = tournament_finish(tournament=tournament)
    prizes = {e.player.username: e.prize for e in tournament.entries.select_related("player")}
    assert prizes == {"w0": 0, "w1": 600, "w2": 0, "w3": 0, "w4": 0, "w5": 0}
    assert escrow(tournament) == 0


def test_a_freerolls_prizes_are_granted_by_the_house(make_user):
    tournament = opened(buy_in=0, freeroll_pool=500)
    users = [make_user() for _ in range(2)]
    for user in users:
        register(tournament, user)
    tournament_start(tournament=tournament)
    Entry.objects.filter(player=users[1]).update(stack=2000)
    circulating = chips_in_circulation()
    tournament_finish(tournament=tournament)
    assert chips_in_circulation() == circulating + 500
    prize = LedgerEntry.objects.get(reason="tournament_prize")
    assert prize.amount == 500 and prize.destination.owner == users[1]
    assert prize.source.code == "grants"


def test_the_clock_opens_starts_and_ends_events_and_a_repeating_one_comes_again(make_user):
    now = timezone.now()
    tournament = make_tournament(
        registration_opens_at=now,
        starts_at=now + datetime.timedelta(minutes=10),
        ends_at=now + datetime.timedelta(minutes=40),
        repeat=Tournament.Repeat.HOURLY,
    )
    tournaments_advance(now=now)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING
    for _ in range(2):
        register(tournament, make_user())
    tournaments_advance(now=now + datetime.timedelta(minutes=10))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    tournaments_advance(now=now + datetime.timedelta(minutes=40))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    following = Tournament.objects.get(previous=tournament)
    assert following.status == Tournament.Status.SCHEDULED
    assert following.starts_at == tournament.starts_at + datetime.timedelta(hours=1)
    assert following.server_seed == "" and following.commitment == ""


def test_a_refund_returns_what_was_paid_even_if_the_buy_in_was_changed_since(make_user):
    tournament = opened(buy_in=100)
    ann = make_user("ann")
    before = wallet_for(ann).balance
    circulating = chips_in_circulation()
    register(tournament, ann)
    Tournament.objects.filter(pk=tournament.pk).update(buy_in=500)  # a careless edit
    tournament_cancel(tournament=tournament)
    assert wallet_for(ann).balance == before and escrow(tournament) == 0
    assert chips_in_circulation() == circulating


def test_admin_cannot_change_what_entrants_registered_for_once_registration_opened(
    client, make_user
):
    from django.urls import reverse

    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    scheduled = make_tournament()
    url = reverse("admin:tournaments_tournament_change", args=[scheduled.pk])
    assert 'name="buy_in"' in client.get(url).content.decode()
    opened_one = opened()
    url = reverse("admin:tournaments_tournament_change", args=[opened_one.pk])
    page = client.get(url).content.decode()
    assert 'name="buy_in"' not in page and 'name="starts_at_0"' not in page
    assert 'name="name"' in page
