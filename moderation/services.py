"""Moderation's writes: a player's report, a moderator's decision, lifting one early, and
a player reading the notice of one. Each is one transaction."""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import LedgerEntry, User
from accounts.services import ChipsError, chips_transfer, wallet_for
from chat.models import ChatMessage
from chat.services import held_from
from moderation.models import NOTE_MAX_LENGTH, REASON_MAX_LENGTH, Report, Sanction
from play.services.seating import seat_leave
from tables.models import Seat, Table

logger = logging.getLogger(__name__)

# The messages a report keeps around the reported one, at its table: enough to read the
# exchange that led to it, and what followed.
EVIDENCE_BEFORE = 10
EVIDENCE_AFTER = 5
# A report about a player (not a message) keeps their latest messages, at any table.
EVIDENCE_PLAYER_MESSAGES = 10

# The periods a moderator picks from (admin forms), as (key, length, label).
PERIODS: dict[str, datetime.timedelta] = {
    "1h": datetime.timedelta(hours=1),
    "1d": datetime.timedelta(days=1),
    "7d": datetime.timedelta(days=7),
    "30d": datetime.timedelta(days=30),
}


class ReportRefused(Exception):
    """A report not taken: `code` is the answer's error code (docs/protocol.md, "Reports
    (HTTP)"), `status` its HTTP status, and the message is fit to show the reporter."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


class ModerationError(Exception):
    """A moderator's decision refused (no reason given, no period, nothing to lift)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- reports ---------------------------------------------------------------------------


def _message_evidence(message: ChatMessage, *, reported: bool = False) -> dict[str, Any]:
    return {
        "id": message.pk,
        "author": message.author.username,
        "author_id": message.author_id,
        "text": message.text,  # as written: the moderators read the original
        "shown": message.shown,
        "created_at": message.created_at.isoformat(),
        "table_id": message.table_id,
        **({"reported": True} if reported else {}),
    }


def _around(message: ChatMessage) -> list[ChatMessage]:
    at_table = ChatMessage.objects.filter(table_id=message.table_id).select_related("author")
    before = at_table.filter(created_at__lte=message.created_at).exclude(pk=message.pk)
    before = before.exclude(created_at=message.created_at, id__gt=message.pk)
    after = at_table.filter(created_at__gte=message.created_at).exclude(pk=message.pk)
    after = after.exclude(created_at=message.created_at, id__lt=message.pk)
    earlier = list(before.order_by("-created_at", "-id")[:EVIDENCE_BEFORE])
    later = list(after.order_by("created_at", "id")[:EVIDENCE_AFTER])
    return [*reversed(earlier), message, *later]


def evidence_of_message(message: ChatMessage) -> dict[str, Any]:
    """The snapshot a report on `message` keeps: the message and those around it at its
    table, as written, and the table and game it was written at."""
    table = message.table
    game = message.game
    return {
        "table": {"id": table.pk, "name": table.name},
        "game": {"id": game.pk, "number": game.number} if game is not None else None,
        "message": _message_evidence(message, reported=True),
        "messages": [
            _message_evidence(item, reported=item.pk == message.pk) for item in _around(message)
        ],
    }


def evidence_of_player(player: Any) -> dict[str, Any]:
    """The snapshot a report on a player keeps: their latest chat messages."""
    latest = list(
        ChatMessage.objects.filter(author=player)
        .select_related("author")
        .order_by("-created_at", "-id")[:EVIDENCE_PLAYER_MESSAGES]
    )
    return {
        "table": None,
        "game": None,
        "message": None,
        "messages": [_message_evidence(item) for item in reversed(latest)],
    }


