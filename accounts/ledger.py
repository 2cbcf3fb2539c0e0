"""The chip ledger's statements: every stake and payout of a game runs them, so on
PostgreSQL they are SQL written here (built once, from the models' names: lib/rows.py),
and on SQLite the ORM's. Both paths return the same instances and answer the same.

A transfer's writes — the entry and both balances — are one statement on PostgreSQL: the
entry is inserted only if its idempotency key is new (`ON CONFLICT DO NOTHING`) and the
balances move only if it was, so a replayed key moves nothing and is told apart by the
row the statement returns, not by an error. The database's check constraint still
refuses a negative balance (the last line of defence behind `chips_transfer`'s check).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.db import connection
from django.db.models import Q

from accounts.models import Account, LedgerEntry
from lib.rows import Columns, column, quoted, stamp, stored_fields, table_name, written


def _uses_sql() -> bool:
    return connection.vendor == "postgresql"


@dataclass(frozen=True)
class _Statements:
    account: Columns
    locked: str
    escrow_and_wallet: str
    wallet: str
    transfer: str
    entry_fields: tuple[object, ...]


@functools.cache
def _statements() -> _Statements:
    account = Columns(Account, "a")
    accounts = table_name(Account)
    pk, kind, owner = column(Account, "id"), column(Account, "kind"), column(Account, "owner")
    balance = column(Account, "balance")
    entry_fields = tuple(f for f in stored_fields(LedgerEntry) if not f.primary_key)
    entry_columns = ", ".join(quoted(f.column) for f in entry_fields)
    entry_places = ", ".join("%s" for _f in entry_fields)
    key = column(LedgerEntry, "idempotency_key")
    entry_pk = column(LedgerEntry, "id")
    return _Statements(
        account=account,
        # A transfer's two accounts, locked in primary-key order: two opposite transfers
        # between the same accounts then cannot deadlock.
        locked=f"""
            SELECT {account.sql} FROM {accounts} a
            WHERE a.{pk} IN (%s, %s)
            ORDER BY a.{pk}
            FOR UPDATE OF a""",
        # A game's escrow (by code) and a seat's wallet: both needed for a stake or a
        # payout, read in one statement.
        escrow_and_wallet=f"""
            SELECT {account.sql} FROM {accounts} a
            WHERE a.{column(Account, "code")} = %s OR (a.{owner} = %s AND a.{kind} = %s)
            ORDER BY a.{pk}""",
        wallet=f"""
            SELECT {account.sql} FROM {accounts} a
            WHERE a.{owner} = %s AND a.{kind} = %s
            ORDER BY a.{pk}
            LIMIT 1""",
        # The entry, and both balances only if the entry went in: a key used already
        # inserts nothing, the updates then find no entry and change nothing, and the
        # statement returns no row. The accounts are locked already (`locked`).
        transfer=f"""
            WITH entry AS (
                INSERT INTO {table_name(LedgerEntry)} ({entry_columns})
                VALUES ({entry_places})
                ON CONFLICT ({key}) DO NOTHING
                RETURNING {entry_pk}
            ), source AS (
                UPDATE {accounts} SET {balance} = %s
                WHERE {pk} = %s AND EXISTS (SELECT 1 FROM entry)
                RETURNING 1
            ), destination AS (
                UPDATE {accounts} SET {balance} = %s
                WHERE {pk} = %s AND EXISTS (SELECT 1 FROM entry)
                RETURNING 1
            )
            SELECT {entry_pk}, (SELECT count(*) FROM source), (SELECT count(*) FROM destination)
            FROM entry""",
        entry_fields=entry_fields,
    )


def _accounts(sql: str, params: list[object]) -> list[Account]:
    statements = _statements()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [statements.account.instance(row) for row in cursor.fetchall()]


def accounts_locked(low: int, high: int) -> list[Account]:
    """Accounts `low` and `high`, locked to the end of the transaction, by primary key."""
    if not _uses_sql():
        return list(Account.objects.select_for_update().filter(pk__in=[low, high]).order_by("pk"))
    return _accounts(_statements().locked, [low, high])


def escrow_and_wallet_read(code: str, user_id: int) -> list[Account]:
    """The account with `code` and the wallet of user `user_id`, those of them that exist."""
    if not _uses_sql():
        return list(
            Account.objects.filter(
                Q(code=code) | Q(owner_id=user_id, kind=Account.Kind.PLAYER)
            ).order_by("pk")
        )
    return _accounts(_statements().escrow_and_wallet, [code, user_id, Account.Kind.PLAYER.value])


def wallet_read(user_id: int) -> Account | None:
    if not _uses_sql():
        wallets = Account.objects.filter(owner_id=user_id, kind=Account.Kind.PLAYER)
        return wallets.order_by("pk").first()
    found = _accounts(_statements().wallet, [user_id, Account.Kind.PLAYER.value])
    return found[0] if found else None


def transfer_written(entry: LedgerEntry, source: Account, destination: Account) -> bool:
    """Write `entry` and the accounts' balances (their new values, set on them), the
    accounts locked by the caller. False: the entry's idempotency key is used already,
    and nothing was written."""
    if not _uses_sql():
        # SQLite's transactions take the database's write lock as they begin (settings:
        # IMMEDIATE): nothing uses the key between this look and the insert.
        if LedgerEntry.objects.filter(idempotency_key=entry.idempotency_key).exists():
            return False
        for account in (source, destination):
            Account.objects.filter(pk=account.pk).update(balance=account.balance)
        entry.save(force_insert=True)
        return True
    statements = _statements()
    fields = list(statements.entry_fields)
    stamp(entry, fields, adding=True)  # type: ignore[arg-type]
    params = [
        *written(entry, fields),  # type: ignore[arg-type]
        source.balance,
        source.pk,
        destination.balance,
        destination.pk,
    ]
    with connection.cursor() as cursor:
        cursor.execute(statements.transfer, params)
        row = cursor.fetchone()
    if row is None:
        return False
    if row[1:] != (1, 1):  # pragma: no cover - the accounts are locked, so they are there
        raise Account.DoesNotExist("a transfer's account is gone")
    entry.pk = row[0]
    entry._state.adding = False
    entry._state.db = connection.alias
    return True
