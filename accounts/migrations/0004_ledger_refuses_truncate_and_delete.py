"""The chip ledger refuses TRUNCATE on PostgreSQL and DELETE on SQLite as well.

0002 left two holes: PostgreSQL's row triggers never see a TRUNCATE, and SQLite had no
DELETE trigger, both because test-database flushes empty the ledger that way. Now both
are refused unless the database is in *ledger maintenance*: a row in the table
`accounts_ledger_maintenance`, which no Django model maps, so that no flush empties it
and no code of the site writes it. Production never has that row; the test suite adds it
to its own test database (tests/conftest.py), and an operator who truly must wipe a
database inserts it by hand (docs/decisions.md).
"""

from django.db import migrations

MAINTENANCE_TABLE = "accounts_ledger_maintenance"

CREATE_MAINTENANCE = f"CREATE TABLE {MAINTENANCE_TABLE} (reason TEXT NOT NULL)"
DROP_MAINTENANCE = f"DROP TABLE IF EXISTS {MAINTENANCE_TABLE}"

PG_FORWARD = f"""
CREATE OR REPLACE FUNCTION accounts_ledgerentry_no_truncate() RETURNS trigger AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM {MAINTENANCE_TABLE}) THEN
        RAISE EXCEPTION 'the chip ledger is append-only (TRUNCATE refused)';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER accounts_ledgerentry_no_truncate
    BEFORE TRUNCATE ON accounts_ledgerentry
    FOR EACH STATEMENT EXECUTE FUNCTION accounts_ledgerentry_no_truncate();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS accounts_ledgerentry_no_truncate ON accounts_ledgerentry;
DROP FUNCTION IF EXISTS accounts_ledgerentry_no_truncate();
"""
SQLITE_FORWARD = f"""
CREATE TRIGGER accounts_ledgerentry_no_delete BEFORE DELETE ON accounts_ledgerentry
WHEN NOT EXISTS (SELECT 1 FROM {MAINTENANCE_TABLE})
BEGIN SELECT RAISE(ABORT, 'the chip ledger is append-only (DELETE refused)'); END;
"""
SQLITE_BACKWARD = "DROP TRIGGER IF EXISTS accounts_ledgerentry_no_delete;"


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    schema_editor.execute(CREATE_MAINTENANCE)
    if vendor == "postgresql":
        schema_editor.execute(PG_FORWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_FORWARD)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_BACKWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_BACKWARD)
    schema_editor.execute(DROP_MAINTENANCE)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_ledger_entry_game_link")]
    operations = [migrations.RunPython(forward, backward)]
