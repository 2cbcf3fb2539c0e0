"""`blackjack` on a phone: a settled round stays on the felt for the pause after it
(BLACKJACK_ROUND_PAUSE_SECONDS), every hand with its outcome on it («Перебор», «+1», «−1»,
«Ничья», «Блэкджек +1,5»); the next decision is offered when the pause ends, and then the
action dock covers none of the cards it depends on.

Viewport screenshots of the settled round and of the next decision at 360x640 and 1280x800
go to test-artifacts/blackjack-settled-*.png and blackjack-next-decision-*.png.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from play.models import Game
from play.services import seating
from tests.e2e.conftest import ARTIFACTS, Console, screenshot
from tests.e2e.daphne_envs import BLACKJACK_ROUND_PAUSE
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    create_table,
    leave_table,
    log_in,
    make_player,
    open_table,
    outcome_text,
    press_control,
    quiet_broadcasts,
    wait_game_playing,
    wait_my_turn,
)

pytestmark = pytest.mark.e2e

PLAYER = "lena"
PAUSE = BLACKJACK_ROUND_PAUSE  # daphne's, in the module's environment (DAPHNE_ENV)
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}


DAPHNE_ENV = "blackjack-round-pause"


# The boxes of the given cards that the action dock overlaps (it sticks to the bottom of the
# screen over the page), and those not inside the viewport.
HIDDEN_CARDS = """(selector) => {
    const dock = document.querySelector('.action-dock').getBoundingClientRect();
    const bad = [];
    for (const card of document.querySelectorAll(selector)) {
        const r = card.getBoundingClientRect();
        const covered = dock.height > 0 && r.bottom > dock.top + 0.5 && r.top < dock.bottom
            && r.right > dock.left && r.left < dock.right;
        const outside = r.top < -0.5 || r.bottom > innerHeight + 0.5 || r.left < -0.5
            || r.right > innerWidth + 0.5;
        if (covered || outside) bad.push(`${card.dataset.card || 'back'} at ${Math.round(r.top)}-`
            + `${Math.round(r.bottom)} (dock from ${Math.round(dock.top)}, screen ${innerHeight})`);
    }
    return bad;
}"""


def test_a_settled_round_shows_each_hands_outcome_on_the_felt_then_the_next_decision(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    player = make_player(PLAYER)
    table = create_table("blackjack", name="Тренировка", decision_seconds=60)
    with quiet_broadcasts():
        seating.seat_take(table=table, player=player)
        seating.ai_seat_add(table=table, by=player, level="easy")
    page.set_viewport_size(PHONE)
    log_in(page, PLAYER)
    open_table(page, table.pk)
    press_control(page, "start")
    wait_game_playing(page)

    # «Хватит» until round 1 is settled: the felt then shows it, not round 2.
    settled_or_mine = """() => {
        const root = document.getElementById('table-page');
        return document.getElementById('game-area').dataset.settled === 'true'
            || (root.dataset.turn === root.dataset.seat && root.dataset.busy !== 'true'
                && document.querySelector('#actions [data-action="stand"]') !== null);
    }"""
    for _ in range(10):
        page.wait_for_function(settled_or_mine, timeout=TIMEOUT_MS)
        if page.locator("#game-area").get_attribute("data-settled") == "true":
            break
        act(page, "stand")
    else:
        raise AssertionError("round 1 never settled")

    area = page.locator("#game-area")
    # (Round 1, or the round after it when that one settled at its deal: two naturals.)
    shown_round = int(area.get_attribute("data-round"))
    round_one = Game.objects.get(table=table, number=1).state["rounds"][shown_round - 1]
    assert shown_round in (1, 2)
    # Every seat's settled hands are on the felt, each with its outcome on the hand.
    for seat in (PLAYER, "ai:2"):
        hands = [h for h in round_one["hands"] if h["seat"] == seat]
        shown = area.locator(f'.bj-seat[data-seat="{seat}"] .bj-hand.settled')
        assert shown.count() == len(hands)
        for index, hand in enumerate(hands):
            assert shown.nth(index).locator(".bj-outcome").inner_text() == outcome_text(hand)
            assert shown.nth(index).locator("svg.card[data-card]").count() == len(hand["cards"])
    dealer = next(h for h in round_one["hands"] if h["seat"] == "dealer")
    assert area.locator(".bj-dealer svg.card[data-card]").count() == len(dealer["cards"])
    # The next decision waits for the pause: no move is offered (only «Завершить сессию»,
    # among the table's controls), and the turn line says why.
    assert page.locator("#actions [data-action]").count() == 0
    assert page.locator('#table-controls [data-control="end_session"]').is_visible()
    assert "следующая через" in page.locator("#turn").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot(page, ARTIFACTS / "blackjack-settled-360x640.png")
    page.set_viewport_size(DESKTOP)
    screenshot(page, ARTIFACTS / "blackjack-settled-1280x800.png")
    page.set_viewport_size(PHONE)
    # On the phone the player's own outcome is on screen, not under the dock.
    assert page.evaluate(HIDDEN_CARDS, "#game-area .bj-seat.mine svg.card") == []

    # After the pause: round 2 on the felt, its decision offered (when it is the player's),
    # and the action dock covers neither the player's cards nor the dealer's up-card.
    page.wait_for_function(
        "() => document.getElementById('game-area').dataset.settled !== 'true'",
        timeout=(PAUSE + 5) * 1000,
    )
    wait_my_turn(page, timeout=(2 * PAUSE + 10) * 1000)  # a natural may settle round 2 too
    assert int(area.get_attribute("data-round")) >= 2
    decision = "#game-area .bj-seat.mine svg.card, #game-area .bj-dealer svg.card"
    assert page.evaluate(HIDDEN_CARDS, decision) == []
    for button in page.locator("#actions button").all():
        box = button.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"] + 0.5
    # The round before stays readable below, each hand with its outcome.
    last = area.locator(f'.bj-last li[data-seat="{PLAYER}"]')
    assert last.locator(".bj-outcome").count() >= 1
    # … as «Вы», with its cards counted in words («2 карты»).
    assert last.first.locator("strong").inner_text() == "Вы"
    assert re.search(r"\b\d+ карт[аы]?, \d+ — ", last.first.inner_text())
    screenshot(page, ARTIFACTS / "blackjack-next-decision-360x640.png")
    screenshot(page, ARTIFACTS / "blackjack-next-decision-360x640-full.png", full_page=True)
    page.set_viewport_size(DESKTOP)
    screenshot(page, ARTIFACTS / "blackjack-next-decision-1280x800.png")
    # The round's result in the log names the player in the second person, never by name.
    log = " ".join(page.locator("#log li").all_inner_texts())
    assert "Вы +" in log or "Вы \u2212" in log or "Вы 0" in log, log
    assert PLAYER not in log
    console.assert_clean("after the pause")
    leave_table(table.pk, page)
