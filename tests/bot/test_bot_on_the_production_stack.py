"""The reference bot over the production stack — daphne, a Celery worker and beat on
PostgreSQL and Redis, as subprocesses — with nothing but a personal access token and the
real transport (`websockets`, `urllib`): a full game of every variant, played by bot
accounts as an outside programmer would register them (`/account/bots/`), each with its own
token. `salon` and `banker36` are played by two bots, one after the other (a player sits at
one chip table at a time) at tables opened with `bots_allowed` — the chip variants keep bots
out by default — on chips an administrator granted them (bots get none of the site's);
`classic` (against an AI seat), `blackjack` and `solo` by a third owner's bot at the same
time. Each bot opens its table through the lobby socket."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts import bots as bot_accounts
from accounts import tokens
from accounts.models import User
from accounts.services import chips_adjust, wallet_for
from bot.lobby import open_table
from bot.player import Bot, Options, Outcome
from bot.transport import WebTransport
from play.models import Game
from tests.integration.live_stack import Stack, make_stack, run_scenario, stack_env, start_stack

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

SCENARIO_TIMEOUT = 300.0


@pytest.fixture
def stack(
    postgres: None, redis_url: str, transactional_db: None, tmp_path: Path
) -> Iterator[Stack]:
    env = stack_env(
        redis_url,
        GAME_INTERLUDE_SECONDS="1",
        CLIENT_SEED_SECONDS="5",
        AI_DECISION_SECONDS="0.2",
        CLASSIC_ROUND_PAUSE_SECONDS="0",
        BLACKJACK_ROUND_PAUSE_SECONDS="0",
    )
    processes = start_stack(make_stack(env, tmp_path))
    try:
        yield processes
    finally:
        processes.stop()


@database_sync_to_async
def player_token(name: str) -> str:
    user = User.objects.create_user(name, email=f"{name}@example.com", password="unused-Pass-42")
    _token, secret = tokens.token_create(user=user, name="bot", scopes=["read", "play"])
    return str(secret)


@database_sync_to_async
def bot_token(owner_name: str, name: str, chips: int = 0) -> str:
    """A bot account of a new player `owner_name`, with `chips` granted by an admin, and a
    token of the bot's, as its owner makes them at /account/bots/."""
    owner = User.objects.create_user(
        owner_name, email=f"{owner_name}@example.com", password="unused-Pass-42"
    )
    bot = bot_accounts.bot_create(owner=owner, username=name)
    if chips:
        admin = User.objects.filter(username="admin").first() or User.objects.create_superuser(
            "admin", email="admin@example.com", password="unused-Pass-42"
        )
        chips_adjust(
            wallet=wallet_for(bot),
            amount=chips,
            memo="chips for a bot test",
            by=admin,
            idempotency_key=f"bot-test-{name}",
        )
    _token, secret = tokens.token_create(user=bot, name="play", scopes=["read", "play"])
    return str(secret)


@database_sync_to_async
def stored_games(table_id: int) -> list[tuple[int, str]]:
    return list(
        Game.objects.filter(table_id=table_id).order_by("number").values_list("number", "status")
    )


async def test_the_bot_plays_a_full_game_of_every_variant_on_the_production_stack(
    stack: Stack,
) -> None:
    server = f"http://127.0.0.1:{stack.port}"
    ann = WebTransport(server, await bot_token("ann", "ann-bot", chips=5000))
    bob = WebTransport(server, await bot_token("bob", "bob-bot", chips=5000))
    cat = WebTransport(server, await bot_token("cat", "cat-bot"))
    outcomes: dict[str, list[Outcome]] = {}

    async def bots(variant: str, host: WebTransport, *others: WebTransport, **fields: Any) -> None:
        table = await open_table(host, variant, strict=True, **fields)
        options = Options(strict=True, rounds=3, ai=1 if variant == "classic" else 0)
        played = [Bot(t, table, options).run() for t in (host, *others)]
        outcomes[variant] = list(await asyncio.gather(*played))
        games = await stored_games(table)
        assert games and games[-1][1] == Game.Status.FINISHED, (variant, games)

    async def chip_games() -> None:
        await bots("salon", ann, bob, seat_count=2, bots_allowed=True)
        await bots("banker36", ann, bob, seat_count=2, bots_allowed=True)

    async def scenario() -> None:
        await asyncio.gather(
            chip_games(),
            bots("classic", cat, match_length=5),
            bots("blackjack", cat),
            bots("solo", cat),
        )

    await run_scenario(stack, scenario(), timeout=SCENARIO_TIMEOUT, cleanup=_nothing)
    assert sorted(outcomes) == ["banker36", "blackjack", "classic", "salon", "solo"]
    for variant, played in outcomes.items():
        assert all(o.status == "finished" and o.variant == variant for o in played), played
        assert all(o.fair for o in played), played
    assert outcomes["classic"][0].rounds == 5
    assert outcomes["blackjack"][0].rounds >= 3
    solo = outcomes["solo"][0]
    # Three rounds, unless a round's best bet (the whole bank) broke the bank before.
    assert solo.rounds >= 3 or (solo.view or {}).get("game_over") in ("bank_broken", "player_broke")


async def test_python_m_bot_opens_a_table_and_plays_it_with_a_token_from_the_environment(
    stack: Stack,
) -> None:
    # What `make bot TOKEN=... BOT_ARGS='--open solo'` runs.
    token = await player_token("dan")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--server",
        f"http://127.0.0.1:{stack.port}",
        "--open",
        "solo",
        "--rounds",
        "2",
        "--quiet",
        cwd=ROOT,
        env={**os.environ, "BOT_TOKEN": token},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), SCENARIO_TIMEOUT)
    text = output.decode()
    assert process.returncode == 0, text
    last = text.strip().splitlines()[-1]
    assert last.startswith("table ") and "(solo): seat dan, game 1 finished" in last, text


async def _nothing() -> None:
    return None
