"""The daily bonus (issue 21, item 5): a wallet below the floor is topped up to it, once per
calendar day in the player's time zone, as a grant through the one ledger transfer."""

from __future__ import annotations

import datetime
import re
import zoneinfo

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.bonus import (
    BonusAboveFloor,
    BonusClaimedToday,
    BonusOff,
    daily_bonus_claim,
    daily_bonus_claimable,
    player_zone,
)
from accounts.models import DailyBonusClaim, DailyBonusSwitch, LedgerEntry
from accounts.services import chips_in_circulation, chips_transfer, escrow_account, wallet_for
from tests.conftest import chips_unbalanced
from tests.contract.http_bodies import assert_limit_refusal

pytestmark = pytest.mark.django_db

FLOOR = 1_000


def _spend_down(user, *, to: int) -> None:
    """Leave `to` chips in the wallet; the rest goes into a game's escrow, as a stake does."""
    wallet = wallet_for(user)
    chips_transfer(
        source=wallet,
        destination=escrow_account(f"escrow:test:{user.pk}:{wallet.balance}"),
        amount=wallet.balance - to,
        reason=LedgerEntry.Reason.STAKE,
        idempotency_key=f"spend:{user.pk}:{wallet.balance}:{to}",
    )


def _at(zone: str, *args: int) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=zoneinfo.ZoneInfo(zone))


def _balance(user) -> int:
    return wallet_for(user).balance


# --- the service ----------------------------------------------------------------------------


def test_a_claim_below_the_floor_tops_the_wallet_up_to_the_floor_once(make_user):
    player = make_user()
    _spend_down(player, to=250)
    before = chips_in_circulation()
    now = _at("Europe/Moscow", 2026, 3, 10, 12, 0)

    entry = daily_bonus_claim(user=player, time_zone="Europe/Moscow", now=now)

    assert (entry.amount, entry.reason) == (750, LedgerEntry.Reason.DAILY_BONUS)
    assert entry.idempotency_key == f"bonus:{player.pk}:2026-03-10"
    assert entry.source.code == "grants"  # a grant, like the welcome chips
    assert _balance(player) == FLOOR
    with pytest.raises(BonusClaimedToday):
        daily_bonus_claim(user=player, time_zone="Europe/Moscow", now=now)
    assert _balance(player) == FLOOR
    assert LedgerEntry.objects.filter(reason="daily_bonus").count() == 1
    assert chips_in_circulation() == before + 750
    assert chips_unbalanced() is None


def test_an_empty_wallet_gets_the_whole_floor(make_user):
    player = make_user()
    _spend_down(player, to=0)
    assert daily_bonus_claim(user=player, time_zone="UTC").amount == FLOOR
    assert chips_unbalanced() is None


def test_a_claim_at_or_above_the_floor_is_refused_and_grants_nothing(make_user):
    rich, at_floor = make_user(), make_user()
    _spend_down(at_floor, to=FLOOR)
    for player in (rich, at_floor):
        with pytest.raises(BonusAboveFloor):
            daily_bonus_claim(user=player, time_zone="Europe/Moscow")
    assert not LedgerEntry.objects.filter(reason="daily_bonus").exists()
    assert not DailyBonusClaim.objects.exists()
    assert chips_unbalanced() is None


def test_the_floor_is_a_setting(make_user, settings):
    settings.DAILY_BONUS_FLOOR = 5_000
    player = make_user()
    _spend_down(player, to=4_000)
    assert daily_bonus_claim(user=player, time_zone="UTC").amount == 1_000
    assert _balance(player) == 5_000


def test_the_next_calendar_day_in_the_players_zone_allows_another_claim(make_user):
    """23:30 and 00:10 in Vladivostok are two days there, though one afternoon in Moscow."""
    player = make_user()
    _spend_down(player, to=100)
    daily_bonus_claim(
        user=player, time_zone="Asia/Vladivostok", now=_at("Asia/Vladivostok", 2026, 3, 10, 23, 30)
    )
    _spend_down(player, to=300)

    entry = daily_bonus_claim(
        user=player, time_zone="Asia/Vladivostok", now=_at("Asia/Vladivostok", 2026, 3, 11, 0, 10)
    )

    assert entry.amount == 700
    assert entry.idempotency_key == f"bonus:{player.pk}:2026-03-11"
    assert _balance(player) == FLOOR
    assert chips_unbalanced() is None


