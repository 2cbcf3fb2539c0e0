"""Bot accounts: programs that play through the protocol (docs/protocol.md §2.2.1), each
registered and owned by a person, who makes and revokes its tokens. A bot signs in with no
password, gets no chips of the house's (no welcome grant, no daily bonus), sits only where
a table allows bots, and is marked «бот» wherever it shows (docs/decisions.md)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User


class BotRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@transaction.atomic
def bot_create(*, owner: Any, username: str) -> User:
    """Register a bot `username` owned by `owner` (a person, under BOTS_PER_PLAYER)."""
    # The owner's row, locked: two bots made at once cannot both pass the cap.
    owner = User.objects.select_for_update().get(pk=owner.pk)
    if owner.is_bot:
        raise BotRefused("bot_owns_no_bot", _("Бот не может завести своего бота."))
    limit = settings.BOTS_PER_PLAYER
    if owner.bots.count() >= limit:
        raise BotRefused(
            "too_many_bots",
            ngettext(
                "Можно завести не больше %(n)d бота.",
                "Можно завести не больше %(n)d ботов.",
                limit,
            )
            % {"n": limit},
        )
    if User.objects.filter(username__iexact=username).exists():
        raise BotRefused("name_taken", _("Это имя уже занято."))
    bot = User(username=username, bot_owner=owner)
    bot.set_unusable_password()
    bot.save()
    return bot


def bot_of(owner: Any, pk: int) -> User | None:
    """`owner`'s bot `pk`, or None."""
    return User.objects.filter(pk=pk, bot_owner=owner).first()
