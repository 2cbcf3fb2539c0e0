"""Who may run a table: its host, an administrator, and at a blackjack training table
the player seated there."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from play.services.errors import PlayError
from tables.models import Table
from tables.variants import BLACKJACK


def is_host(table: Table, user: Any) -> bool:
    return bool(user.is_staff or (table.created_by_id and table.created_by_id == user.pk))


def require_host(table: Table, user: Any) -> None:
    if not is_host(table, user):
        raise PlayError("not_host", _("Это может только ведущий стола или администратор."))


def require_host_or_trainee(table: Table, user: Any) -> None:
    """A blackjack training table's seated player manages its AI seats like a host."""
    if table.variant == BLACKJACK and table.seats.filter(player=user).exists():
        return
    require_host(table, user)