def test_a_second_claim_the_same_day_in_the_players_zone_is_refused_though_moscow_is_past_midnight(
    make_user,
):
    player = make_user()
    _spend_down(player, to=100)
    zone = "America/New_York"
    daily_bonus_claim(user=player, time_zone=zone, now=_at(zone, 2026, 3, 10, 15, 0))
    _spend_down(player, to=0)
    with pytest.raises(BonusClaimedToday):
        # 02:00 on the 11th in Moscow, still the 10th in New York.
        daily_bonus_claim(user=player, time_zone=zone, now=_at(zone, 2026, 3, 10, 18, 0))


def test_posting_another_zone_where_a_new_day_began_gives_no_second_bonus_that_day(make_user):
    """Two hours after a claim in Moscow it is already tomorrow on Kiritimati (UTC+14): the
    claim must be on a new day in the zone of the last claim as well."""
    player = make_user()
    _spend_down(player, to=100)
    daily_bonus_claim(
        user=player, time_zone="Europe/Moscow", now=_at("Europe/Moscow", 2026, 3, 10, 12, 0)
    )
    _spend_down(player, to=0)
    with pytest.raises(BonusClaimedToday):
        daily_bonus_claim(
            user=player,
            time_zone="Pacific/Kiritimati",
            now=_at("Europe/Moscow", 2026, 3, 10, 14, 0),
        )
    # The next day in Moscow the claim counts in the zone posted then.
    entry = daily_bonus_claim(
        user=player, time_zone="Pacific/Kiritimati", now=_at("Europe/Moscow", 2026, 3, 11, 0, 30)
    )
    assert entry.idempotency_key == f"bonus:{player.pk}:2026-03-11"


def test_crossing_the_date_line_westwards_does_not_repeat_a_date(make_user):
    player = make_user()
    _spend_down(player, to=100)
    # 23:00 on the 10th on Kiritimati is 23:00 on the 9th in Honolulu.
    daily_bonus_claim(
        user=player,
        time_zone="Pacific/Kiritimati",
        now=_at("Pacific/Kiritimati", 2026, 3, 10, 23, 0),
    )
    _spend_down(player, to=0)
    with pytest.raises(BonusClaimedToday):
        # Past midnight on Kiritimati and in Honolulu, where it is now the 10th again.
        daily_bonus_claim(
            user=player,
            time_zone="Pacific/Honolulu",
            now=_at("Pacific/Kiritimati", 2026, 3, 11, 0, 30),
        )


@pytest.mark.parametrize("name", ["", None, "Mars/Olympus", "../etc/passwd", "Europe/", "x" * 300])
def test_a_missing_or_unknown_zone_counts_in_the_servers_time_zone(name, settings):
    assert player_zone(name).key == settings.TIME_ZONE == "Europe/Moscow"


def test_a_claim_with_an_unknown_zone_is_counted_in_the_servers(make_user):
    player = make_user()
    _spend_down(player, to=0)
    daily_bonus_claim(user=player, time_zone="Mars/Olympus")
    assert DailyBonusClaim.objects.get(user=player).time_zone == "Europe/Moscow"


def test_the_bonus_turned_off_by_an_admin_is_refused(make_user):
    player = make_user()
    _spend_down(player, to=0)
    DailyBonusSwitch.objects.create(enabled=False, note="инфляция")
    with pytest.raises(BonusOff):
        daily_bonus_claim(user=player, time_zone="UTC")
    assert not daily_bonus_claimable(user=player)
    DailyBonusSwitch(enabled=True).save()  # the one row, turned back on
    assert DailyBonusSwitch.objects.count() == 1
    assert daily_bonus_claim(user=player, time_zone="UTC").amount == FLOOR


