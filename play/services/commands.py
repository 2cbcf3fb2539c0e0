"""A client's command ids: each message with an id is run once, and a resend of it is
answered with the outcome it got (docs/protocol.md §3), for a day."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from play import wall
from play.db import store
from play.db.locks import lock_table_version
from play.models import ClientCommand
from play.services.deadlines import apply_due_if_any, swept
from play.services.errors import PlayError
from play.services.moves import version_expected
from play.wall import seconds
from tables.models import Table

# How long a command id is remembered (docs/protocol.md).
COMMAND_MEMORY = datetime.timedelta(days=1)

_commands_forgotten_at: datetime.datetime | None = None


def client_commands_forget(*, now: datetime.datetime) -> None:
    """Drop command ids older than COMMAND_MEMORY — at most once a minute per process,
    not on every sweep."""
    global _commands_forgotten_at
    if _commands_forgotten_at is not None and now - _commands_forgotten_at < seconds(60):
        return
    ClientCommand.objects.filter(created_at__lt=now - COMMAND_MEMORY).delete()
    _commands_forgotten_at = now


def command_once(
    *,
    user: Any,
    table: Table,
    client_id: str,
    run: Callable[[], dict[str, Any]],
    version: int | None = None,
) -> dict[str, Any]:
    """Run a client's command once per (user, table, id): a resend of an id that was
    accepted gets the first answer (``"repeat": true``) and changes nothing. A refused
    command stores nothing (it changed nothing), so it may be sent again. With `version`
    (the table version the client decided on) the command is refused with
    `stale_version` if the table has moved on: checked under the table's row lock, which
    the command's service then holds until it commits (a service locks the table first)."""
    # A resent id is not looked for first (a query for every command, to catch a few
    # resends): it runs again, and the stored answer wins — the id's insert finds it and
    # inserts nothing (store.Writes.send), and everything the run did rolls back
    # (_Repeat), or, when the run is refused (the move was made already), the stored
    # answer is looked for.
    refusal: PlayError | ValidationError | None = None
    with transaction.atomic(), store.writes_together() as writes:
        try:
            if version is not None:
                version_expected(lock_table_version(table.pk), version)
            outcome = run()
        except (PlayError, ValidationError) as error:
            refusal = error
            # A refusal writes nothing of its own: what waits is an overdue decision the
            # move played first (game_act), which stands. A refusal after a write has
            # marked the transaction for rollback, which then takes everything back.
            if not transaction.get_rollback():
                writes.send()
        else:
            # The run's writes that waited and the command's id: one statement on
            # PostgreSQL, before Django's COMMIT.
            command = ClientCommand(user=user, table=table, client_id=client_id, outcome=outcome)
            if not writes.send(command):
                # The same id from another tab won the race; its outcome is the answer,
                # and this attempt's changes roll back with the transaction.
                raise _Repeat()
    if refusal is not None:
        # Refused because the same id from another tab was accepted while this one waited
        # for the table (its move made this one stale, or not this seat's turn): that
        # tab's outcome is the answer, as for any resend.
        if ClientCommand.objects.filter(user=user, table=table, client_id=client_id).exists():
            raise _Repeat() from refusal
        raise refusal
    return outcome


class _Repeat(Exception):
    pass


def command_run(
    *,
    user: Any,
    table: Table,
    client_id: str,
    run: Callable[[], dict[str, Any]],
    version: int | None = None,
    plays_overdue: bool = False,
) -> dict[str, Any]:
    # An overdue decision is played before anything else. One that cannot be played is
    # not this command's refusal (its message would be another seat's, a balance
    # included): a move still meets it in game_act, while stand, close and the like go on.
    # Looked for first, without a lock or a transaction: nothing is due before most
    # commands, and the locked look cost every command three more round trips. Not here
    # for a command whose service looks itself, under the table's lock, or needs no look
    # (`plays_overdue`: a move, game_act; a client seed, given between games).
    if not plays_overdue:
        swept(apply_due_if_any, table.pk, wall.now())
    try:
        return command_once(user=user, table=table, client_id=client_id, run=run, version=version)
    except _Repeat:
        stored = ClientCommand.objects.get(user=user, table=table, client_id=client_id)
        return {**stored.outcome, "repeat": True}
