"""A database from before live play and insights had rooms of their own migrates with every
row kept.

Game, GameEvent, ClientCommand and Presence moved from the `tables` app to `play`, and
Decision to `insights`, in Django's state only (play/migrations/0001, insights/0001,
accounts/0005, tables/0010): their database tables keep their names and their rows, the
foreign keys between them (and the ledger's to a game) keep pointing where they did, and
the content types follow the models (tables/0010), so that the permissions granted on
them and the admin's log stay theirs.
Run on the database the suite runs on: SQLite by default, PostgreSQL in CI.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# The state of every app just before the move: `play` and `insights` not there at all.
BEFORE = [
    ("tables", "0009_mark_one_click_tables"),
    ("accounts", "0004_ledger_refuses_truncate_and_delete"),
    ("play", None),
    ("insights", None),
]
MOVED = {
    "tables_game": "game",
    "tables_gameevent": "gameevent",
    "tables_clientcommand": "clientcommand",
    "tables_presence": "presence",
    "tables_decision": "decision",
}


def _state(targets: list[tuple[str, str | None]]) -> Any:
    """The models at `targets`, with the admin's log beside them."""
    beside = [("admin", "0003_logentry_add_action_flag_choices")]
    nodes = [t for t in targets if t[1] is not None] + beside
    return MigrationExecutor(connection).loader.project_state(nodes).apps


def _counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for table in [*MOVED, "tables_table", "tables_seat", "accounts_ledgerentry"]:
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
    return counts


@pytest.fixture
def database_before_the_move(transactional_db: None) -> Iterator[Any]:
    """The models as they were before the move (the database migrated back to it); the
    database is migrated forward to the latest state again afterwards in any case."""
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(BEFORE)
    yield _state(BEFORE)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(latest)


@pytest.mark.breaks_conservation("rows written through the historical models: no ledger to check")
def test_a_database_from_before_the_move_migrates_with_every_row_and_link_kept(
    database_before_the_move,
):
    old = database_before_the_move
    User = old.get_model("accounts", "User")
    Account = old.get_model("accounts", "Account")
    LedgerEntry = old.get_model("accounts", "LedgerEntry")
    Table = old.get_model("tables", "Table")
    Seat = old.get_model("tables", "Seat")
    Game = old.get_model("tables", "Game")
    GameEvent = old.get_model("tables", "GameEvent")
    Decision = old.get_model("tables", "Decision")
    ClientCommand = old.get_model("tables", "ClientCommand")
    Presence = old.get_model("tables", "Presence")
    ContentType = old.get_model("contenttypes", "ContentType")
    Permission = old.get_model("auth", "Permission")

    ann = User.objects.create(username="ann")
    table = Table.objects.create(
        variant="banker36", name="Старый стол", seat_count=2, stake=10, entry_limit=100
    )
    Seat.objects.create(table=table, number=1, player=ann)
    state = {"variant": "banker36", "b": 1, "a": [1, 2]}  # key order kept exactly
    game = Game.objects.create(
        table=table,
        number=1,
        variant="banker36",
        status="finished",
        state=state,
        players=[{"id": "ann", "user": ann.pk, "ai": "", "number": 1, "chips": 500}],
        options={"banks": 1},
        seed="ab" * 32,
        commitment="cd" * 32,
        actions=[{"seat": "ann", "action": "stand"}],
        result={"deltas": {"ann": 5}},
    )
    event = GameEvent.objects.create(game=game, version=1, action=None, events=[{"type": "deal"}])
    decision = Decision.objects.create(
        game=game,
        user=ann,
        variant="banker36",
        seat="ann",
        number=0,
        round=1,
        situation="total14",
        options=[{"action": "stand", "value": 0.1}],
        chosen={"action": "stand"},
        best={"action": "stand"},
        loss=0.0,
    )
    command = ClientCommand.objects.create(user=ann, table=table, client_id="c1", outcome={})
    presence = Presence.objects.create(table=table, user=ann, channel_name="chan-1")
    wallet = Account.objects.create(kind="player", owner=ann)
    escrow = Account.objects.create(kind="escrow", code=f"escrow:game:{game.pk}")
    entry = LedgerEntry.objects.create(
        source=wallet,
        destination=escrow,
        amount=10,
        reason="stake",
        game=game,
        source_balance_after=-10,
        destination_balance_after=10,
    )
    # The content types as a database of the old release has them, with a permission
    # (a staff group's, say) on one of them.
    types = {}
    for model in MOVED.values():
        ContentType.objects.filter(app_label__in=("play", "insights"), model=model).delete()
        types[model], _ = ContentType.objects.get_or_create(app_label="tables", model=model)
    permission, _ = Permission.objects.get_or_create(
        content_type=types["game"], codename="change_game", defaults={"name": "Can change game"}
    )
    before = _counts()

    _migrate_to_latest()

    from django.contrib.auth.models import Permission as NewPermission
    from django.contrib.contenttypes.models import ContentType as NewContentType

    from accounts.models import LedgerEntry as NewLedgerEntry
    from insights.models import Decision as NewDecision
    from play.models import ClientCommand as NewClientCommand
    from play.models import Game as NewGame
    from play.models import GameEvent as NewGameEvent
    from play.models import Presence as NewPresence

    assert _counts() == before
    moved = NewGame.objects.get(pk=game.pk)
    assert list(moved.state) == ["variant", "b", "a"] and moved.state == state
    assert (moved.table_id, moved.status, moved.actions) == (table.pk, "finished", game.actions)
    assert moved.result == {"deltas": {"ann": 5}} and moved.seed == "ab" * 32
    assert [e.pk for e in moved.events.all()] == [event.pk]
    assert NewGameEvent.objects.get(pk=event.pk).events == [{"type": "deal"}]
    assert [d.pk for d in moved.decisions.all()] == [decision.pk]
    assert NewDecision.objects.get(pk=decision.pk).user_id == ann.pk
    assert NewClientCommand.objects.get(pk=command.pk).client_id == "c1"
    assert NewPresence.objects.get(pk=presence.pk).channel_name == "chan-1"
    assert NewLedgerEntry.objects.get(pk=entry.pk).game_id == game.pk
    assert [e.pk for e in moved.ledger_entries.all()] == [entry.pk]

    # The content types followed their models (the same rows, so the same permissions).
    for model, app in [*((m, "play") for m in list(MOVED.values())[:4]), ("decision", "insights")]:
        moved_type = NewContentType.objects.get(app_label=app, model=model)
        assert moved_type.pk == types[model].pk
        assert not NewContentType.objects.filter(app_label="tables", model=model).exists()
    assert NewPermission.objects.get(pk=permission.pk).content_type.app_label == "play"


