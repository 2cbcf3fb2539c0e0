"""The bot's check of a game once it is over (docs/protocol.md §18, item 3): the server
seed revealed matches the commitment published before the deal, the bot's own client seed
is among the game's, and the game's seed follows from them (docs/fairness.md)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.player import Bot, Options, ProtocolMismatch
from games import fairness

SERVER_SEED = "ab" * 32
TABLE = {"id": 7, "variant": "solo"}
CONTEXT = {"table": 7, "shoe": 2, "variant": "solo"}


def over(**changes: Any) -> dict[str, Any]:
    seeds = [{"seat": "ann", "seed": "mine-1"}]
    game = {
        "number": 2,
        "commitment": fairness.commit(SERVER_SEED, CONTEXT),
        "context": CONTEXT,
        "server_seed": SERVER_SEED,
        "client_seeds": seeds,
        "seed": fairness.derive(SERVER_SEED, CONTEXT, seeds),
    }
    return {**game, **changes}


def checked(game: dict[str, Any], strict: bool = False) -> Bot:
    bot = Bot(transport=None, table_id=7, options=Options(strict=strict))  # type: ignore[arg-type]
    bot.outcome.seat = "ann"
    bot.seeded[2] = (game["commitment"], "mine-1")
    bot._check_fairness(TABLE, game)
    return bot


def test_a_fair_game_is_checked_fair() -> None:
    assert checked(over()).outcome.fair is True


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"server_seed": "cd" * 32}, "does not match the commitment"),
        ({"client_seeds": [{"seat": "ann", "seed": "other"}]}, "client seed is not among"),
        ({"seed": "00" * 32}, "does not follow"),
    ],
)
def test_a_game_that_fails_a_check_is_told(changes: dict[str, Any], problem: str) -> None:
    bot = checked(over(**changes))
    assert bot.outcome.fair is False
    assert problem in bot.outcome.log[-1]
    with pytest.raises(ProtocolMismatch, match=problem):
        checked(over(**changes), strict=True)


def test_nothing_is_checked_before_the_server_seed_is_revealed() -> None:
    assert checked(over(server_seed=None)).outcome.fair is None


def test_a_tournament_shoe_is_checked_in_its_own_context_not_the_tables() -> None:
    # A duplicate heat's game: the context names the tournament (minus its id), shoe 1,
    # and no client seed went in (docs/fairness.md, «Tournaments»).
    context = {"table": -3, "shoe": 1, "variant": "solo"}
    game = over(
        number=1,
        context=context,
        commitment=fairness.commit(SERVER_SEED, context),
        client_seeds=[],
        seed=fairness.derive(SERVER_SEED, context, []),
    )
    bot = Bot(transport=None, table_id=7, options=Options(strict=True))  # type: ignore[arg-type]
    bot._check_fairness(TABLE, game)
    assert bot.outcome.fair is True
