"""PostgreSQL for the test suite (config/test_settings.py): Django's own backend, but a
flush between transactional tests empties the tables with DELETE, not TRUNCATE.

A TRUNCATE gives every table and index a new file and drops the old ones at commit; for
the suite's forty-odd tables of a few rows each that was about a quarter of a second per
transactional test, where deleting their rows takes a few milliseconds. Django's foreign
keys on PostgreSQL are DEFERRABLE INITIALLY DEFERRED and the flush runs in one
transaction (`execute_sql_flush`), so the order of the deletes does not matter: every
reference is checked at the commit, when every table is empty.

The chip ledger refuses DELETE always and TRUNCATE outside ledger maintenance (accounts
migrations 0002 and 0004; the test database is in maintenance, tests/conftest.py), so it
alone is truncated, with CASCADE for the tables that reference it — first: PostgreSQL
refuses to truncate a table with deferred trigger events pending, which the deletes of
the tables it cascades to would leave. A flush that resets
sequences or cascades is left to Django's TRUNCATE.

Django documents subclassing a built-in backend ("Subclassing the built-in database
backends"); `sql_flush` itself is the backend's, not a documented API, so its use is
pinned by tests/config/test_testdb.py to the Django version it was written for.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base, operations

# Tables whose rows refuse DELETE (a trigger of their own): truncated instead.
TRUNCATED = ("accounts_ledgerentry",)


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(
        self,
        style: Any,
        tables: list[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if not tables or reset_sequences or allow_cascade:
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        quoted = {table: style.SQL_FIELD(self.quote_name(table)) for table in tables}
        sql = []
        truncated = [quoted[table] for table in tables if table in TRUNCATED]
        if truncated:
            sql.append(
                f"{style.SQL_KEYWORD('TRUNCATE')} {', '.join(truncated)} "
                f"{style.SQL_KEYWORD('CASCADE')};"
            )
        deleted = [quoted[table] for table in tables if table not in TRUNCATED]
        # No table lock first: taken table by table, it deadlocked with a daphne process
        # still writing two tables in the other order (a CI run lost two flushes that
        # way). DELETE's own row locks conflict with no writer at the table level; the
        # browser tests wait for daphne to be quiet before the flush (tests/e2e).
        delete = f"{style.SQL_KEYWORD('DELETE')} {style.SQL_KEYWORD('FROM')}"
        # One string, one round trip: psycopg sends a query without parameters as it
        # is, several statements and all.
        sql.append(" ".join(f"{delete} {table};" for table in deleted))
        return sql


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
