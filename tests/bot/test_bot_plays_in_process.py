"""The reference bot plays a whole game of every variant through the ASGI application:
against AI seats (`classic`, `blackjack`), alone (`solo`), or against a second bot
(`salon` and `banker36` need two persons). Every frame it got fits the published
definitions (the bot runs strict), and the stored game is the one it played to its end."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from bot.lobby import find_table, open_table
from bot.player import Bot, BotStopped, Options, Outcome
from play.edge import sockets
from play.models import Game
from tables import services
from tables.models import Seat
from tests.bot.inprocess import ChannelsTransport, clock

# Whole games played to their end (about 20 s together): `make test` runs them, the inner
# loop (`make test-fast`) leaves them out.
pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.slow]

GAME_TIMEOUT = 120.0


@pytest.fixture(autouse=True)
def fast_table(settings: Any) -> None:
    settings.AI_DECISION_SECONDS = 0
    settings.CLASSIC_ROUND_PAUSE_SECONDS = 0
    settings.BLACKJACK_ROUND_PAUSE_SECONDS = 0
    settings.GAME_INTERLUDE_SECONDS = 0
    # The bots send their seeds at once; a long wait shows that they did.
    settings.CLIENT_SEED_SECONDS = 30


@database_sync_to_async
def create_table(**fields: Any) -> int:
    return int(services.table_create(**fields).pk)


@database_sync_to_async
def stored_games(table_id: int) -> list[Game]:
    return list(Game.objects.filter(table_id=table_id).order_by("number"))


@database_sync_to_async
def seats_taken(table_id: int) -> int:
    return Seat.objects.filter(table_id=table_id).count()


def ended_by_its_rules(outcome: Outcome) -> bool:
    assert outcome.view is not None
    return outcome.view["game_over"] in ("bank_broken", "player_broke")


async def play(*bots: Bot) -> list[Outcome]:
    """Run the bots to their ends; each checked its game's fairness once it was over (its
    client seed among the game's, the revealed seeds matching the commitment)."""
    async with clock():
        outcomes = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), GAME_TIMEOUT)
    assert [outcome.fair for outcome in outcomes] == [True] * len(bots)
    return list(outcomes)


def strict(**fields: Any) -> Options:
    return Options(strict=True, **fields)


async def test_classic_the_bot_plays_a_match_against_an_ai_seat(make_user: Any) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="classic", name="Bot", created_by=ann, match_length=5)
    (outcome,) = await play(Bot(ChannelsTransport(ann), table, strict(ai=1)))
    (game,) = await stored_games(table)
    assert game.status == Game.Status.FINISHED and outcome.status == "finished"
    assert outcome.seat == "ann" and outcome.game == game.number
    assert outcome.rounds == 5


async def test_blackjack_the_bot_plays_rounds_by_the_coach_and_ends_the_session(
    make_user: Any,
) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="blackjack", name="Bot", created_by=ann)
    transport = ChannelsTransport(ann)
    (outcome,) = await play(Bot(transport, table, strict(rounds=3, ai=1)))
    games = await stored_games(table)
    assert games[-1].status == Game.Status.FINISHED and outcome.status == "finished"
    assert outcome.rounds >= 3
    # Every decision was the coach's: one GET for each.
    assert transport.gets and set(transport.gets) == {f"/tables/{table}/coach.json"}


async def test_solo_the_bot_bets_and_draws_by_the_coach_then_stands_up(make_user: Any) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="solo", name="Bot", created_by=ann)
    transport = ChannelsTransport(ann)
    (outcome,) = await play(Bot(transport, table, strict(rounds=3)))
    (game,) = await stored_games(table)
    assert game.status == Game.Status.FINISHED and outcome.status == "finished"
    # Three rounds, unless a round's best bet (the whole bank) broke the bank before.
    assert outcome.rounds >= 3 or ended_by_its_rules(outcome)
    assert transport.gets


@pytest.mark.parametrize("variant", ["salon", "banker36"])
async def test_two_bots_play_a_chip_game_to_its_end(make_user: Any, variant: str) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    bob = await database_sync_to_async(make_user)("bob")
    options = {"salon": {"min_bet": 10, "max_bet": 50}, "banker36": {"stake": 10}}[variant]
    table = await create_table(
        variant=variant, name="Bots", created_by=ann, entry_limit=100, seat_count=2, **options
    )
    outcomes = await play(
        Bot(ChannelsTransport(ann), table, strict()), Bot(ChannelsTransport(bob), table, strict())
    )
    (game,) = await stored_games(table)
    assert game.status == Game.Status.FINISHED
    assert {o.seat for o in outcomes} == {"ann", "bob"}
    assert all(o.game == game.number and o.status == "finished" for o in outcomes)
    # Both stood up once the game was over: no next game, their chips free to sit elsewhere.
    assert await seats_taken(table) == 0


