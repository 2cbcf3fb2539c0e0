"""A duplicate heat of `blackjack` on the production stack — daphne, a Celery worker and
beat on PostgreSQL and Redis, as subprocesses: beat opens the event's registration and
starts it, each entrant's heat is played over real sockets by the reference bot with a
token of the entrant's, and the event ends when the last heat does: the prizes paid, the
chips conserved, every heat record verifying against the revealed seed, and every
entrant dealt the same first cards."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

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


@database_sync_to_async
def scheduled_event() -> Tournament:
    """An event whose registration opens now and which starts in a few seconds: beat
    (every 5 s) does both."""
    now = timezone.now()
    return Tournament.objects.create(
        name="Заезд на стенде",
        variant="blackjack",
        format=Tournament.Format.DUPLICATE,
        registration_opens_at=now,
        starts_at=now + datetime.timedelta(seconds=8),
        ends_at=now + datetime.timedelta(minutes=10),
        buy_in=200,
        rounds=4,
        min_entrants=2,
    )


@database_sync_to_async
def heat_tables(tournament: Tournament) -> dict[str, int] | None:
    tables = dict(
        Entry.objects.filter(tournament=tournament).values_list("player__username", "table_id")
    )
    return tables if all(tables.values()) else None


@database_sync_to_async
def the_outcome(tournament: Tournament) -> dict[str, Any]:
    tournament.refresh_from_db()
    entries = list(tournament.entries.select_related("player", "table"))
    games = [Game.objects.get(table=e.table) for e in entries]
    assert_conserved()
    return {
        "tournament": tournament,
        "entries": entries,
        "games": games,
        "records": [public_record(g) for g in games],
        "escrow": escrow_account(tournament.escrow_code).balance,
    }


async def test_a_duplicate_heat_is_played_by_bots_and_paid_on_the_production_stack(
    stack: Stack,
) -> None:
    server = f"http://127.0.0.1:{stack.port}"
    tournament = await scheduled_event()

    async def scenario() -> None:
        await until(
            reaches(tournament, "registering"), "registration opened by beat", timeout=20, every=0.5
        )
        secrets = {name: (await entrant(name, tournament))[0] for name in ENTRANTS}

        await until(reaches(tournament, "running"), "the start by beat", timeout=30, every=0.5)
        tables = await until(lambda: heat_tables(tournament), "the heat tables", timeout=10)
        bots = [
            Bot(WebTransport(server, secrets[name]), tables[name], Options(strict=True, rounds=0))
            for name in ENTRANTS
        ]
        outcomes = await asyncio.gather(*(bot.run() for bot in bots))
        assert all(o.status == "finished" and o.variant == "blackjack" for o in outcomes)

        await until(
            reaches(tournament, "finished"), "the event's end after its last heat", timeout=30
        )

    await run_scenario(stack, scenario(), timeout=SCENARIO_TIMEOUT, cleanup=nothing)
    outcome = await the_outcome(tournament)
    entries, games = outcome["entries"], outcome["games"]
    assert sorted(e.player.username for e in entries) == sorted(ENTRANTS)
    assert sum(e.prize for e in entries) == 3 * 200 and outcome["escrow"] == 0
    assert all(e.heat_over and e.place is not None for e in entries)
    # One shoe: the same seed everywhere, from the server seed now shown.
    seed = outcome["tournament"].server_seed
    assert {g.seed for g in games} == {games[0].seed} and all(g.server_seed == seed for g in games)

    # Every round's first cards — the entrant's first and the dealer's up card, dealt
    # before any decision of the round — are the same at every table: a fresh shoe per
    # round (fresh_shoe) whatever each entrant did in the rounds before.
    def first_cards(game: Game) -> list[tuple[str, str]]:
        openings = []
        for played in game.state["rounds"]:
            dealer = next(h for h in played["hands"] if h["seat"] == "dealer")
            openings.append((played["hands"][0]["cards"][0], dealer["cards"][0]))
        return openings

    assert all(len(g.state["rounds"]) == 4 for g in games)
    assert len({tuple(first_cards(g)) for g in games}) == 1, [first_cards(g) for g in games]
    for record in outcome["records"]:
        code, output = verified(record)
        assert code == 0, output
