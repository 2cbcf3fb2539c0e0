"""Tables are validated against their variant's limits (tables.variants), in the admin too."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from play.services.closing import table_close
from play.services.errors import SeatError
from play.services.seating import seat_take
from tables.models import Seat, Table
from tables.services import table_create
from tables.variants import VARIANTS

pytestmark = pytest.mark.django_db


def test_registry_has_exactly_the_engine_variant_keys():
    assert list(VARIANTS) == ["classic", "salon", "solo", "banker36", "blackjack"]


@pytest.mark.parametrize(
    ("variant", "low", "high"),
    [("classic", 2, 10), ("salon", 2, 10), ("solo", 1, 1), ("banker36", 2, 4), ("blackjack", 1, 7)],
)
def test_seat_count_must_be_within_the_variant_limits(variant, low, high):
    table_create(variant=variant, name=f"{variant} low", seat_count=low)
    table_create(variant=variant, name=f"{variant} high", seat_count=high)
    for bad in (low - 1, high + 1):
        if bad < 1:
            continue
        with pytest.raises(ValidationError) as exc:
            table_create(variant=variant, name="bad", seat_count=bad)
        assert "seat_count" in exc.value.message_dict


def test_defaults_per_variant_are_filled_in():
    classic = table_create(variant="classic", name="c")
    salon = table_create(variant="salon", name="s")
    solo = table_create(variant="solo", name="o")
    banker = table_create(variant="banker36", name="b")
    assert (classic.match_length, classic.decision_seconds, classic.reconnect_grace_seconds) == (
        5,
        15,
        30,
    )
    assert (salon.min_bet, salon.max_bet, salon.entry_limit) == (10, 100, 100)
    assert (banker.stake, banker.entry_limit, banker.seat_count) == (10, 100, 4)
    assert solo.seat_count == 1 and solo.engine_options() == {
        "start_coins": 1000,
        "start_bank": 300,
    }
    assert banker.engine_options() == {"stake": 10, "entry_limit": 100}
    assert classic.engine_options() == {"rounds": 5}


def test_banker36_entry_limit_below_the_stake_is_refused_with_a_clear_message():
    with pytest.raises(ValidationError) as exc:
        table_create(variant="banker36", name="b", stake=50, entry_limit=20)
    (message,) = exc.value.message_dict["entry_limit"]
    assert "20" in message and "50" in message and "меньше" in message


def test_salon_needs_max_bet_at_least_min_bet_and_entry_limit_at_least_min_bet():
    with pytest.raises(ValidationError) as exc:
        table_create(variant="salon", name="s", min_bet=50, max_bet=40, entry_limit=10)
    assert {"max_bet", "entry_limit"} <= set(exc.value.message_dict)


def test_stake_fields_of_other_variants_must_stay_empty():
    with pytest.raises(ValidationError) as exc:
        table_create(variant="classic", name="c", stake=10, min_bet=5)
    assert {"stake", "min_bet"} <= set(exc.value.message_dict)
    with pytest.raises(ValidationError) as exc:
        table_create(variant="banker36", name="b", match_length=7)
    assert "match_length" in exc.value.message_dict


def test_classic_match_length_is_5_7_or_10():
    assert table_create(variant="classic", name="c", match_length=10).match_length == 10
    with pytest.raises(ValidationError):
        table_create(variant="classic", name="c", match_length=6)


def test_decision_time_and_reconnect_grace_are_bounded():
    with pytest.raises(ValidationError) as exc:
        table_create(
            variant="blackjack", name="j", decision_seconds=1, reconnect_grace_seconds=10_000
        )
    assert {"decision_seconds", "reconnect_grace_seconds"} <= set(exc.value.message_dict)


def _admin_form(variant, **fields):
    data = {
        "variant": variant,
        "name": f"Admin {variant}",
        "status": "open",
        "seat_count": "",
        "stake": "",
        "min_bet": "",
        "max_bet": "",
        "entry_limit": "",
        "decision_seconds": 15,
        "reconnect_grace_seconds": 30,
        "match_length": "",
        "seats-TOTAL_FORMS": 0,
        "seats-INITIAL_FORMS": 0,
        "seats-MIN_NUM_FORMS": 0,
        "seats-MAX_NUM_FORMS": 1000,
    }
    data.update(fields)
    return data


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_admin_creates_a_table_of_each_variant(admin_client, variant):
    response = admin_client.post(reverse("admin:tables_table_add"), _admin_form(variant))
    assert response.status_code == 302, response.context["adminform"].form.errors
    table = Table.objects.get(variant=variant)
    assert table.is_open and table.created_by.username == "admin"


def test_admin_refuses_banker36_with_five_seats_and_entry_limit_below_stake(admin_client):
    response = admin_client.post(
        reverse("admin:tables_table_add"),
        _admin_form("banker36", seat_count=5, stake=10, entry_limit=5),
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "2 до 4" in errors["seat_count"][0]
    assert "Лимит входа (5)" in errors["entry_limit"][0]
    assert not Table.objects.exists()


def test_admin_edits_closes_and_shows_who_sits_where(admin_client, make_user):
    table = table_create(variant="banker36", name="Вечерний", stake=10, entry_limit=100)
    player = make_user("sitter")
    seat_take(table=table, player=player)
    change = reverse("admin:tables_table_change", args=[table.pk])
    page = admin_client.get(change)
    assert "sitter" in page.content.decode()
    listing = admin_client.get(reverse("admin:tables_table_changelist")).content.decode()
    assert "1/4" in listing
    response = admin_client.post(
        reverse("admin:tables_table_changelist"),
        {"action": "close_tables", "_selected_action": [table.pk]},
    )
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == "closed" and table.closed_at is not None
    assert not Seat.objects.filter(table=table).exists()


def test_seat_count_cannot_drop_below_an_occupied_seat(make_user):
    table = table_create(variant="salon", name="s", seat_count=4)
    for _ in range(3):
        seat_take(table=table, player=make_user())
    table.seat_count = 2
    with pytest.raises(ValidationError) as exc:
        table.full_clean()
    assert "seat_count" in exc.value.message_dict


def test_sitting_down_needs_the_entry_limit_and_a_free_open_seat(make_user):
    from accounts.services import chips_adjust, wallet_for

    table = table_create(variant="banker36", name="b", seat_count=2, stake=100, entry_limit=5_000)
    poor = make_user()
    chips_adjust(
        wallet=wallet_for(poor), amount=-6_000, memo="test", by=None, idempotency_key="poor"
    )
    with pytest.raises(SeatError, match=r"не меньше 5.*000 фишек"):
        seat_take(table=table, player=poor)
    first, second, third = make_user(), make_user(), make_user()
    assert seat_take(table=table, player=first).number == 1
    assert seat_take(table=table, player=first).number == 1  # already seated: same seat
    assert seat_take(table=table, player=second).number == 2
    with pytest.raises(SeatError):
        seat_take(table=table, player=third)
    table_close(table=table)
    with pytest.raises(SeatError):
        seat_take(table=table, player=third)


def test_admin_status_field_closes_and_reopens_like_the_actions(admin_client, make_user):
    table = table_create(variant="salon", name="Салон", seat_count=3)
    seat_take(table=table, player=make_user())
    change = reverse("admin:tables_table_change", args=[table.pk])
    seat = table.seats.get()
    inline = {
        "seats-TOTAL_FORMS": 1,
        "seats-INITIAL_FORMS": 1,
        "seats-MIN_NUM_FORMS": 0,
        "seats-MAX_NUM_FORMS": 1000,
        "seats-0-id": seat.pk,
        "seats-0-table": table.pk,
    }
    fields = _admin_form(
        "salon", name="Салон", seat_count=3, min_bet=10, max_bet=100, entry_limit=100
    )
    response = admin_client.post(change, {**fields, **inline, "status": "closed"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == "closed" and table.closed_at and not table.seats.exists()
    response = admin_client.post(change, {**fields, "status": "open"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == "open" and table.closed_at is None
