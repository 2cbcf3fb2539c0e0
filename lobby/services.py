"""Opening tables from the lobby: by hand (the lobby's form, its socket's
`open_table`) and in one click (`table_one_click`), with the limits a public lobby needs
(how many a player has open at once, how many they open per hour)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.services import wallet_for
from accounts.throttling import ThrottleHit, throttle_hit, throttle_release
from lobby.selectors import quick_seat_tables
from play.services.errors import PlayError, SeatError
from play.services.seating import AI_VARIANTS, ai_seat_add, seat_take
from tables.models import Table
from tables.services import table_create
from tables.variants import BLACKJACK, SOLO, VARIANTS


def table_open(*, by: Any, variant: str, private: bool = False, **fields: Any) -> Table:
    """A signed-in player opens a table from the lobby and becomes its host: the one way
    a player opens a table by hand (the lobby's form, its socket's `open_table`), so that
    the limits of `_may_open` hold for both. (The one-click tables: `table_one_click`.)"""
    return table_open_with(by=by, variant=variant, private=private, fields=fields)


# The fields of a table its opener may set (docs/protocol.md §14, `open_table`).
TABLE_OPEN_FIELDS = frozenset(
    {"name", "seat_count", "stake", "min_bet", "max_bet", "entry_limit"}
    | {"decision_seconds", "reconnect_grace_seconds", "match_length", "bots_allowed"}
)


def table_open_with(
    *, by: Any, variant: str, private: bool = False, fields: Mapping[str, Any]
) -> Table:
    """`table_open` with the table's fields as one mapping, as a socket message gives
    them: any key of it is a field, refused unless it is one (a key named like an
    argument here — `by`, `one_click` — cannot reach it)."""
    _require_signed_in(by)
    unknown = sorted(set(fields) - TABLE_OPEN_FIELDS)
    if unknown:
        raise PlayError(
            "bad_message",
            _("Неизвестные поля: %(f)s.") % {"f": ", ".join(unknown)},
            field=unknown[0],
        )
    # The types are the caller's to check (the form's fields, the socket's contract,
    # contract.lobby.OpenTable): a string where a number goes would break Table.clean's
    # comparisons instead of being refused.
    values = {"name": _default_name(by), **fields}
    with transaction.atomic():
        counted = _may_open(by)
        try:
            return table_create(created_by=by, variant=variant, private=private, **values)
        except ValidationError as error:
            _give_back(counted)
            refused = error.message_dict
            text = "; ".join(f"{k}: {' '.join(v)}" for k, v in refused.items())
            named = [k for k in refused if k != NON_FIELD_ERRORS]
            raise PlayError("bad_table", text, field=named[0] if named else None) from error
        except BaseException:
            _give_back(counted)
            raise


def table_one_click(*, by: Any, variant: str, ai_levels: Sequence[str] = ()) -> Table:
    """The lobby's «Играть»: the player's own private table of `variant` (with AI seats of
    `ai_levels`), the player seated. The one they have, if it is open — seated again if
    they had stood up — or else a new one: one per player and variant, so they never pile
    up, and they are left out of the open-at-once limit (the hourly rate still counts a
    new one). Made whole or not at all, under a lock of the player's row: two clicks at
    once make one table."""
    _require_signed_in(by)
    with transaction.atomic():
        _lock_player(by)
        mine = (
            Table.objects.filter(
                variant=variant, status=Table.Status.OPEN, created_by=by, one_click=True
            )
            .order_by("-pk")
            .first()
        )
        if mine is not None:
            if not mine.seats.filter(player=by).exists():
                # If they cannot sit here, the table page says why (it is theirs to
                # watch) — unless they may sit at no table at all (a moderator's ban):
                # then the lobby says so, rather than land them on a table they only watch.
                try:
                    seat_take(table=mine, player=by)
                except (PlayError, SeatError) as error:
                    if getattr(error, "code", None) in _REFUSED_EVERYWHERE:
                        raise
            return mine
        counted = _may_open(by, open_at_once=False)
        try:
            table = table_create(
                created_by=by,
                variant=variant,
                private=True,
                one_click=True,
                name=_default_name(by),
            )
            seat_take(table=table, player=by)
            for level in ai_levels:
                ai_seat_add(table=table, by=by, level=level)
        except BaseException:
            _give_back(counted)  # nothing of it stays: the transaction rolls back
            raise
        return table


# Seat refusals of the player, not of a table (play.signals.seat_requested's receivers:
# moderation's ban), which «Играть» reports instead of landing them at a table to watch.
_REFUSED_EVERYWHERE = frozenset({"banned"})

# The variants whose «Играть» always opens the player's own one-click table
# (`table_one_click`): one player's games (a solo game, a blackjack training table with
# its AI seats), not a table to share — a public one shows the last player's session and
# waits on the clock of whoever sits there.
ONE_CLICK_VARIANTS = (SOLO, BLACKJACK)

# How many of the best tables a quick seat tries: one filled between the look and its lock
# (another player's quick seat) is passed over for the next, and after these a table is
# opened instead of walking the whole list.
QUICK_SEAT_TRIES = 5

# The seat refusals that mean "not this table" (filled, closed, its limit changed) rather
# than "not you" (seated with chips elsewhere): the next table is tried.
_TRY_NEXT = frozenset(
    {"table_full", "table_closed", "below_entry_limit", "invite_required", "linked_account"}
)


def table_quick_seat(*, by: Any, variant: str, ai_levels: Sequence[str] = ()) -> Table:
    """The lobby's «Играть» for a variant (lichess's quick pairing, BGA's auto-match): the
    player is seated at the best open table of `variant` for their chips and it is
    returned. At `solo` and `blackjack` that is always the player's own one-click table
    (`table_one_click`, with AI seats of `ai_levels`). Elsewhere a player already seated
    at an open table of the variant is just taken there. Else the public tables with a
    free seat whose entry limit the wallet covers — at `classic`, where AI seats can fill
    a game, only those where a person waits or that the player hosts — most players
    waiting first, then the oldest (`selectors.quick_seat_tables`); each is taken through
    `seat_take` under its table's lock, so two quick seats at once cannot overfill one —
    the second finds it full and takes the next. With none, a public table with the
    variant's defaults is opened, hosted by the player (who may add AI seats and start
    it), under the limits of `_may_open`. One transaction, under a lock of the player's
    row: two clicks at once seat them once."""
    _require_signed_in(by)
    spec = VARIANTS.get(variant)
    if spec is None:
        raise PlayError("bad_variant", _("Такого варианта игры нет."))
    if variant in ONE_CLICK_VARIANTS:
        return table_one_click(by=by, variant=variant, ai_levels=ai_levels)
    with transaction.atomic():
        _lock_player(by)
        here = (
            Table.objects.filter(
                variant=variant,
                status=Table.Status.OPEN,
                seats__player=by,
                seats__leaving=False,
            )
            .order_by("pk")
            .first()
        )
        if here is not None:
            return here
        balance = wallet_for(by).balance
        candidates = quick_seat_tables(
            variant=variant, balance=balance, player=by, with_company=variant in AI_VARIANTS
        )
        for table in candidates[:QUICK_SEAT_TRIES]:
            try:
                seat_take(table=table, player=by)
            except SeatError as error:
                if error.code in _TRY_NEXT:
                    continue
                raise
            return table
        if balance < spec.default_entry_limit:
            # Checked before opening: a table its opener cannot sit at is no answer.
            raise PlayError(
                "below_entry_limit",
                _(
                    "Для игры «%(variant)s» нужно фишек не меньше %(limit)d, у вас "
                    "%(balance)d: столов по вашим фишкам нет."
                )
                % {"variant": spec.name, "limit": spec.default_entry_limit, "balance": balance},
            )
        counted = _may_open(by)
        try:
            table = table_create(
                created_by=by, variant=variant, private=False, name=_default_name(by)
            )
            seat_take(table=table, player=by)
        except BaseException:
            _give_back(counted)  # nothing of it stays: the transaction rolls back
            raise
        return table


def _require_signed_in(by: Any) -> None:
    if not getattr(by, "is_authenticated", False):
        raise PlayError("not_signed_in", _("Откройте стол, войдя в свой аккаунт."))


def _default_name(by: Any) -> str:
    return _("Стол %(user)s") % {"user": by.username}


def _lock_player(by: Any) -> None:
    """Lock the player's row for the transaction: their opens wait for each other."""
    get_user_model().objects.select_for_update().filter(pk=by.pk).first()


