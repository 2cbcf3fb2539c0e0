"""The people app's answers to live play's announcements (connected in
people.apps.PeopleConfig.ready): live play never imports the social layer."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from people.models import Block
from play.services.errors import SeatError
from tables.models import Table


def refuse_seat_across_a_block(*, table: Table, player: Any, **kwargs: Any) -> None:
    """Neither of two players where one blocked the other may sit at a private table the
    other hosts (`play.signals.seat_requested`). A public table is anyone's: a block
    there only hides the chat. The message says which side the block is on only to the
    one who made it: the blocked player is not told that they were blocked."""
    host_id = table.created_by_id
    if not table.private or host_id is None or host_id == player.pk:
        return
    blocks = set(
        Block.objects.filter(
            blocker_id__in=(host_id, player.pk), blocked_id__in=(host_id, player.pk)
        ).values_list("blocker_id", flat=True)
    )
    if not blocks:
        return
    if player.pk in blocks:
        message = _(
            "Вы заблокировали ведущего этого частного стола: сесть за него нельзя. "
            "Блокировку можно снять в профиле игрока."
        )
    else:
        message = _("Ведущий этого частного стола не принимает вас за свой стол.")
    raise SeatError(message, code="blocked")
