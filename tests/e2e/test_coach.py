"""The coach at the table in a real browser (issue 11): off by default and silent until
switched on; then, before each decision, a hint with every option's value and the best
ticked (its button marked); a deliberate mistake shows in the round's review with its
cost, and the session summary counts the decisions. `solo` and `blackjack`.

The deal is provably fair, so nobody chooses the cards; to be dealt a position whose
best play is known, the test sits between the page and the server (as
test_table_blackjack.py does): it swaps the page's client seed for one it grinds — replaying
the deal as play.services.lifecycle.deal makes it — until the deal is the one it wants.

Screenshots at 360 and 1280 px (and 375 px) go to test-artifacts/.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from games import engine
from games import fairness as fair
from games.strategy import solo
from insights.models import Decision
from play.models import Game
from play.services import lifecycle, seating
from tables.models import Table
from tests.e2e.conftest import ARTIFACTS, Console, check_accessibility, screenshot, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    action_button,
    create_table,
    leave_table,
    log_in,
    make_player,
    open_table,
    press_control,
    quiet_broadcasts,
    wait_my_turn,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e

MINUS = "\u2212"


# The client-seed wait leaves the grinding all the time it needs; no next shoe while
# the test looks.
DAPHNE_ENV = "seed-intercepted"


def grind_seed(table_id: int, player: str, wanted: Callable[[dict[str, Any]], bool]) -> str:
    """A client seed for `player` with which the announced game deals a state `wanted`
    accepts."""
    table = Table.objects.get(pk=table_id)
    pending = table.pending
    assert pending is not None and player in pending["seats"]
    context = {"table": table.pk, "shoe": pending["number"], "variant": table.variant}
    seats = [{"id": sid} for sid in pending["seats"]]
    options = lifecycle.engine_options(table)
    for attempt in range(50_000):
        seed = f"coach-{attempt}"
        derived = fair.derive(pending["server_seed"], context, [{"seat": player, "seed": seed}])
        state, _events = engine.new_game(table.variant, seats=seats, options=options, seed=derived)
        if wanted(state):
            return seed
    raise AssertionError("no client seed deals the wanted position")


def swap_client_seed(page: Any, table_id: int, player: str, wanted: Callable[..., bool]) -> None:
    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "client_seed":
                data["seed"] = grind_seed(table_id, player, wanted)
                message = json.dumps(data)
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/ws/tables/**", route)


def value_text(value: float) -> str:
    """As static/js/table/coach.js prints a value."""
    size = abs(value)
    digits = 1 if size >= 10 else 3 if 0 < size < 0.01 else 2
    text = f"{size:.{digits}f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else MINUS) + text


def hint_options(page: Any) -> list[dict[str, str]]:
    options: list[dict[str, str]] = page.eval_on_selector_all(
        "#coach-hint .coach-option",
        "nodes => nodes.map(n => ({...n.dataset, text: n.innerText}))",
    )
    return options


def wait_hint(page: Any, situation: str) -> None:
    page.wait_for_function(
        "(s) => document.getElementById('coach-hint-body').dataset.situation === s"
        " && !document.getElementById('coach-hint-body').classList.contains('stale')",
        arg=situation,
        timeout=TIMEOUT_MS,
    )


def fact(page: Any, name: str) -> str:
    text: str = page.locator(f'#coach-session [data-fact="{name}"] dd').inner_text()
    return text


def shoot_375(page: Any, name: str) -> None:
    page.set_viewport_size({"width": 375, "height": 812})
    screenshot(page, ARTIFACTS / f"{name}-375x812.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.set_viewport_size({"width": 1280, "height": 800})


def test_the_solo_coach_values_the_bet_and_the_draw_and_reviews_a_deliberate_mistake(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    player = make_player("uchenik")
    table = create_table("solo", name="С тренером")
    # A six as the first card: drawing is clearly better than «Хватит» on 6.
    swap_client_seed(page, table.pk, "uchenik", lambda state: state["hand"][0][0] == "6")
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "coach.json" in r.url else None)
    log_in(page, player.username)
    open_table(page, table.pk, sit=True)
    wait_my_turn(page)

    # Off by default: the switch is there, the coach's body is not, and nothing is asked.
    coach = page.locator("#coach")
    toggle = page.locator("#coach-toggle")
    assert coach.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    assert page.locator("#coach-body").is_hidden()
    assert fetched == []

    # On: the bet's value at 1, at the amount in the field (50) and at the most (300);
    # the value is linear in the amount, so the best size is an end.
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    wait_hint(page, "bet:6")
    ev = solo.first_card_ev("6")
    rows = hint_options(page)
    assert [int(r["amount"]) for r in rows] == [1, 50, 300]
    for row in rows:
        assert value_text(ev * int(row["amount"])) in row["text"]
    best_amount = 1 if ev < 0 else 300
    assert [int(r["amount"]) for r in rows if r["best"] == "true"] == [best_amount]
    size = page.locator("#coach-hint .coach-best-size").inner_text()
    assert size.endswith(str(best_amount))
    assert "монетах" in page.locator("#coach-hint .coach-note").inner_text()
    # The amount typed is valued as it is typed.
    page.locator("#solo-bet").fill("120")
    page.wait_for_function(
        "() => document.querySelector('#coach-hint .coach-option[data-typed=\"true\"]')"
        " ?.dataset.amount === '120'",
        timeout=TIMEOUT_MS,
    )
    shoot(page, "coach-solo-bet")
    check_accessibility(page, "coach-solo-bet")

    # The best size, then the draw: «Ещё карту» is best on a 6 and its button is marked.
    page.locator("#solo-bet").fill(str(best_amount))
    act(page, "bet")
    wait_my_turn(page)
    wait_hint(page, "total6")
    stand_ev, draw_ev = solo.compute_strategy().values(["6S"])
    options = {r["action"]: r for r in hint_options(page)}
    assert set(options) == {"hit", "stand"}
    assert options["hit"]["best"] == "true" and options["stand"]["best"] == "false"
    assert options["hit"]["text"].startswith("Ещё карту")
    assert value_text(best_amount * draw_ev) in options["hit"]["text"]
    assert value_text(best_amount * stand_ev) in options["stand"]["text"]
    assert "✓" in options["hit"]["text"] and "✓" not in options["stand"]["text"]
    assert action_button(page, "hit").get_attribute("data-coach-best") == "true"
    assert action_button(page, "stand").get_attribute("data-coach-best") is None
    page.wait_for_function(
        "() => /Подсказка: лучше «Ещё карту»/"
        ".test(document.getElementById('announce').textContent)",
        timeout=TIMEOUT_MS,
    )

    # Remembered for this variant: a reload finds the coach on, and the hint again.
    page.reload()
    wait_socket_open(page)
    wait_my_turn(page)
    assert page.locator("#coach-toggle").get_attribute("aria-pressed") == "true"
    wait_hint(page, "total6")

    # The deliberate mistake: «Хватит» on 6, the option the hint did not tick.
    act(page, "stand")
    mistake = page.locator("#coach-round .coach-mistake")
    mistake.wait_for(timeout=TIMEOUT_MS)
    stored = _stored_decision(player, situation="total6")
    assert stored.loss > 0 and stored.chosen["action"] == "stand"
    text = mistake.inner_text()
    assert text.startswith("Ошибка: Хватит — 6 очков")
    assert f"{value_text(-stored.loss)}\u00a0мон." in text and "«Ещё карту»" in text
    assert page.locator("#coach-round-title").inner_text() == "Разбор раздачи 1"
    lost = page.locator("#coach-round .coach-lost").inner_text()
    assert lost == f"Потеряно за раздачу: {value_text(stored.loss).lstrip('+')}\u00a0мон."
    # Nothing to decide but the next round: no hint, no marked button.
    assert page.locator("#coach-hint .coach-option").count() == 0
    assert page.locator("#actions [data-coach-best]").count() == 0
    # The session: the bet (best) and the stand (a mistake).
    assert fact(page, "decisions") == "2"
    assert fact(page, "accuracy") == "50 %"
    assert fact(page, "lost") == f"{value_text(stored.loss * 50).lstrip('+')}\u00a0мон."
    page.wait_for_function(
        "() => /Ошибка: Хватит/.test(document.getElementById('announce').textContent)",
        timeout=TIMEOUT_MS,
    )
    shoot(page, "coach-solo-review")
    shoot_375(page, "coach-solo-review")
    check_accessibility(page, "coach-solo-review")

    # Off again: hidden, and nothing is asked any more, whatever happens at the table.
    toggle = page.locator("#coach-toggle")
    toggle.click()
    assert page.locator("#coach-body").is_hidden()
    asked = len(fetched)
    act(page, "next_round")
    wait_my_turn(page)
    page.wait_for_timeout(300)
    assert len(fetched) == asked
    console.assert_clean("after the solo coach")
    leave_table(table.pk, page)


def _hard_total_against(state: dict[str, Any], seat: str) -> tuple[int, str] | None:
    view = engine.view(state, seat)
    if view.get("turn") != seat or not view.get("hands"):
        return None
    hand = view["hands"][0]
    cards = hand["cards"]
    if hand["soft"] or cards[0][0] == cards[1][0]:
        return None
    return hand["total"], view["dealer"]["cards"][0][0]


def _stored_decision(player: Any, **lookup: Any) -> Decision:
    """The player's reviewed decision that matches `lookup`, once the review has stored
    it: the page reviews a round from its record at once, while the stored review is
    written when the game ends (insights.tasks), which may come a moment later."""
    end = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        stored = Decision.objects.filter(user=player, **lookup).first()
        if stored is not None:
            return stored
        assert time.monotonic() < end, f"no decision {lookup} was ever stored"
        time.sleep(0.1)


def test_the_blackjack_coach_reviews_a_stand_on_a_hard_total_against_a_high_card(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    player = make_player("kursant")
    table = create_table("blackjack", name="Тренировка с тренером", decision_seconds=60)
    with quiet_broadcasts():
        seating.seat_take(table=table, player=player)

    def wanted(state: dict[str, Any]) -> bool:
        # Hard 13–15 (not a pair) against a 7, 8 or 9: drawing is clearly better.
        position = _hard_total_against(state, "kursant")
        return position is not None and 13 <= position[0] <= 15 and position[1] in "789"

    swap_client_seed(page, table.pk, "kursant", wanted)
    log_in(page, player.username)
    # Switched on before the deal: the choice is remembered per variant.
    page.evaluate("() => localStorage.setItem('twentyone:coach:blackjack', 'on')")
    open_table(page, table.pk)
    assert page.locator("#coach-toggle").get_attribute("aria-pressed") == "true"
    press_control(page, "start")
    wait_my_turn(page)
    game = Game.objects.get(table=table, number=1)
    position = _hard_total_against(game.state, "kursant")
    assert position is not None
    total, up = position
    up_words = {"7": "семёрки", "8": "восьмёрки", "9": "девятки"}[up]
    situation = f"hard{total}:{up}"
    wait_hint(page, situation)
    assert page.locator("#coach-hint .coach-situation").inner_text() == f"{total} против {up_words}"
    options = {r["action"]: r for r in hint_options(page)}
    assert {"hit", "stand"} <= set(options)
    assert options["stand"]["best"] == "false"
    best = next(r for r in options.values() if r["best"] == "true")
    assert action_button(page, best["action"]).get_attribute("data-coach-best") == "true"
    assert "единицах ставки" in page.locator("#coach-hint .coach-note").inner_text()
    shoot(page, "coach-blackjack-hint")
    check_accessibility(page, "coach-blackjack-hint")

    # «Хватит», which the hint did not tick: the dealer finishes the round, the next one
    # is dealt, and the review of round 1 shows the mistake with its cost.
    act(page, "stand")
    mistake = page.locator("#coach-round .coach-mistake")
    mistake.wait_for(timeout=TIMEOUT_MS)
    stored = _stored_decision(player, round=1)
    assert stored.situation == situation and stored.loss > 0
    text = mistake.inner_text()
    assert text.startswith(f"Ошибка: Хватит на {total} против {up_words}")
    assert f"{value_text(-stored.loss)}\u00a0ед." in text
    assert page.locator("#coach-round-title").inner_text() == "Разбор раздачи 1"
    assert fact(page, "decisions") == "1" and fact(page, "accuracy") == "0 %"
    shoot(page, "coach-blackjack-review")
    shoot_375(page, "coach-blackjack-review")
    check_accessibility(page, "coach-blackjack-review")
    console.assert_clean("after the blackjack coach")
    leave_table(table.pk, page)
