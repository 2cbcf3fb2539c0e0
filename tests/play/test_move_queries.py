"""What one move costs the database, as a consumer runs it (command_run → game_act): a
budget of queries, so that a change which adds reads to every move under load is seen
here and not first in make bench-live."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.sessions import session_current
from games import engine
from play.clock import sweep
from play.services import commands, moves, presence, seating
from tables import services
from tables.models import Table
from tests.play.live_helpers import playing, random_move, user_of

# Round trips to the database (what the test counts: each execute, however many statements
# it carries, and BEGIN and COMMIT).
#
# On PostgreSQL: the consumer's look at the session (accounts.sessions.session_current),
# BEGIN, the table and its game locked in one statement with the seats read after it in
# the same query, with who of their players is connected (play.db.store.table_and_game_locked),
# the event inserted, the game and the table saved and the command stored in one statement
# (play.db.store.Writes.send), and COMMIT. No savepoint: the move runs in the command's
# transaction (moves.game_act refuses before it writes).
ROUND_TRIPS_PER_MOVE_WITHOUT_CHIPS = 5
# A move that stakes or pays chips (one ledger entry) adds the escrow read with the
# seat's wallet (one statement: accounts.services.escrow_and_wallet), both accounts
# locked, and the entry with both balances in one statement (accounts.ledger): no
# savepoint, a replayed key moving nothing.
ROUND_TRIPS_PER_MOVE_WITH_ONE_TRANSFER = 8
# SQLite runs the same reads and writes through the ORM, each a statement of its own, in
# the process, and looks for a command's id before storing it (play.db.store).
STATEMENTS_PER_MOVE_WITHOUT_CHIPS_SQLITE = 10
STATEMENTS_PER_MOVE_WITH_ONE_TRANSFER_SQLITE = 16


def round_trips(captured: list[dict[str, str]]) -> list[str]:
    """What a command sent, up to its COMMIT (what follows is its broadcast's): each
    execute (one query, however many statements it carries), BEGIN and COMMIT, which
    Django logs with them."""
    sent: list[str] = []
    for query in captured:
        sent.append(query["sql"])
        if query["sql"] == "COMMIT":
            break
    return sent


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "variant, options", [("banker36", {"stake": 10, "entry_limit": 100}), ("blackjack", {})]
)
def test_a_move_reads_its_seats_once_and_keeps_to_its_query_budget(
    make_user, settings, variant, options
):
    settings.GAME_INTERLUDE_SECONDS = 0
    users = {u.pk: u for u in (make_user(f"p{i}") for i in range(4))}
    session_keys = {}
    for user in users.values():
        browser = Client()
        browser.force_login(user)
        session_keys[user.pk] = browser.session.session_key
    table = services.table_create(variant=variant, name="B", **options)
    for user in users.values():
        seating.seat_take(table=table, player=user)
        presence.presence_join(table=table, user=user, channel_name=f"tab-{user.pk}")
    moves.game_start(table=table, by=make_user("host", is_staff=True))
    rng = random.Random(3)
    budgets = []
    staking = []
    for step in range(40):  # games of random cards: until enough moves without chips
        if len(budgets) >= 4 and (staking or variant != "banker36"):
            break
        game = playing(table)
        if game is None:  # the game is over: the next one (no interlude, no seeds)
            sweep.deadlines_sweep(now=timezone.now())
            game = playing(table)
            assert game is not None
        user = user_of(game, engine.legal_actions(game.state)["seat"], users)
        move = random_move(game, rng)
        by_id = Table(pk=table.pk)  # as the consumer passes a move its table

        def act(by_id=by_id, user=user, move=move):
            return moves.game_act(table=by_id, player=user, action=move, version=None)

        with CaptureQueriesContext(connection) as queries:
            # As the consumer runs a command: its session checked first, in the same trip.
            assert session_current(session_key=session_keys[user.pk], user=user)
            outcome = commands.command_run(
                user=user, table=by_id, client_id=f"move-{step}", run=act, plays_overdue=True
            )
        assert "version" in outcome
        sql = round_trips(queries.captured_queries)
        statements = [part.strip() for trip in sql for part in trip.split("; ")]
        reads = [q for q in statements if q.startswith("SELECT")]
        assert sum('FROM "tables_seat"' in q for q in reads) == 1, sql
        # The locked read of the table, its host and its game: one statement.
        assert sum('"tables_table"' in q for q in reads) == 1, sql
        assert sum('FROM "tables_game"' in q for q in reads) == 1, sql
        # Who is connected: read with the seats, not in a statement of its own.
        assert not any(q.startswith('SELECT "tables_presence"') for q in reads), sql
        entries = sum('INSERT INTO "accounts_ledgerentry"' in q for q in statements)
        if entries == 0:
            budgets.append(len(sql))
        elif entries == 1 and not any(q.startswith("DELETE") for q in statements):
            staking.append(len(sql))
    if connection.vendor == "postgresql":
        budget, with_transfer = (
            ROUND_TRIPS_PER_MOVE_WITHOUT_CHIPS,
            ROUND_TRIPS_PER_MOVE_WITH_ONE_TRANSFER,
        )
    else:
        budget, with_transfer = (
            STATEMENTS_PER_MOVE_WITHOUT_CHIPS_SQLITE,
            STATEMENTS_PER_MOVE_WITH_ONE_TRANSFER_SQLITE,
        )
    assert budgets and max(budgets) <= budget, budgets
    if variant == "banker36":  # its bets stake chips as they are made
        assert staking and max(staking) <= with_transfer, staking


# A client seed, as a consumer runs it (command_run → client_seed_give): the session
# check, BEGIN, the table locked with its host, the seats with who is connected, the
# game shown (the latest), then the table saved (the seeds given with the version) and
# the command stored in one statement on PostgreSQL (two on SQLite, which looks for the
# id first), and COMMIT — no savepoint of its own (client_seed_give refuses before it
# writes).
ROUND_TRIPS_PER_CLIENT_SEED = {"postgresql": 7, "sqlite": 9}
# The last seed deals, in a savepoint (a deal the players have left is refused and the
# seed kept): the wallets locked, the last game (twice), the game and its first event
# inserted, the stakes moved into escrow through the ledger (each transfer its accounts
# locked, then its entry and balances: one statement on PostgreSQL), the game saved and
# the table saved once (its dealt seeds with its version).
ROUND_TRIPS_PER_LAST_CLIENT_SEED = {"postgresql": 21, "sqlite": 25}


@pytest.mark.django_db(transaction=True)
def test_a_client_seed_and_the_deal_keep_to_their_query_budget(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 30
    users = [make_user(f"s{i}") for i in range(4)]
    session_keys = {}
    for user in users:
        browser = Client()
        browser.force_login(user)
        session_keys[user.pk] = browser.session.session_key
    table = services.table_create(variant="banker36", name="S", stake=10, entry_limit=100)
    for user in users:
        seating.seat_take(table=table, player=user)
        presence.presence_join(table=table, user=user, channel_name=f"seed-{user.pk}")
    assert moves.game_start(table=table, by=make_user("host", is_staff=True)) is None
    counts = []
    for number, user in enumerate(users):
        by_id = Table(pk=table.pk)

        def give(by_id=by_id, user=user, number=number):
            return moves.client_seed_give(table=by_id, player=user, seed=f"seed-{number}")

        with CaptureQueriesContext(connection) as queries:
            assert session_current(session_key=session_keys[user.pk], user=user)
            commands.command_run(
                user=user, table=by_id, client_id=f"seed-{number}", run=give, plays_overdue=True
            )
        counts.append(len(round_trips(queries.captured_queries)))
    assert playing(table) is not None
    assert max(counts[:-1]) <= ROUND_TRIPS_PER_CLIENT_SEED[connection.vendor], counts
    assert counts[-1] <= ROUND_TRIPS_PER_LAST_CLIENT_SEED[connection.vendor], counts
