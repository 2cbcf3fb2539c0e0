"""A sit-and-go of `banker36` on the production stack — daphne, a Celery worker and beat on
PostgreSQL and Redis, as subprocesses: beat opens the event's registration, the event
starts as its last seat is taken, its one game is played over real sockets by the
reference bot with a token of each entrant's, and the event ends with the game: every
seat held the bank once, the prizes paid from the escrow, the chips conserved."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import LedgerEntry
from accounts.services import escrow_account
from bot.player import Bot, Options
from bot.transport import WebTransport
from play.models import Game
from play.services.records import public_record
from tests.integration.live_stack import Stack, assert_conserved, run_scenario, until
from tests.tournaments.live import entrant, nothing, reaches
from tests.verifier import verified
from tournaments.models import Entry, Tournament

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

ENTRANTS = ("ann", "bob", "cat")
SCENARIO_TIMEOUT = 240.0
BUY_IN = 150


@database_sync_to_async
def scheduled_event() -> Tournament:
    """A sit-and-go for three whose registration beat opens now; it starts when full,
    long before its `starts_at`."""
    now = timezone.now()
    return Tournament.objects.create(
        name="Сит-энд-гоу на стенде",
        variant="banker36",
        format=Tournament.Format.SIT_AND_GO,
        registration_opens_at=now,
        starts_at=now + datetime.timedelta(minutes=30),
        ends_at=now + datetime.timedelta(hours=1),
        buy_in=BUY_IN,
        max_entrants=len(ENTRANTS),
        min_entrants=2,
        rounds=1,
        starting_stack=100,
        stake=10,
    )


@database_sync_to_async
def the_table(tournament: Tournament) -> int | None:
    return (
        Entry.objects.filter(tournament=tournament)
        .exclude(table=None)
        .values_list("table_id", flat=True)
        .first()
    )


@database_sync_to_async
def the_outcome(tournament: Tournament, table_id: int) -> dict[str, Any]:
    tournament.refresh_from_db()
    assert_conserved()
    game = Game.objects.select_related("table").get(table_id=table_id)
    return {
        "tournament": tournament,
        "entries": list(tournament.entries.select_related("player")),
        "game": game,
        "record": public_record(game),
        "escrow": escrow_account(tournament.escrow_code).balance,
        "game_ledger": LedgerEntry.objects.filter(game=game).count(),
    }


async def test_a_banker36_sit_and_go_is_played_over_sockets_and_paid_on_the_production_stack(
    stack: Stack,
) -> None:
    server = f"http://127.0.0.1:{stack.port}"
    tournament = await scheduled_event()
    tables: list[int] = []

    async def scenario() -> None:
        opened = reaches(tournament, "registering")
        await until(opened, "registration opened by beat", timeout=20, every=0.5)
        secrets = {name: (await entrant(name, tournament))[0] for name in ENTRANTS}
        # The last registration filled the table: the event is running at once.
        assert await reaches(tournament, "running")()
        table = await until(lambda: the_table(tournament), "the table", timeout=10)
        tables.append(table)
        bots = [
            Bot(
                WebTransport(server, secrets[name]),
                table,
                Options(strict=True, rounds=0, leave=False),
            )
            for name in ENTRANTS
        ]
        outcomes = await asyncio.gather(*(bot.run() for bot in bots))
        assert all(o.variant == "banker36" and o.fair for o in outcomes), outcomes
        over = reaches(tournament, "finished")
        await until(over, "the event's end with its game", timeout=30)

    await run_scenario(stack, scenario(), timeout=SCENARIO_TIMEOUT, cleanup=nothing)
    outcome = await the_outcome(tournament, tables[0])
    entries, game = outcome["entries"], outcome["game"]
    assert game.status == Game.Status.FINISHED
    assert sorted(e.player.username for e in entries) == sorted(ENTRANTS)
    # The stacks: the game's final chips, conserved, never a wallet's.
    final = {p["user"]: p["chips"] + game.result["deltas"][p["id"]] for p in game.players}
    assert {e.player_id: e.stack for e in entries} == final
    assert sum(final.values()) == 3 * 100 and outcome["game_ledger"] == 0
    # Three seats, one round: three banks, each seat's once (unless it went broke first).
    assert game.options["banks"] == 3 and game.state["banks_played"] <= 3
    # Places by stack, prizes from the escrow (three entrants: winner takes all).
    assert sum(e.prize for e in entries) == 3 * BUY_IN and outcome["escrow"] == 0
    best = max(e.stack for e in entries)
    assert all(e.place == 1 for e in entries if e.stack == best)
    code, output = verified(outcome["record"])
    assert code == 0, output
