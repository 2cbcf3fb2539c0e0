"""Mutes and bans enforced: chat refuses a muted player's message, live play a banned
player's seat.

Read from the database at every check (one indexed query: moderation_sanction_in_force),
never cached in a process: a mute given in the admin holds on every web process from the
next message, and a lifted ban frees the player at once, everywhere. The receivers are
connected in `moderation.apps.ModerationConfig.ready`; chat and live play import none of
this (they send `chat.signals.message_posting` and `play.signals.seat_requested`).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from chat.errors import ChatRefused
from moderation.models import Sanction
from play.services.errors import SeatError


def restriction_in_force(player_id: int, kind: str) -> Sanction | None:
    """The player's mute or ban (`kind`) running now that ends last, or None."""
    return (
        Sanction.objects.in_force()
        .filter(player_id=player_id, kind=kind)
        .order_by("-ends_at")
        .only("id", "kind", "ends_at", "reason")
        .first()
    )


def moment_text(moment: datetime.datetime) -> str:
    """A moment as the active language writes it, in the server's time zone, named (a
    socket's error has no browser to convert it)."""
    local = timezone.localtime(moment)
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} ({local.tzname()})"


def muted_text(sanction: Sanction) -> str:
    assert sanction.ends_at is not None
    return _("Вам запрещено писать в чат до %(until)s. Причина: %(reason)s") % {
        "until": moment_text(sanction.ends_at),
        "reason": sanction.reason,
    }


def banned_text(sanction: Sanction) -> str:
    assert sanction.ends_at is not None
    return _(
        "Вам запрещено садиться за стол до %(until)s (смотреть игры можно). Причина: %(reason)s"
    ) % {"until": moment_text(sanction.ends_at), "reason": sanction.reason}


def refuse_muted_message(sender: Any, *, author: Any, table: Any, **kwargs: Any) -> None:
    """chat.signals.message_posting: a muted author's message is refused with `muted`."""
    mute = restriction_in_force(author.pk, Sanction.Kind.MUTE)
    if mute is not None:
        raise ChatRefused("muted", muted_text(mute))


def refuse_banned_seat(sender: Any, *, table: Any, player: Any, **kwargs: Any) -> None:
    """play.signals.seat_requested: a banned player's seat is refused with `banned` (they
    may still open the table and watch: watching asks for no seat)."""
    ban = restriction_in_force(player.pk, Sanction.Kind.BAN)
    if ban is not None:
        raise SeatError(banned_text(ban), code="banned")
