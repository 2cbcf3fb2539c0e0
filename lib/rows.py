"""Hand-written SQL and model instances, through Django's documented model API only.

The live path writes its few hot statements as SQL (play/db/store.py, accounts/ledger.py):
building the same querysets again for every move cost more CPU than running them. What
those statements read becomes model instances as the ORM would make them — each column
through its field's `from_db_value`, the instance through `Model.from_db` — and what
they write is each field's value as `save()` would write it (`Field.pre_save`, then
`Field.get_db_prep_save`). Table and column names come from `_meta.db_table` and each
field's `column`, so a renamed column changes the SQL with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Field, Model


def quoted(name: str) -> str:
    """An identifier as both PostgreSQL and SQLite read it (names are the models' own)."""
    return '"' + name.replace('"', '""') + '"'


def table_name(model: type[Model]) -> str:
    return quoted(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    return quoted(model._meta.get_field(name).column)  # type: ignore[union-attr]


def stored_fields(model: type[Model], names: Iterable[str] | None = None) -> list[Field[Any, Any]]:
    """The model's fields that are columns of its table, in the model's order (the order
    `Model.from_db` expects its values in), or only those named."""
    fields = [f for f in model._meta.get_fields() if f.concrete and not f.many_to_many]
    if names is not None:
        wanted = set(names)
        fields = [f for f in fields if f.name in wanted or f.attname in wanted]  # type: ignore[union-attr]
    return fields  # type: ignore[return-value]


class Columns:
    """A model's columns in a hand-written SELECT (under the alias `alias`), and how a row's
    slice of them becomes an instance."""

    def __init__(self, model: type[Model], alias: str, names: Iterable[str] | None = None) -> None:
        self.model = model
        self.fields = stored_fields(model, names)
        self.attnames = [f.attname for f in self.fields]
        self.sql = ", ".join(f"{alias}.{quoted(f.column)}" for f in self.fields)
        self.width = len(self.fields)
        self._converters = [
            (i, f.from_db_value) for i, f in enumerate(self.fields) if hasattr(f, "from_db_value")
        ]

    def instance(self, row: Sequence[Any], start: int = 0) -> Any:
        """The instance made of `row[start:start + width]`, as a queryset would make it."""
        values = list(row[start : start + self.width])
        for i, convert in self._converters:
            values[i] = convert(values[i], None, connection)
        return self.model.from_db(DEFAULT_DB_ALIAS, self.attnames, values)

    def instance_or_none(self, row: Sequence[Any], start: int = 0) -> Any:
        """As `instance`, or None for the columns of a row an outer join did not find."""
        return None if row[start] is None else self.instance(row, start)


def stamp(instance: Model, fields: Sequence[Field[Any, Any]], *, adding: bool) -> None:
    """Give the instance the values `save()` would give it before writing (`pre_save`:
    auto_now, auto_now_add), so that what is shown of it now (an event's time in the
    frames) is what is written, even when the write is made later."""
    for f in fields:
        f.pre_save(instance, adding)


def written(instance: Model, fields: Sequence[Field[Any, Any]]) -> list[Any]:
    """The fields' values as `save()` writes them, prepared for the database (JSON
    adapted, times made the backend's); `stamp` first."""
    return [f.get_db_prep_save(getattr(instance, f.attname), connection) for f in fields]