def _give_back(counted: ThrottleHit | None) -> None:
    if counted is not None:  # a table that was not made is not an opening
        throttle_release(counted)


def _may_open(by: Any, *, open_at_once: bool = True) -> ThrottleHit | None:
    """Refuse a player a new table beyond their limits (staff have none): at most
    TABLES_OPEN_PER_USER of theirs open at once, at most TABLE_OPENS_PER_HOUR opened in a
    clock hour. Returns the rate's counted attempt (None for staff).

    The open tables are counted under a lock of the player's row: two opens at once (two
    tabs, a script) would otherwise both count the same tables and both pass the limit.
    One player opening 2,000 tables made the lobby slow and heavy for everyone."""
    if by.is_staff or by.is_superuser:
        return None
    limit = settings.TABLES_OPEN_PER_USER
    if open_at_once:
        _lock_player(by)  # (a one-click open has locked it already)
    mine = Table.objects.filter(created_by=by, status=Table.Status.OPEN, one_click=False)
    if open_at_once and mine.count() >= limit:
        raise PlayError(
            "too_many_tables",
            _("У вас уже открыто столов: %(n)d, больше нельзя. Закройте один из них.")
            % {"n": limit},
            # Freed by closing a table, not by time: no retry_after.
            limit="open_tables",
        )
    # The rate: the shared cache's atomic counter (accounts.throttling: Redis in
    # production), so that it holds across web processes.
    hit = throttle_hit(scope="table-open", subject=str(by.pk), limit=settings.TABLE_OPENS_PER_HOUR)
    if not hit.allowed:
        raise PlayError(
            "rate_limited",
            _("Слишком много новых столов: не больше %(n)d в час. Попробуйте позже.")
            % {"n": settings.TABLE_OPENS_PER_HOUR},
            limit="table_opens",
            retry_after=hit.retry_after,
        )
    return hit