async def test_the_bot_opens_a_table_through_the_lobby_and_another_finds_it(
    make_user: Any,
) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    bob = await database_sync_to_async(make_user)("bob")
    opened = await open_table(ChannelsTransport(ann), "banker36", strict=True, seat_count=2)
    found = await find_table(ChannelsTransport(bob), "banker36", strict=True)
    assert found == opened


async def test_a_connection_lost_after_a_command_is_reconnected_and_the_command_resent(
    make_user: Any,
) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="classic", name="Bot", created_by=ann, match_length=5)
    transport = ChannelsTransport(ann, drop_after=frozenset({3, 7}))
    (outcome,) = await play(Bot(transport, table, strict(ai=1, first_pause=0.05)))
    (game,) = await stored_games(table)
    assert game.status == Game.Status.FINISHED and outcome.status == "finished"
    assert outcome.reconnections == 2 and len(transport.sockets) == 3
    # Each lost command went again under its own id, after the new snapshot.
    resent = [line for line in outcome.log if line.startswith("resending ")]
    assert len(resent) == 2
    assert outcome.rounds == 5


async def test_a_bot_over_the_rate_limit_waits_and_sends_the_dropped_command_again(
    make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One message a second, none saved up: the bot's quick commands meet the limit.
    monkeypatch.setattr(sockets, "BURST", 1)
    monkeypatch.setattr(sockets, "RATE_PER_SECOND", 1.0)
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="solo", name="Bot", created_by=ann)
    (outcome,) = await play(Bot(ChannelsTransport(ann), table, strict(rounds=1)))
    (game,) = await stored_games(table)
    assert game.status == Game.Status.FINISHED and outcome.status == "finished"
    # The refusal names no retry_after: the bot waited its 1 s before sending again.
    assert any(line == "rate_limited: waiting 1.0 s" for line in outcome.log)


async def test_a_token_the_server_refuses_stops_the_bot_with_the_reason(make_user: Any) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="solo", name="Bot", created_by=ann)
    bogus = ChannelsTransport(ann, secret="t21_" + "x" * 43)
    with pytest.raises(BotStopped, match="bad_token"):
        await play(Bot(bogus, table, strict()))


async def test_a_token_without_the_play_scope_stops_the_bot_at_its_first_command(
    make_user: Any,
) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="solo", name="Bot", created_by=ann)
    with pytest.raises(BotStopped, match="scope_missing"):
        await play(Bot(ChannelsTransport(ann, scopes=("read",)), table, strict()))


async def test_the_bots_command_ids_are_one_run_prefix_and_a_counter(make_user: Any) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="solo", name="Bot", created_by=ann)
    (outcome,) = await play(Bot(ChannelsTransport(ann), table, strict(rounds=1)))
    sent = [json.loads(line[2:]) for line in outcome.log if line.startswith("→ ")]
    prefixes = {message["id"].rsplit("-", 1)[0] for message in sent}
    assert len(prefixes) == 1
    assert [message["id"].rsplit("-", 1)[1] for message in sent] == [
        str(n) for n in range(1, len(sent) + 1)
    ]


async def test_a_missed_update_is_made_good_by_a_snapshot(make_user: Any) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="classic", name="Bot", created_by=ann, match_length=5)
    # The third update (ann ready) is lost; the fourth (the announcement) shows the gap.
    transport = ChannelsTransport(ann, lose_updates=frozenset({3}))
    (outcome,) = await play(Bot(transport, table, strict(ai=1)))
    assert outcome.status == "finished" and outcome.rounds == 5
    assert "missed an update after version 2: asking for a snapshot" in outcome.log


async def test_an_update_lost_with_nothing_after_it_is_made_good_by_an_idle_snapshot(
    make_user: Any,
) -> None:
    ann = await database_sync_to_async(make_user)("ann")
    table = await create_table(variant="classic", name="Bot", created_by=ann, match_length=5)
    # The announcement is lost: nothing follows it until the bot sends its seed (the deal
    # would wait 30 s for it). The snapshot asked after a quiet second shows it.
    transport = ChannelsTransport(ann, lose_updates=frozenset({4}))
    started = asyncio.get_running_loop().time()
    (outcome,) = await play(Bot(transport, table, strict(ai=1, idle_seconds=1.0)))
    assert outcome.status == "finished" and outcome.fair  # its seed went into the deal
    assert asyncio.get_running_loop().time() - started < 20