def test_a_floor_of_zero_turns_the_bonus_off(make_user, settings):
    settings.DAILY_BONUS_FLOOR = 0
    player = make_user()
    _spend_down(player, to=0)
    with pytest.raises(BonusOff):
        daily_bonus_claim(user=player, time_zone="UTC")


def test_refusals_are_told_in_the_players_language(make_user):
    player = make_user()
    with pytest.raises(BonusAboveFloor, match="фишек на счёте меньше 1\u00a0000"):
        daily_bonus_claim(user=player, time_zone="UTC")
    with translation.override("en"), pytest.raises(BonusAboveFloor, match="fewer than 1,000 chips"):
        daily_bonus_claim(user=player, time_zone="UTC")
    DailyBonusSwitch.objects.create(enabled=False)
    with translation.override("en"), pytest.raises(BonusOff, match="turned off"):
        daily_bonus_claim(user=player, time_zone="UTC")


# --- the page ---------------------------------------------------------------------------


def _signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def _bonus_form(html: str) -> str | None:
    """The header's bonus form's opening tag, or None when the page has none."""
    match = re.search(r"<form[^>]*data-bonus-form[^>]*>", html)
    return match.group(0) if match else None


def test_the_claim_form_grants_and_returns_to_the_page_with_the_new_balance(make_user):
    player = make_user()
    _spend_down(player, to=40)
    client = _signed_in(player)

    response = client.post(
        reverse("bonus_claim"),
        {"time_zone": "Asia/Yekaterinburg", "next": reverse("history")},
        follow=True,
    )

    assert response.redirect_chain == [(reverse("history"), 302)]
    html = response.content.decode()
    assert "Ежедневный бонус: +960 фишек. На счёте 1\u00a0000." in html
    assert "data-chip-balance>1\u00a0000<" in html  # the header's balance, already new
    assert DailyBonusClaim.objects.get(user=player).time_zone == "Asia/Yekaterinburg"


def test_a_second_claim_is_refused_with_a_message_in_english_for_an_english_player(make_user):
    player = make_user()
    _spend_down(player, to=40)
    client = _signed_in(player)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    client.post(reverse("bonus_claim"), {"time_zone": "UTC"})

    response = client.post(reverse("bonus_claim"), {"time_zone": "UTC"}, follow=True)

    assert "You have already claimed today&#x27;s bonus." in response.content.decode()
    assert LedgerEntry.objects.filter(reason="daily_bonus").count() == 1


def test_the_claim_answers_only_a_signed_in_post_with_its_csrf_token(make_user):
    player = make_user()
    _spend_down(player, to=0)
    url = reverse("bonus_claim")
    assert Client().post(url)["Location"].startswith(reverse("login"))
    assert _signed_in(player).get(url).status_code == 405
    assert _signed_in(player, enforce_csrf_checks=True).post(url).status_code == 403
    assert not LedgerEntry.objects.filter(reason="daily_bonus").exists()


def test_the_claim_never_redirects_to_another_site(make_user):
    client = _signed_in(make_user())
    response = client.post(reverse("bonus_claim"), {"next": "https://evil.example/"})
    assert response["Location"] == reverse("chips")


def test_claims_posted_in_a_loop_are_throttled(make_user, monkeypatch):
    from accounts import views

    monkeypatch.setattr(views, "BONUS_CLAIMS_PER_HOUR", 2)
    player = make_user()
    _spend_down(player, to=0)
    client = _signed_in(player)
    # Counted per clock hour: at 12:59:10 it ends in 50 s.
    at = datetime.datetime(2026, 3, 2, 12, 59, 10, tzinfo=datetime.UTC)
    with time_machine.travel(at, tick=False) as clock:
        for _ in range(2):
            client.post(reverse("bonus_claim"), {"time_zone": "UTC"})
        response = client.post(reverse("bonus_claim"), {"time_zone": "UTC"}, follow=True)
        assert "Слишком много попыток" in response.content.decode()
        # A program asking for JSON is told the limit and the seconds to wait.
        asked = client.post(
            reverse("bonus_claim"), {"time_zone": "UTC"}, HTTP_ACCEPT="application/json"
        )
        assert assert_limit_refusal(asked, "bonus_claims") == 50
        clock.shift(50)
        response = client.post(reverse("bonus_claim"), {"time_zone": "UTC"}, follow=True)
        assert "Слишком много попыток" not in response.content.decode()
    assert LedgerEntry.objects.filter(reason="daily_bonus").count() == 1