def _migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.breaks_conservation("migrating back and forth leaves no ledger to check")
def test_where_both_content_types_exist_the_old_ones_hold_goes_to_the_new_and_it_goes(
    database_before_the_move,
):
    """A process of the old release may make `tables.game` again while the new one runs
    (its content type cache was empty): what was granted or logged on either row ends on
    `play.game`, and no second row is left behind."""
    old = database_before_the_move
    User = old.get_model("accounts", "User")
    ContentType = old.get_model("contenttypes", "ContentType")
    Permission = old.get_model("auth", "Permission")
    LogEntry = old.get_model("admin", "LogEntry")
    clerk = User.objects.create(username="clerk", is_staff=True)
    stale, _ = ContentType.objects.get_or_create(app_label="tables", model="game")
    fresh, _ = ContentType.objects.get_or_create(app_label="play", model="game")
    granted, _ = Permission.objects.get_or_create(
        content_type=stale, codename="change_game", defaults={"name": "Can change game"}
    )
    Permission.objects.get_or_create(
        content_type=fresh, codename="change_game", defaults={"name": "Can change game"}
    )
    only_old, _ = Permission.objects.get_or_create(
        content_type=stale, codename="void_game", defaults={"name": "Can void game"}
    )
    clerk.user_permissions.add(granted, only_old)
    entry = LogEntry.objects.create(
        user=clerk, content_type=stale, object_id="1", object_repr="game", action_flag=2
    )

    _migrate_to_latest()

    from django.contrib.admin.models import LogEntry as NewLogEntry
    from django.contrib.contenttypes.models import ContentType as NewContentType

    from accounts.models import User as NewUser

    assert not NewContentType.objects.filter(app_label="tables", model="game").exists()
    assert NewContentType.objects.get(app_label="play", model="game").pk == fresh.pk
    assert NewLogEntry.objects.get(pk=entry.pk).content_type_id == fresh.pk
    clerk = NewUser.objects.get(pk=clerk.pk)
    assert {"play.change_game", "play.void_game"} <= clerk.get_all_permissions()
