"""The daily bonus: a player low on chips tops their wallet up to a floor, once a day.

A wallet below `settings.DAILY_BONUS_FLOOR` may claim, once per calendar day in the
player's time zone, the chips that bring it up to the floor. The chips are a grant from
the grants account, like the welcome chips, through the one ledger transfer
(`accounts.services.chips_transfer`) with the key `bonus:<user id>:<YYYY-MM-DD>`, so two
claims at once grant once. An admin turns the bonus off with `DailyBonusSwitch`.

The player's time zone is the one their browser reports with the claim (the site shows
every time in the browser's zone), checked against the IANA database; the server's
TIME_ZONE when it is missing or unknown. docs/decisions.md says why, and why a claim must
also fall on a new day in the zone of the player's previous claim.
"""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.models import Account, DailyBonusClaim, DailyBonusSwitch, LedgerEntry
from accounts.services import ChipsError, chips_transfer, grants_account, wallet_for
from accounts.signals import free_chips_requested

# The longest IANA zone name is about 32 characters; anything longer is not one.
ZONE_NAME_MAX_LENGTH = 64


class BonusRefused(ChipsError):
    """A claim that grants nothing; the message is fit to show the player."""

    code = "bonus_refused"


class BonusOff(BonusRefused):
    code = "bonus_off"


class BonusAboveFloor(BonusRefused):
    code = "bonus_above_floor"


class BonusForBots(BonusRefused):
    code = "bonus_not_for_bots"


class BonusClaimedToday(BonusRefused):
    code = "bonus_claimed_today"


class FreeChipsRefused(BonusRefused):
    """A receiver of `accounts.signals.free_chips_requested` refused: the account is too
    new and has played too little (fairplay.enforcement). The message says what it takes."""

    code = "bonus_account_too_new"


def player_zone(name: str | None) -> zoneinfo.ZoneInfo:
    """The IANA zone `name` (as a browser's Intl API reports it), or the server's
    TIME_ZONE when it is empty or not a zone."""
    name = (name or "").strip()
    if name and len(name) <= ZONE_NAME_MAX_LENGTH:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            pass  # a made-up or malformed name ("../etc", "Mars/Olympus"): the server's
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def _day_start(moment: datetime.datetime, zone: zoneinfo.ZoneInfo) -> datetime.datetime:
    """The midnight that began `moment`'s calendar day in `zone`."""
    return datetime.datetime.combine(moment.astimezone(zone).date(), datetime.time(), zone)


def bonus_key(*, user: Any, day: datetime.date) -> str:
    return f"bonus:{user.pk}:{day.isoformat()}"


# --- selectors -------------------------------------------------------------------------


def daily_bonus_enabled() -> bool:
    """The admin's switch (no row: on), and a floor above zero."""
    if settings.DAILY_BONUS_FLOOR <= 0:
        return False
    enabled = (
        DailyBonusSwitch.objects.filter(pk=DailyBonusSwitch.SINGLETON_PK)
        .values_list("enabled", flat=True)
        .first()
    )
    return enabled is not False


def _claimed_today(
    *, user: Any, zone: zoneinfo.ZoneInfo, now: datetime.datetime
) -> DailyBonusClaim | None:
    """The claim that makes today's a second one, if any: one made since midnight in
    `zone`, or since midnight in the zone of the last claim (which stops a player from
    moving their clock from zone to zone for a fresh midnight every hour), or one on the
    same calendar date (a player who crossed the date line westwards)."""
    last = DailyBonusClaim.objects.filter(user=user).order_by("-claimed_at").first()
    if last is None:
        return None
    today = now.astimezone(zone).date()
    if last.day == today:
        return last
    # Today began at the earlier of the two midnights: a claim after either is today's.
    since = min(_day_start(now, zone), _day_start(now, player_zone(last.time_zone)))
    if last.claimed_at >= since:
        return last
    return DailyBonusClaim.objects.filter(user=user, day=today).first()


def daily_bonus_claimable(*, user: Any, time_zone: str | None = None) -> bool:
    """Whether a claim now would grant chips (the header's «Бонус»). Without a zone from
    the browser, the zone of the player's last claim is the best guess of theirs."""
    if not getattr(user, "is_authenticated", False) or not daily_bonus_enabled():
        return False
    if user.is_bot:
        return False
    balance = (
        Account.objects.filter(owner=user, kind=Account.Kind.PLAYER)
        .values_list("balance", flat=True)
        .first()
    )
    if (balance or 0) >= settings.DAILY_BONUS_FLOOR:
        return False
    if time_zone is None:
        time_zone = (
            DailyBonusClaim.objects.filter(user=user)
            .order_by("-claimed_at")
            .values_list("time_zone", flat=True)
            .first()
        )
    return _claimed_today(user=user, zone=player_zone(time_zone), now=timezone.now()) is None


# --- the service -----------------------------------------------------------------------


def daily_bonus_claim(
    *, user: Any, time_zone: str | None, now: datetime.datetime | None = None
) -> LedgerEntry:
    """Grant `user` the chips that bring their wallet up to the floor, once per calendar
    day in `time_zone`; raise a BonusRefused (BonusOff, BonusAboveFloor,
    BonusClaimedToday, FreeChipsRefused) otherwise. `now` is for tests that move the clock."""
    now = now or timezone.now()
    floor = settings.DAILY_BONUS_FLOOR
    if not daily_bonus_enabled():
        raise BonusOff(_("Ежедневный бонус сейчас выключен."))
    if user.is_bot:
        raise BonusForBots(_("Боты не получают ежедневный бонус."))
    free_chips_requested.send(sender=DailyBonusClaim, player=user)
    zone = player_zone(time_zone)
    day = now.astimezone(zone).date()
    grants, wallet = grants_account(), wallet_for(user)
    with transaction.atomic():
        # The same two rows chips_transfer locks, in its order (by primary key): a claim
        # holding the wallet while an admin grant holds the grants account would deadlock.
        # Under these locks a concurrent claim has committed or not begun, so the checks
        # below see it, and the amount is computed from the balance as it stands.
        locked = {
            account.pk: account
            for account in Account.objects.select_for_update()
            .filter(pk__in=[grants.pk, wallet.pk])
            .order_by("pk")
        }
        balance = locked[wallet.pk].balance
        if _claimed_today(user=user, zone=zone, now=now) is not None:
            raise BonusClaimedToday(_("Сегодня бонус уже получен. Следующий — завтра."))
        if balance >= floor:
            raise BonusAboveFloor(
                _("Бонус положен, когда фишек на счёте меньше %(floor)s.")
                % {"floor": number_format(floor, force_grouping=True)}
            )
        entry = chips_transfer(
            source=grants,
            destination=wallet,
            amount=floor - balance,
            reason=LedgerEntry.Reason.DAILY_BONUS,
            idempotency_key=bonus_key(user=user, day=day),
        )
        DailyBonusClaim.objects.create(
            user=user, entry=entry, day=day, time_zone=zone.key, claimed_at=now
        )
    return entry
