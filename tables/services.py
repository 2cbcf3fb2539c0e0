"""Writes to tables that no game is part of: creating one, validated against its
variant (the lobby's opening of tables, lobby/services.py, comes here)."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction

from tables.models import Table
from tables.signals import table_changed_on_commit


@transaction.atomic
def table_create(*, created_by: Any = None, **fields: Any) -> Table:
    """Create a table after validating it against its variant's limits."""
    table = Table(created_by=created_by, **fields)
    if table.private and not table.invite_code:
        table.invite_code = secrets.token_urlsafe(12)
    table.full_clean()
    table.save()
    table_changed_on_commit(table, added=True)
    return table
