"""Writes to tables and seats. Each service is one transaction, named <thing>_<verb>."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import wallet_for
from tables.models import Seat, Table


class SeatError(ValidationError):
    """A player cannot sit down (or leave) here; the message says why."""


def deadlines_sweep(*, now: datetime.datetime) -> int:
    """Apply the timeout to every live decision whose deadline is before `now`.

    Called every second by Celery beat (tables.tasks.sweep_deadlines) or, in embedded
    mode, by the in-process ticker. Returns how many timeouts it applied. Live rounds do
    not exist yet (they come with the game issues), so there is nothing to sweep.
    """
    return 0


@transaction.atomic
def table_create(*, created_by: Any = None, **fields: Any) -> Table:
    """Create a table after validating it against its variant's limits."""
    table = Table(created_by=created_by, **fields)
    table.full_clean()
    table.save()
    return table


@transaction.atomic
def table_close(*, table: Table) -> Table:
    """Close a table: it leaves the lobby and its seats are freed."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.status != Table.Status.CLOSED or table.closed_at is None:
        table.status = Table.Status.CLOSED
        table.closed_at = timezone.now()
        table.save(update_fields=["status", "closed_at"])
    table.seats.all().delete()
    return table


@transaction.atomic
def table_reopen(*, table: Table) -> Table:
    table = Table.objects.select_for_update().get(pk=table.pk)
    table.status = Table.Status.OPEN
    table.closed_at = None
    table.save(update_fields=["status", "closed_at"])
    return table


@transaction.atomic
def seat_take(*, table: Table, player: Any) -> Seat:
    """Sit `player` at the lowest free seat of an open table, if their chips allow."""
    # Lock the table so two players cannot both take its last seat.
    table = Table.objects.select_for_update().get(pk=table.pk)
    if not table.is_open:
        raise SeatError(_("Стол закрыт."), code="table_closed")
    existing = table.seats.filter(player=player).first()
    if existing is not None:
        return existing
    balance = wallet_for(player).balance
    if balance < table.entry_limit:
        raise SeatError(
            _("Чтобы сесть за этот стол, нужно не меньше %(limit)d фишек, у вас %(balance)d.")
            % {"limit": table.entry_limit, "balance": balance},
            code="below_entry_limit",
        )
    taken = set(table.seats.values_list("number", flat=True))
    free = [n for n in range(1, table.seat_count + 1) if n not in taken]
    if not free:
        raise SeatError(_("Свободных мест нет."), code="table_full")
    try:
        with transaction.atomic():
            return Seat.objects.create(table=table, number=free[0], player=player)
    except IntegrityError as exc:  # pragma: no cover - the table lock prevents it
        raise SeatError(_("Место уже занято."), code="seat_taken") from exc


@transaction.atomic
def seat_leave(*, table: Table, player: Any) -> bool:
    deleted, _unused = Seat.objects.filter(table=table, player=player).delete()
    return deleted > 0