def report_create(
    *,
    reporter: Any,
    reason: str,
    note: str = "",
    message_id: int | None = None,
    player_name: str | None = None,
) -> Report:
    """Record `reporter`'s report on a chat message (which reports its author) or on a
    player, with the evidence as it stands now. A second report by the same player on the
    same message (or the same player, without a message) while the first is open is the
    first one: a double tap files one report."""
    if reason not in Report.Reason.values:
        raise ReportRefused("bad_message", _("Выберите причину жалобы."))
    note = (note or "").strip()
    if len(note) > NOTE_MAX_LENGTH:
        raise ReportRefused(
            "bad_message",
            _("Пояснение не длиннее %(limit)s символов.") % {"limit": NOTE_MAX_LENGTH},
        )
    if "\x00" in note:
        raise ReportRefused("bad_message", _("Пояснение содержит недопустимый символ."))
    message: ChatMessage | None = None
    if message_id is not None:
        message = (
            ChatMessage.objects.select_related("author", "table", "game")
            .filter(pk=message_id)
            .first()
        )
        # A message still held from the reporter (a spectator's, mid-deal, to a seated
        # player: docs/protocol.md §17.3) is not there for them yet: answered as unknown,
        # so that neither its author nor the message itself is told.
        if message is None or held_from(message, user_id=reporter.pk):
            raise ReportRefused(
                "not_found", _("Такого сообщения нет (возможно, оно уже удалено)."), 404
            )
        reported = message.author
    elif player_name:
        if "\x00" in player_name:
            raise ReportRefused("not_found", _("Такого игрока нет."), 404)
        reported = get_user_model().objects.filter(username=player_name, is_active=True).first()
        if reported is None:
            raise ReportRefused("not_found", _("Такого игрока нет."), 404)
    else:
        raise ReportRefused("bad_message", _("Не указано, на что жалоба."))
    if reported.pk == reporter.pk:
        raise ReportRefused("self_report", _("На себя пожаловаться нельзя."))

    with transaction.atomic():
        same = Report.objects.select_for_update().filter(
            reporter=reporter, reported=reported, status=Report.Status.OPEN
        )
        same = same.filter(message=message) if message else same.filter(message__isnull=True)
        existing = same.first()
        if existing is not None:
            return existing
        if message is not None:
            evidence = evidence_of_message(message)
            table, game = message.table, message.game
        else:
            evidence, table, game = evidence_of_player(reported), None, None
        return Report.objects.create(
            reporter=reporter,
            reported=reported,
            reason=reason,
            note=note,
            message=message,
            table=table,
            game=game,
            evidence=evidence,
        )


# --- a moderator's decisions -------------------------------------------------------------


def _clean_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError(_("Напишите причину: игрок её увидит."))
    if len(reason) > REASON_MAX_LENGTH:
        raise ModerationError(
            _("Причина не длиннее %(limit)s символов.") % {"limit": REASON_MAX_LENGTH}
        )
    return reason


def sanction_apply(
    *,
    kind: str,
    player: Any,
    by: Any,
    reason: str,
    period: datetime.timedelta | None = None,
    report: Report | None = None,
    now: datetime.datetime | None = None,
) -> Sanction:
    """Record a moderator's decision about `player`: a warning, a mute or a ban for
    `period`, or dismissing `report`. A decision on a report closes it (status handled).
    The player sees a warning, a mute or a ban as a notice on their next page."""
    reason = _clean_reason(reason)
    now = now or timezone.now()
    if kind not in Sanction.Kind.values:
        raise ModerationError(_("Неизвестная мера."))
    ends_at = None
    if kind in Sanction.RESTRICTING:
        if period is None or period <= datetime.timedelta(0):
            raise ModerationError(_("Выберите срок."))
        ends_at = now + period
    if kind == Sanction.Kind.DISMISS and report is None:
        raise ModerationError(_("Отклонить можно только жалобу."))
    if report is not None and report.reported_id != player.pk:
        raise ModerationError(_("Жалоба о другом игроке."))
    with transaction.atomic():
        if report is not None:
            # Two moderators deciding on one report at once: the second is told, rather
            # than warning or muting the player a second time for the same thing.
            locked = Report.objects.select_for_update().get(pk=report.pk)
            if locked.status != Report.Status.OPEN:
                raise ModerationError(_("По этой жалобе уже есть решение."))
        sanction = Sanction.objects.create(
            kind=kind,
            player=player,
            report=report,
            reason=reason,
            created_by=by,
            created_at=now,
            ends_at=ends_at,
            # A dismissal is the reporter's business, not the player's: nothing to read.
            acknowledged_at=now if kind == Sanction.Kind.DISMISS else None,
        )
        if report is not None:
            Report.objects.filter(pk=report.pk).update(status=Report.Status.HANDLED)
            report.status = Report.Status.HANDLED
            holds_release(report)
    if kind == Sanction.Kind.BAN:
        stand_up_everywhere(player)
    return sanction


def stand_up_everywhere(player: Any) -> int:
    """A banned player stops playing now, not when they next sit: they stand up from every
    open table, as if they had pressed «Встать» (play.services.seating.seat_leave: between games
    the seat is freed; mid-game their decisions are played by the clock at once — a
    forfeit — and the seat is freed when the game ends). Each table in a transaction of
    its own, after the ban is recorded: a table that cannot be left now (its database
    row busy) is logged and does not undo the ban, which refuses their next seat anyway.
    Returns how many tables they left."""
    left = 0
    seats = Seat.objects.filter(player=player, table__status=Table.Status.OPEN).select_related(
        "table"
    )
    for seat in list(seats):
        try:
            left += seat_leave(table=seat.table, player=player)
        except Exception:
            logger.exception("banned player %s could not leave table %s", player.pk, seat.table_id)
    return left