def test_the_header_shows_bonus_only_when_it_can_be_claimed(client, make_user):
    assert _bonus_form(client.get(reverse("lobby")).content.decode()) is None  # anonymous

    player = make_user()
    client.force_login(player)
    assert " hidden" in _bonus_form(client.get(reverse("lobby")).content.decode())  # 10,000

    _spend_down(player, to=999)
    html = client.get(reverse("lobby")).content.decode()
    assert " hidden" not in _bonus_form(html) and ">Бонус</button>" in html

    client.post(reverse("bonus_claim"), {"time_zone": "Europe/Moscow"})
    _spend_down(player, to=0)  # broke again, but today's bonus is taken
    assert " hidden" in _bonus_form(client.get(reverse("lobby")).content.decode())

    yesterday = datetime.datetime(2020, 1, 1, 12, tzinfo=datetime.UTC)  # long ago, then
    DailyBonusClaim.objects.update(claimed_at=yesterday, day=yesterday.date())
    assert " hidden" not in _bonus_form(client.get(reverse("lobby")).content.decode())


def test_the_balance_json_says_whether_the_bonus_can_be_claimed(client, make_user):
    player = make_user()
    client.force_login(player)
    url = reverse("chips_balance")
    assert client.get(url).json() == {"balance": 10_000, "bonus": False}
    _spend_down(player, to=10)
    assert client.get(url, {"tz": "Asia/Tokyo"}).json() == {"balance": 10, "bonus": True}


# --- the admin -------------------------------------------------------------------------------


def test_an_admin_turns_the_bonus_off_in_django_admin(admin_client, admin_user, make_user):
    player = make_user()
    _spend_down(player, to=0)
    response = admin_client.post(
        reverse("admin:accounts_dailybonusswitch_add"), {"note": "проверка экономики"}
    )  # an unticked box: off
    assert response.status_code == 302
    switch = DailyBonusSwitch.objects.get()
    assert (switch.enabled, switch.changed_by) == (False, admin_user)
    assert admin_client.get(reverse("admin:accounts_dailybonusswitch_add")).status_code == 403
    with pytest.raises(BonusOff):
        daily_bonus_claim(user=player, time_zone="UTC")

    admin_client.post(
        reverse("admin:accounts_dailybonusswitch_change", args=[switch.pk]),
        {"enabled": "on", "note": ""},
    )
    assert daily_bonus_claim(user=player, time_zone="UTC").amount == FLOOR


def test_the_chip_flow_report_lists_the_bonuses(admin_client, make_user):
    player = make_user("bednyak")
    _spend_down(player, to=100)
    daily_bonus_claim(user=player, time_zone="UTC")
    html = admin_client.get(reverse("admin:accounts_account_chip_flows")).content.decode()
    section = html[html.index('id="bonuses"') :]
    assert "bednyak" in section and "900" in section
    claims = admin_client.get(
        reverse("admin:accounts_dailybonusclaim_changelist"), {"user__id__exact": player.pk}
    )
    assert claims.status_code == 200 and "bednyak" in claims.content.decode()


@pytest.mark.parametrize(
    ("left", "told"),
    [(999, "+1 фишка. На счёте"), (998, "+2 фишки. На счёте"), (995, "+5 фишек. На счёте")],
)
def test_the_granted_chips_are_told_with_russian_plural_forms(make_user, left, told):
    player = make_user()
    _spend_down(player, to=left)
    response = _signed_in(player).post(reverse("bonus_claim"), {"time_zone": "UTC"}, follow=True)
    assert told in response.content.decode()
