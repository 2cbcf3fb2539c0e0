"""A reload mid-game changes nothing in «Ход игры»: the page rebuilds the game's lines from
the snapshot's history (docs/protocol.md §6.1), for its own seat, with the times they
happened — at a `solo` table (own cards shown) and at a `blackjack` table as a player."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import Console
from tests.e2e.table_helpers import (
    act,
    create_table,
    log_in,
    make_player,
    open_table,
    press_control,
    wait_my_turn,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e


DAPHNE_ENV = "ticker"


def game_lines(page: Any) -> list[str]:
    """The log's lines that tell of the game's transitions, newest first."""
    lines: list[str] = page.eval_on_selector_all(
        "#log li[data-version]", "nodes => nodes.map(n => n.innerText.trim())"
    )
    return lines


def reloaded(page: Any) -> None:
    version = page.get_attribute("#table-page", "data-version")
    page.reload()
    wait_socket_open(page)
    page.wait_for_function(
        "(v) => Number(document.getElementById('table-page').dataset.version) >= Number(v)",
        arg=version,
    )


@pytest.mark.parametrize("variant", ["solo", "blackjack"])
def test_a_reload_mid_game_keeps_every_line_of_the_games_log(
    variant: str, daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    name = f"reload-{variant}"
    make_player(name)
    log_in(page, name)
    table = create_table(variant, name=f"Перезагрузка {variant}")
    open_table(page, table.pk, sit=True)
    if variant == "blackjack":
        press_control(page, "start")
    wait_my_turn(page)
    if variant == "solo":  # the bet first, then a card
        page.locator('#actions button[data-quick="50"]').click()
        act(page, "bet")
        wait_my_turn(page)
        act(page, "hit")
    else:  # the training table's bet is fixed: the player stands, the AI seats play
        act(page, "stand")
    page.wait_for_timeout(500)
    before = game_lines(page)
    assert len(before) >= 3, before
    # Lines carry their time: the rebuilt ones keep the times they happened at.
    assert all(re.match(r"\d{1,2}:\d\d:\d\d ", line) for line in before), before

    reloaded(page)
    after = game_lines(page)
    assert after == before
    console.assert_clean("after the reload")
