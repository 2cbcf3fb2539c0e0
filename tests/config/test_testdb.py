"""The suite's PostgreSQL backend (config/testdb): a flush between transactional tests
empties every table with DELETE (the chip ledger by TRUNCATE … CASCADE), and it is pinned
to the Django whose `sql_flush` it overrides."""

from __future__ import annotations

import inspect

import django
import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.db.backends.postgresql import operations

from accounts.models import LedgerEntry
from config.testdb.base import TRUNCATED


def test_the_override_is_pinned_to_the_django_it_was_written_for():
    # On a new Django: read its postgresql `DatabaseOperations.sql_flush` and
    # `BaseDatabaseOperations.execute_sql_flush` (one transaction?) again, then move the pin.
    assert django.VERSION[:2] == (5, 2)
    signature = inspect.signature(operations.DatabaseOperations.sql_flush)
    assert list(signature.parameters) == [
        "self",
        "style",
        "tables",
        "reset_sequences",
        "allow_cascade",
    ]


def test_the_ledger_is_the_table_truncated():
    assert (LedgerEntry._meta.db_table,) == TRUNCATED


@pytest.mark.usefixtures("postgres")
def test_a_flush_deletes_and_one_that_resets_sequences_truncates():
    tables = ["accounts_ledgerentry", "accounts_account", "tables_table"]
    statements = connection.ops.sql_flush(no_style(), tables)
    assert statements == [
        'TRUNCATE "accounts_ledgerentry" CASCADE;',
        'DELETE FROM "accounts_account"; DELETE FROM "tables_table";',
    ]
    (truncate,) = connection.ops.sql_flush(no_style(), tables, reset_sequences=True)
    assert truncate.startswith("TRUNCATE") and "RESTART IDENTITY" in truncate


@pytest.mark.usefixtures("postgres")
@pytest.mark.django_db(transaction=True)
def test_a_flush_empties_every_table_chips_and_all(make_user):
    for name in ("a", "b"):
        make_user(name)  # an account, a wallet, the welcome chips in the ledger
    assert LedgerEntry.objects.exists()
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
    # After the flush's own post_migrate: content types and permissions are written again.
    refilled = {"contenttypes.contenttype", "auth.permission"}
    for model in apps.get_models():
        if model._meta.label_lower not in refilled and model._meta.managed:
            assert not model._default_manager.exists(), model._meta.label


@pytest.mark.usefixtures("postgres")
def test_the_consumers_use_their_database_threads_on_the_suites_postgresql_too():
    # The suite's backend is a subclass: the consumers must still see PostgreSQL and run
    # their database calls in production's threads, not in Channels' one.
    from play.edge.sockets import CONSUMER_DATABASE_THREADS, _database_threads

    assert connection.settings_dict["ENGINE"] == "config.testdb"
    assert _database_threads() == CONSUMER_DATABASE_THREADS > 0
