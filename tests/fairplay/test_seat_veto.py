"""Strongly linked accounts are kept apart at player-bank tables (issue 32, item 3): the
second of them is refused a seat at the `banker36` or `salon` table where the first sits,
with `linked_account` and a message in their language that names no one."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.utils import translation

from fairplay.traces import traces_record
from play.services.errors import SeatError
from play.services.seating import seat_take
from tables import services
from tests.fairplay.helpers import link

pytestmark = pytest.mark.django_db


def _table(variant: str, **fields):
    defaults = {"stake": 10, "entry_limit": 100} if variant == "banker36" else {}
    return services.table_create(variant=variant, name="Стол", **{**defaults, **fields})


def _refusal(table, player) -> SeatError:
    with pytest.raises(SeatError) as refused:
        seat_take(table=table, player=player)
    return refused.value


@pytest.mark.parametrize("variant", ["banker36", "salon"])
def test_a_strongly_linked_account_is_refused_at_a_player_bank_table(make_user, variant):
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    link(ann, bob)
    table = _table(variant)
    seat_take(table=table, player=ann)
    refused = _refusal(table, bob)
    assert refused.code == "linked_account"
    assert "ann" not in refused.message and "bob" not in refused.message
    assert "связан с вашим" in refused.message
    assert table.seats.count() == 1
    seat_take(table=table, player=eve)  # not linked: sits


def test_the_refusal_is_in_the_players_language(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    link(ann, bob)
    table = _table("banker36")
    seat_take(table=table, player=ann)
    with translation.override("en"):
        refused = _refusal(table, bob)
    assert refused.message.startswith("A player whose account is linked with yours")
    assert "ann" not in refused.message


def test_a_shared_address_alone_is_not_enough_to_keep_players_apart(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    link(ann, bob, device="")  # a household's or a café's address: score 1
    table = _table("banker36")
    seat_take(table=table, player=ann)
    seat_take(table=table, player=bob)
    assert table.seats.count() == 2


@override_settings(FAIRPLAY_LINK_SCORE_APART=1)
def test_the_threshold_is_a_setting(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    link(ann, bob, device="")
    table = _table("salon")
    seat_take(table=table, player=ann)
    assert _refusal(table, bob).code == "linked_account"


@pytest.mark.parametrize("variant", ["blackjack", "classic"])
def test_tables_without_a_players_bank_seat_linked_accounts(make_user, variant):
    # Against the house (blackjack) or for points (classic): no bank to feed.
    ann, bob = make_user("ann"), make_user("bob")
    link(ann, bob)
    table = _table(variant)
    seat_take(table=table, player=ann)
    seat_take(table=table, player=bob)
    assert table.seats.count() == 2


def test_an_account_linked_only_to_someone_elsewhere_sits(make_user):
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    link(ann, bob)
    traces_record(user=eve, address="192.0.2.99")
    table = _table("banker36")
    seat_take(table=table, player=eve)
    seat_take(table=table, player=bob)  # ann, bob's link, is not at this table
    assert table.seats.count() == 2