def sanction_lift(
    *, sanction: Sanction, by: Any, reason: str, now: datetime.datetime | None = None
) -> Sanction:
    """End a mute or a ban early, recording who, when and why; the player is told (the
    notice shows again, saying it was lifted)."""
    reason = _clean_reason(reason)
    now = now or timezone.now()
    with transaction.atomic():
        locked = Sanction.objects.select_for_update().get(pk=sanction.pk)
        if not locked.in_force(now):
            raise ModerationError(_("Эта мера уже не действует."))
        locked.lifted_at = now
        locked.lifted_by = by
        locked.lift_reason = reason
        locked.acknowledged_at = None
        locked.save(update_fields=["lifted_at", "lifted_by", "lift_reason", "acknowledged_at"])
    return locked


# --- the player's notices ----------------------------------------------------------------


def notice_acknowledge(*, player: Any, sanction_id: int) -> bool:
    """The player read the notice of a decision about them; False if there is none."""
    return bool(
        Sanction.objects.filter(pk=sanction_id, player=player, acknowledged_at__isnull=True).update(
            acknowledged_at=timezone.now()
        )
    )


# --- fair-play cases (docs/fair-play.md) -------------------------------------------------


def case_open(*, gainer: Any, giver: Any, evidence: dict[str, Any], note: str = "") -> Report:
    """Open (or bring up to date) the fair-play case about chips passing from `giver` to
    `gainer`: a report in the queue with no reporter, reason collusion, the pair and the
    evidence. Both players are held off the leaderboards while it is open — the one
    automatic consequence; everything else is a moderator's decision. A case already open
    about the pair gets the new evidence instead of a second case."""
    with transaction.atomic():
        case = (
            Report.objects.select_for_update()
            .filter(
                reporter__isnull=True, reported=gainer, partner=giver, status=Report.Status.OPEN
            )
            .first()
        )
        if case is None:
            case = Report.objects.create(
                reporter=None,
                reported=gainer,
                partner=giver,
                reason=Report.Reason.COLLUSION,
                note=note[:NOTE_MAX_LENGTH],
                evidence=evidence,
            )
        else:
            case.evidence = evidence
            case.save(update_fields=["evidence"])
        User.objects.filter(pk__in=[gainer.pk, giver.pk]).update(leaderboard_hold=True)
    return case


def holds_release(report: Report) -> None:
    """A case closed: its players return to the leaderboards unless another open case
    still names them."""
    if report.reporter_id is not None or report.partner_id is None:
        return
    for player_id in (report.reported_id, report.partner_id):
        still_open = Report.objects.filter(
            reporter__isnull=True, status=Report.Status.OPEN, partner__isnull=False
        ).filter(models.Q(reported_id=player_id) | models.Q(partner_id=player_id))
        if not still_open.exists():
            User.objects.filter(pk=player_id).update(leaderboard_hold=False)


def dump_reverse(*, report: Report, amount: int, by: Any, reason: str) -> LedgerEntry:
    """Move `amount` chips back from the case's gainer to its giver: one ledger transfer
    (reason `fairplay_reversal`, key `fairplay:reversal:<case id>`: once per case), shown
    on both statements with the case's number, and recorded on the case with who did it.
    Refused with a clear message when the gainer's wallet cannot cover it."""
    reason = _clean_reason(reason)
    if report.partner_id is None:
        raise ModerationError(_("Вернуть фишки можно только по делу о паре игроков."))
    if type(amount) is not int or amount <= 0:
        raise ModerationError(_("Сумма — целое число фишек больше нуля."))
    with transaction.atomic():
        locked = Report.objects.select_for_update().get(pk=report.pk)
        if locked.reversal_id is not None:
            raise ModerationError(_("По этому делу фишки уже возвращены."))
        memo = _("Дело №%(id)s: %(reason)s") % {"id": report.pk, "reason": reason}
        try:
            entry = chips_transfer(
                source=wallet_for(locked.reported),
                destination=wallet_for(locked.partner),
                amount=amount,
                reason=LedgerEntry.Reason.FAIRPLAY_REVERSAL,
                idempotency_key=f"fairplay:reversal:{report.pk}",
                memo=memo[:200],
                created_by=by,
            )
        except ChipsError as refused:
            raise ModerationError(
                _("Фишки не возвращены: %(why)s") % {"why": refused.message}
            ) from None
        locked.reversal = entry
        locked.reversed_by = by
        locked.save(update_fields=["reversal", "reversed_by"])
    report.reversal, report.reversed_by = entry, by
    return entry
