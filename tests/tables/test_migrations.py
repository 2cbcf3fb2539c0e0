"""Migrations that change data: run on a database as it was before them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tables", "0008_table_one_click")]


@pytest.fixture
def migrated_back(transactional_db: None) -> Iterator[Any]:
    """The apps' models as they were at BEFORE (the database migrated back to it); the
    database is migrated forward again afterwards."""
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(BEFORE)
    yield MigrationExecutor(connection).loader.project_state(BEFORE).apps
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(latest)


@pytest.mark.breaks_conservation("migrating back and forth leaves no ledger to check")
def test_one_click_tables_opened_before_the_flag_are_marked_and_no_other(migrated_back):
    apps = migrated_back
    User = apps.get_model("accounts", "User")
    Table = apps.get_model("tables", "Table")
    Seat = apps.get_model("tables", "Seat")
    ann = User.objects.create(username="ann")

    def table(variant: str, *, private: bool = True, **fields: Any) -> Any:
        return Table.objects.create(
            variant=variant, name=variant, private=private, created_by=ann, entry_limit=0, **fields
        )

    solo = table("solo", seat_count=1)
    training = table("blackjack", seat_count=3)
    Seat.objects.create(table=training, number=1, player=ann)
    Seat.objects.create(table=training, number=2, ai_level="medium")
    by_hand = table("blackjack", seat_count=3)  # private, no AI seats: opened with the form
    Seat.objects.create(table=by_hand, number=1, player=ann)
    public = table("solo", private=False, seat_count=1)
    closed = table("solo", seat_count=1, status="closed")

    executor = MigrationExecutor(connection)
    executor.migrate([("tables", "0009_mark_one_click_tables")])
    after = (
        MigrationExecutor(connection)
        .loader.project_state([("tables", "0009_mark_one_click_tables")])
        .apps.get_model("tables", "Table")
    )
    marked = set(after.objects.filter(one_click=True).values_list("pk", flat=True))
    assert marked == {solo.pk, training.pk}
    assert {by_hand.pk, public.pk, closed.pk}.isdisjoint(marked)
