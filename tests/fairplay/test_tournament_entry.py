"""Linked accounts kept out of one tournament (issue 32, item 3): refused at registration
with `linked_account`, naming nobody, nothing paid — in every format, since a sit-and-go or
a multi-table round seats its entrants together and a duplicate heat's shoe is everyone's."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.services import escrow_account, wallet_for
from tests.fairplay.helpers import link
from tests.tournaments.helpers import make_tournament
from tournaments.models import Tournament
from tournaments.services import (
    TournamentRefused,
    entry_register,
    tournament_registration_open,
)

pytestmark = pytest.mark.django_db

FORMATS = [
    ("duplicate", "blackjack", {}),
    ("sit_and_go", "banker36", {"max_entrants": 4}),
    ("multi_table", "banker36", {"max_entrants": 16}),
]


@pytest.mark.parametrize(("format_", "variant", "fields"), FORMATS)
def test_a_linked_account_cannot_register_for_the_same_event(make_user, format_, variant, fields):
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    link(ann, bob)
    event = tournament_registration_open(
        tournament=make_tournament(format=format_, variant=variant, **fields)
    )
    entry_register(tournament_id=event.pk, player=ann, now=timezone.now())
    before = wallet_for(bob).balance
    with pytest.raises(TournamentRefused) as refused:
        entry_register(tournament_id=event.pk, player=bob, now=timezone.now())
    assert refused.value.code == "linked_account"
    assert "ann" not in refused.value.message and "bob" not in refused.value.message
    assert wallet_for(bob).balance == before  # nothing paid
    assert escrow_account(Tournament.objects.get(pk=event.pk).escrow_code).balance == 100
    entry_register(tournament_id=event.pk, player=eve, now=timezone.now())  # not linked


def test_linked_accounts_may_play_different_events(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    link(ann, bob)
    first, second = (
        tournament_registration_open(tournament=make_tournament(name=name))
        for name in ("Заезд", "Другой заезд")
    )
    entry_register(tournament_id=first.pk, player=ann, now=timezone.now())
    entry_register(tournament_id=second.pk, player=bob, now=timezone.now())
