"""The header's chip balance on the table page is the wallet's, live: at a `banker36` table
it changes when the bank opens, when a ponter's bet goes into the game's escrow and when
the duel settles, on both players' pages, without a reload."""

from __future__ import annotations

import time
from typing import Any

import pytest

from accounts.models import User
from accounts.services import wallet_for
from games import engine
from play.models import Game
from tests.e2e.table_helpers import (
    chips_in_header,
    create_table,
    make_player,
    open_table,
    player_page,
    press_control,
    wait_game_playing,
    wait_idle,
    wait_my_turn,
)

pytestmark = pytest.mark.e2e


DAPHNE_ENV = "one-game"


def wallet(name: str) -> int:
    return int(wallet_for(User.objects.get(username=name)).balance)


def header_shows(page: Any, name: str, timeout: float = 8.0) -> int:
    """The header's balance once it equals the wallet's (which it must, within `timeout`)."""
    deadline = time.monotonic() + timeout
    while True:
        expected, shown = wallet(name), chips_in_header(page)
        if shown == expected:
            return shown
        assert time.monotonic() < deadline, f"{name}'s header shows {shown}, the wallet {expected}"
        time.sleep(0.2)


def play_one_move(pages: dict[str, Any], game: Game) -> bool:
    """The seat to act plays «Хватит» where it may, else its first action; False once no
    one is to act any more or the ponter is asked for a bet again (the duel settled)."""
    turn = engine.legal_actions(Game.objects.get(pk=game.pk).state)
    if turn is None:
        return False
    names = {entry["action"] for entry in turn["actions"]}
    if "bet" in names:
        return False
    page = pages[turn["seat"]]
    wait_my_turn(page)
    choice = "stand" if "stand" in names else sorted(names)[0]
    page.locator(f'#actions button[data-action="{choice}"]').first.click()
    wait_idle(page)
    return True


def test_the_header_balance_follows_the_bank_the_bet_and_the_settlement_without_a_reload(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    for name in ("anna", "boris"):
        make_player(name)
    table = create_table("banker36", name="Баланс у окна", decision_seconds=60)
    pages: dict[str, Any] = {}
    contexts = []
    try:
        for name in ("anna", "boris"):
            context, page, _console = player_page(browser, daphne_server.url, name)
            contexts.append(context)
            pages[name] = page
            open_table(page, table.pk, sit=True)
        before = {name: chips_in_header(page) for name, page in pages.items()}
        for page in pages.values():
            press_control(page, "ready")
        for page in pages.values():
            wait_game_playing(page)
        game = Game.objects.get(table=table, number=1)
        banker = game.state["banker"]
        ponter = "boris" if banker == "anna" else "anna"

        # The bank opened with the banker's stake: the banker's header shows it gone.
        assert header_shows(pages[banker], banker) == before[banker] - 10
        assert header_shows(pages[ponter], ponter) == before[ponter]

        wait_my_turn(pages[ponter])
        offer = pages[ponter].locator("#actions button.bet-offer").first
        amount = int(offer.get_attribute("data-amount"))
        offer.click()
        wait_idle(pages[ponter])
        assert header_shows(pages[ponter], ponter) == before[ponter] - amount

        for _ in range(20):
            if not play_one_move(pages, game):
                break
        game.refresh_from_db()
        # The duel settled (the ponter is asked for a bet again, or the bank is over): each
        # header shows the wallet as the settlement left it, and no chip went missing.
        circle = game.state.get("circle") or {}
        assert engine.legal_actions(game.state) is None or not circle.get("bet")
        settled = {name: header_shows(page, name) for name, page in pages.items()}
        assert sum(settled.values()) + sum(game.escrowed.values()) == sum(before.values())
    finally:
        for context in contexts:
            context.close()
