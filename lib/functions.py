"""Database functions Django does not ship, written on its documented `Func` API."""

from __future__ import annotations

from typing import Any

from django.db.models import Func, IntegerField


class JSONArrayLength(Func):
    """The length of a JSON array column (SQLite's json_array_length; jsonb on PostgreSQL)."""

    function = "JSON_ARRAY_LENGTH"
    output_field = IntegerField()

    def as_postgresql(self, compiler: Any, conn: Any, **extra: Any) -> Any:
        return super().as_sql(compiler, conn, function="JSONB_ARRAY_LENGTH", **extra)
