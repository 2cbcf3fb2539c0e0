"""A `salon` deal in the browser: the shoe is cut through the page (the slider over the
shoe), the ponter bets through the bet entry (which keeps to the allowed range), both
draw or stand through the action bar, and the settled deal is shown with every hand.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from games import engine
from play.models import Game, GameEvent
from tables.models import Table
from tests.e2e.conftest import check_accessibility, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    create_table,
    make_player,
    open_table,
    player_page,
    press_control,
    table_state,
    wait_game_playing,
    wait_idle,
    wait_my_turn,
)

pytestmark = pytest.mark.e2e

ANN, BOB = "anna", "boris"
CUT_AT = 30


DAPHNE_ENV = "quick-rounds"


@pytest.fixture
def pages(daphne_server: Any, transactional_db: None, browser: Any) -> Iterator[dict[str, Any]]:
    ann = make_player(ANN)
    make_player(BOB)
    table = create_table(
        "salon",
        name="Салон",
        host=ann,
        min_bet=10,
        max_bet=100,
        entry_limit=100,
        decision_seconds=60,
    )
    opened: dict[str, Any] = {"table": table}
    contexts = []
    for name in (ANN, BOB):
        context, page, console = player_page(browser, daphne_server.url, name)
        contexts.append(context)
        opened[name] = (page, console)
    yield opened
    for context in contexts:
        context.close()


def _events(game: Game) -> list[dict[str, Any]]:
    return [
        e for row in GameEvent.objects.filter(game=game).order_by("version") for e in row.events
    ]


def test_a_salon_deal_with_the_cut_and_the_bet_made_through_the_page(pages: dict[str, Any]) -> None:
    table: Table = pages["table"]
    by_name = {ANN: pages[ANN][0], BOB: pages[BOB][0]}
    for page in by_name.values():
        open_table(page, table.pk, sit=True)
    by_name[ANN].wait_for_function(
        "() => document.querySelectorAll('#seats li[data-seat]').length === 2", timeout=TIMEOUT_MS
    )
    # The host (anna) starts the shoe.
    press_control(by_name[ANN], "start")
    for page in by_name.values():
        wait_game_playing(page)
    game = Game.objects.get(table=table, number=1)
    view = engine.view(game.state, None)
    banker, cutter = view["banker"], view["cutter"]
    assert {banker, cutter} == {ANN, BOB}
    cutting, banking = by_name[cutter], by_name[banker]

    # Who holds the bank, the shoe and who banks next are on the table.
    facts = banking.locator(".salon-facts")
    facts.wait_for(timeout=TIMEOUT_MS)
    assert banker in facts.locator('[data-fact="banker"]').inner_text()
    assert "104" in facts.locator('[data-fact="shoe"]').inner_text()
    assert cutter in facts.locator('[data-fact="next-banker"]').inner_text()

    # The cut: the slider over the shoe, moved with the keyboard, then «Снять колоду».
    wait_my_turn(cutting)
    assert banking.locator("#actions .salon-cut").count() == 0  # not the banker's to cut
    slider = cutting.locator("#actions .salon-cut input[type=range]")
    slider.wait_for(timeout=TIMEOUT_MS)
    assert slider.get_attribute("min") == "1" and slider.get_attribute("max") == "103"
    slider.focus()
    slider.press("Home")
    for _ in range(CUT_AT - 1):
        slider.press("ArrowRight")
    assert slider.input_value() == str(CUT_AT)
    assert f"{CUT_AT} из 104" in cutting.locator("#actions .cut-text").inner_text()
    shoot(cutting, "table-salon-cut")
    check_accessibility(cutting, "table-salon-cut")
    cutting.locator('#actions button[data-action="cut"]').click()
    wait_idle(cutting)
    cutting.wait_for_function(
        "() => document.querySelector('#actions .salon-cut') === null", timeout=TIMEOUT_MS
    )
    assert {"type": "cut", "seat": cutter, "position": CUT_AT} in _events(game)

    # The bet: the entry keeps to the range the server offers.
    wait_my_turn(cutting)  # the ponter (the cutter: two players) bets first
    bet = cutting.locator("#actions .salon-bet")
    bet.wait_for(timeout=TIMEOUT_MS)
    amount = bet.get_by_label("Ставка")
    submit = bet.locator('button[data-action="bet"]')
    game.refresh_from_db()
    offered = engine.view(game.state, cutter)["actions"][0]
    assert offered["action"] == "bet"
    assert amount.get_attribute("min") == str(offered["min"])
    assert amount.get_attribute("max") == str(offered["max"])
    amount.fill(str(offered["min"] - 1))
    assert submit.is_disabled()
    assert bet.get_by_role("alert").is_visible()
    amount.fill(str(offered["max"] + 1))
    assert submit.is_disabled()
    bet.get_by_role("button", name="Макс.").click()
    assert amount.input_value() == str(offered["max"]) and submit.is_enabled()
    amount.fill("25")
    assert submit.is_enabled()
    shoot(cutting, "table-salon-bet")
    check_accessibility(cutting, "table-salon-bet")
    amount.press("Enter")  # Enter in the entry places the bet, as the button does
    wait_idle(cutting)
    assert {"type": "bet", "seat": cutter, "amount": 25} in _events(game)
    # The banker's cards stay hidden on the ponter's page, and the other way round.
    assert cutting.locator(f'.salon-deal li[data-seat="{banker}"] svg.card[data-card]').count() == 0
    assert banking.locator(f'.salon-deal li[data-seat="{cutter}"] svg.card[data-card]').count() == 0

    # Both stand when on turn (the ponter first, then the banker) until the deal settles.
    end = time.monotonic() + 40
    while not banking.locator(".salon-summary").count():
        assert time.monotonic() < end, "the deal did not settle"
        state = table_state(banking)
        turn = state["turn"]
        if turn in by_name and state["game_status"] == "playing":
            page = by_name[turn]
            wait_my_turn(page)
            if page.locator(".salon-summary").count():
                break
            act(page, "stand")
        banking.wait_for_timeout(100)

    # The settled deal: every hand shown, as the server settled it.
    summary = banking.locator(".salon-summary")
    summary.wait_for(timeout=TIMEOUT_MS)
    game.refresh_from_db()
    settled = next(e for e in _events(game) if e["type"] == "settle")
    for hand in settled["hands"]:
        codes = summary.locator(f'li[data-seat="{hand["seat"]}"] svg.card[data-card]').evaluate_all(
            "nodes => nodes.map(n => n.dataset.card)"
        )
        assert codes == hand["cards"], (hand, codes)
    ponter_hand = next(h for h in settled["hands"] if h["seat"] == cutter)
    delta_text = summary.locator(f'li[data-seat="{cutter}"] .hand-result strong').inner_text()
    assert int(delta_text.replace("−", "-").replace("+", "")) == ponter_hand["delta"]
    # Cards left in the shoe: the page shows what the server says.
    remaining = engine.view(game.state, None)["shoe"]["remaining"]
    banking.wait_for_function(
        "(n) => document.querySelector('[data-fact=\"shoe\"]').innerText.includes(String(n))",
        arg=remaining,
        timeout=TIMEOUT_MS,
    )
    shoot(banking, "table-salon-settled")
    check_accessibility(banking, "table-salon-settled")

    for name in (ANN, BOB):
        pages[name][1].assert_clean(f"on {name}'s page")
