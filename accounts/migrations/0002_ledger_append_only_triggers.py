"""Make the chip ledger append-only in the database too, not only in the ORM.

UPDATE is refused on every backend. DELETE is refused on PostgreSQL only: test-database
flushes there use TRUNCATE (which row triggers do not see), while SQLite's flush deletes
rows, so a SQLite DELETE trigger would break the test suite's cleanup.
"""

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION accounts_ledgerentry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the chip ledger is append-only (% refused)', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER accounts_ledgerentry_append_only
    BEFORE UPDATE OR DELETE ON accounts_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION accounts_ledgerentry_append_only();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS accounts_ledgerentry_append_only ON accounts_ledgerentry;
DROP FUNCTION IF EXISTS accounts_ledgerentry_append_only();
"""
SQLITE_FORWARD = """
CREATE TRIGGER accounts_ledgerentry_no_update BEFORE UPDATE ON accounts_ledgerentry
BEGIN SELECT RAISE(ABORT, 'the chip ledger is append-only (UPDATE refused)'); END;
"""
SQLITE_BACKWARD = "DROP TRIGGER IF EXISTS accounts_ledgerentry_no_update;"


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
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


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
