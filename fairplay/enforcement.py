"""Fair play enforced at the door (issue 32, item 3): strongly linked accounts never sit at
one table where a player holds the bank or a tournament's table, and free chips (the daily
bonus, freerolls) wait until an account is some days old or has played.

The refusals name nobody: a player is told that an account linked with theirs sits
there, not whose (the other may be a stranger on the same café's address).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.bonus import FreeChipsRefused
from fairplay.links import links_to
from insights.models import Decision
from play.services.errors import SeatError
from tables.models import Seat, Table
from tournaments.services import TournamentRefused

# Where one player's chips can be passed to another on purpose: a player holds the bank
# (`banker36`'s banker, `salon`'s банкомёт) and a partner can lose to it at will.
# `classic` (points), `solo` and `blackjack` (against the house) have no such bank.
PLAYER_BANK_VARIANTS = frozenset({"banker36", "salon"})


def keeps_linked_apart(table: Table) -> bool:
    """A player-bank table, or a tournament's (a duplicate heat: `duplicate` set)."""
    return table.variant in PLAYER_BANK_VARIANTS or table.duplicate is not None


def linked_seat_text() -> str:
    return _(
        "За этим столом сидит игрок, чей аккаунт связан с вашим (входы с одного адреса "
        "или устройства). Такие аккаунты не садятся за один стол с банком игрока или "
        "турнирный стол — выберите другой стол."
    )


def refuse_linked_seat(sender: Any, *, table: Table, player: Any, **kwargs: Any) -> None:
    """play.signals.seat_requested: refused with `linked_account` when a player seated
    here is strongly linked to this one (FAIRPLAY_LINK_SCORE_APART)."""
    if not keeps_linked_apart(table):
        return
    seated = list(
        Seat.objects.filter(table=table, player__isnull=False)
        .exclude(player=player)
        .values_list("player_id", flat=True)
    )
    if any(link.keeps_apart for link in links_to(player.pk, seated).values()):
        raise SeatError(linked_seat_text(), code="linked_account")


def linked_entry_text() -> str:
    return _(
        "В этом турнире уже играет аккаунт, связанный с вашим (входы с одного адреса или "
        "устройства). Связанные аккаунты не регистрируются в одном турнире — выберите другой."
    )


def refuse_linked_entry(
    sender: Any, *, tournament: Any, player: Any, entrant_ids: list[int], **kwargs: Any
) -> None:
    """tournaments.signals.entry_requested: refused with `linked_account` when a player
    registered for the event is strongly linked to this one. Every format: a sit-and-go or
    a multi-table round would seat them together, and a duplicate heat's shoe is the same
    for all, so one account could play it first and tell the other its cards."""
    if any(link.keeps_apart for link in links_to(player.pk, entrant_ids).values()):
        raise TournamentRefused("linked_account", linked_entry_text())


def free_chips_text(days: int, decisions: int) -> str:
    age = ngettext("%(n)d дня", "%(n)d дней", days) % {"n": days}
    played = ngettext("%(n)d решения", "%(n)d решений", decisions) % {"n": decisions}
    return _(
        "Бесплатные фишки (ежедневный бонус, бесплатные турниры) — для аккаунтов старше "
        "%(age)s или принявших за столами не меньше %(played)s."
    ) % {"age": age, "played": played}


def free_chips_allowed(player: Any, *, now: datetime.datetime | None = None) -> bool:
    """Old enough (FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS) or played enough
    (FREE_CHIPS_MIN_DECISIONS reviewed decisions, insights.Decision). Either is zero:
    every account is."""
    days, decisions = settings.FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS, settings.FREE_CHIPS_MIN_DECISIONS
    if days <= 0 or decisions <= 0:
        return True
    now = now or timezone.now()
    if player.date_joined <= now - datetime.timedelta(days=days):
        return True
    # Counts no further than the threshold: a player with thousands costs no more.
    made = Decision.objects.filter(user=player).values("pk")[:decisions].count()
    return made >= decisions


def refuse_free_chips_to_new_accounts(sender: Any, *, player: Any, **kwargs: Any) -> None:
    """accounts.signals.free_chips_requested: a new account that has not played yet gets
    no free chips — a farm of fresh accounts feeding one would otherwise be free."""
    if not free_chips_allowed(player):
        raise FreeChipsRefused(
            free_chips_text(
                settings.FREE_CHIPS_MIN_ACCOUNT_AGE_DAYS, settings.FREE_CHIPS_MIN_DECISIONS
            )
        )
