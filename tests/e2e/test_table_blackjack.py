"""The `blackjack` training table page: a player with two AI seats splits a pair and
doubles through the buttons, then ends the session.

Dealing is provably fair (docs/fairness.md): nobody can choose the cards, the server
included. To be dealt a pair anyway, the test sits between the page and the server
(Playwright's route_web_socket): when the page sends its client seed, the test reads the
announced game's server seed from the test database, grinds client seeds — replaying the
deal exactly as play.services.lifecycle.deal makes it — until the player's first hand is a pair
that may be split and then doubled, and sends that seed on instead of the page's. The
page only sees its ack.

Screenshots at 360 and 1280 px go to test-artifacts/.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import engine
from games import fairness as fair
from play.models import Game
from play.services import lifecycle, seating
from tables.models import Table
from tests.e2e.conftest import Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    action_button,
    create_table,
    leave_table,
    log_in,
    make_player,
    open_table,
    outcome_text,
    press_control,
    quiet_broadcasts,
    table_state,
    wait_game_playing,
    wait_my_turn,
)

pytestmark = pytest.mark.e2e

PLAYER = "vera"


# The client-seed wait leaves the interception all the time it needs; AI seats move
# quickly; no next shoe while the test looks.
DAPHNE_ENV = "seed-intercepted"


def split_then_double_seed(table: Table) -> str:
    """A client seed for PLAYER with which the announced game deals PLAYER a pair that may
    be split, after which «Удвоить» is legal."""
    pending = table.pending
    assert pending is not None and PLAYER in pending["seats"]
    context = {"table": table.pk, "shoe": pending["number"], "variant": table.variant}
    seats = [{"id": sid} for sid in pending["seats"]]
    options = lifecycle.engine_options(table)
    for attempt in range(20_000):
        seed = f"pair-{attempt}"
        derived = fair.derive(pending["server_seed"], context, [{"seat": PLAYER, "seed": seed}])
        state, _events = engine.new_game("blackjack", seats=seats, options=options, seed=derived)
        turn = engine.legal_actions(state)
        if not turn or turn["seat"] != PLAYER:
            continue
        if "split" not in {a["action"] for a in turn["actions"]}:
            continue
        state, _events = engine.apply(state, {"seat": PLAYER, "action": "split"})
        after = engine.legal_actions(state)
        if (
            after
            and after["seat"] == PLAYER
            and "double" in {a["action"] for a in after["actions"]}
        ):
            return seed
    raise AssertionError("no client seed gives a pair to split and double")


def test_a_player_splits_and_doubles_beside_two_ai_seats_and_ends_the_session(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    player = make_player(PLAYER)
    table = create_table("blackjack", name="Тренировка", decision_seconds=60)
    with quiet_broadcasts():
        seating.seat_take(table=table, player=player)
        seating.ai_seat_add(table=table, by=player, level="easy")
        seating.ai_seat_add(table=table, by=player, level="hard")

    sent: dict[str, str] = {}

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "client_seed":
                sent["page"] = data["seed"]
                data["seed"] = sent["test"] = split_then_double_seed(Table.objects.get(pk=table.pk))
                message = json.dumps(data)
            server.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/ws/tables/**", route)
    log_in(page, PLAYER)
    open_table(page, table.pk)
    assert table_state(page)["seat"] == PLAYER
    # The AI seats are labelled with their level, in the seats strip and on the felt.
    seats = page.locator("#seats")
    assert seats.locator('[data-seat="ai:2"] .ai-level').inner_text() == "лёгкий"
    assert seats.locator('[data-seat="ai:3"] .ai-level').inner_text() == "сильный"

    # «Начать игру»: the shoe is announced; the page's seed (swapped on the way) deals it.
    press_control(page, "start")
    wait_game_playing(page)
    game = Game.objects.get(table=table, number=1)
    assert sent["page"] != sent["test"]
    assert game.client_seeds == [{"seat": PLAYER, "seed": sent["test"]}]
    wait_my_turn(page)
    mine = page.locator("#game-area .bj-seat.mine")
    assert mine.locator(".bj-hand").count() == 1
    assert mine.locator("svg.card[data-card]").count() == 2
    assert action_button(page, "split").is_visible()
    assert page.locator("#game-area .bj-dealer svg.card.back").count() == 1
    ai = page.locator('#game-area .bj-seat[data-seat="ai:3"]')
    assert "сильный" in ai.locator(".ai-level").inner_text()
    shoot(page, "table-blackjack-pair")
    check_accessibility(page, "table-blackjack-pair")

    # «Разделить»: two hands of one card each plus one more, the first hand to act.
    act(page, "split")
    wait_my_turn(page)
    assert mine.locator(".bj-hand").count() == 2
    assert mine.get_attribute("data-hands") == "2"
    assert mine.locator('.bj-hand[data-active="true"]').count() == 1
    shoot(page, "table-blackjack-split")
    check_accessibility(page, "table-blackjack-split")

    # «Удвоить» on the hand to act: its wager becomes 2 and it takes exactly one card.
    active = mine.locator('.bj-hand[data-active="true"]')
    index = active.get_attribute("data-hand")
    act(page, "double")
    moves = [(a["seat"], a["action"]) for a in Game.objects.get(pk=game.pk).actions]
    assert moves[:2] == [(PLAYER, "split"), (PLAYER, "double")]

    # «Хватит» on whatever is left of round 1; the AI seats and the dealer finish it.
    settled_or_mine = (
        "(seat) => document.getElementById('game-area').dataset.round !== '1'"
        " || (document.getElementById('table-page').dataset.turn === seat"
        " && document.getElementById('table-page').dataset.busy !== 'true')"
    )
    page.wait_for_function(settled_or_mine, arg=PLAYER, timeout=TIMEOUT_MS)
    while page.locator("#game-area").get_attribute("data-round") == "1":
        act(page, "stand")
        page.wait_for_function(settled_or_mine, arg=PLAYER, timeout=TIMEOUT_MS)

    # Round 1 is settled: the last round lists both of the player's hands, one doubled.
    last = page.locator("#game-area .bj-last")
    assert last.locator(f'li[data-seat="{PLAYER}"]').count() == 2
    round_one = Game.objects.get(pk=game.pk).state["rounds"][0]
    hands = [h for h in round_one["hands"] if h["seat"] == PLAYER]
    assert len(hands) == 2
    doubled = hands[int(index)]
    assert len(doubled["cards"]) == 3 and doubled["delta"] in (-2, 0, 2)

    # Each of the player's settled hands shows its outcome on it, numbered after the split.

    shown = last.locator(f'li[data-seat="{PLAYER}"]')
    for number, hand in enumerate(hands, start=1):
        item = shown.nth(number - 1)
        assert item.locator(".hand-index").inner_text() == f"Рука {number}"
        assert item.locator(".bj-outcome").inner_text() == outcome_text(hand)
    log = " ".join(page.locator("#log li").all_inner_texts())
    # The player's own moves are told in the second person, never with their user name.
    assert "Вы: разделить" in log and "Вы: удвоить" in log
    assert f"{PLAYER}: " not in log
    balance = page.locator(f'#game-area .bj-seat[data-seat="{PLAYER}"] .session-balance')
    assert float(balance.get_attribute("data-balance")) == sum(h["delta"] for h in hands)
    shoot(page, "table-blackjack-round")
    check_accessibility(page, "table-blackjack-round")

    # «Завершить сессию» is no move: it stands among the table's controls, not in the bar.
    assert page.locator('#actions [data-action="end_session"]').count() == 0
    end = page.locator('#table-controls button[data-control="end_session"]')
    assert end.inner_text() == "Завершить сессию"
    # The shoe ends at once, its server seed is revealed.
    end.click()
    page.wait_for_function(
        "() => document.getElementById('table-page').dataset.gameStatus === 'finished'",
        timeout=TIMEOUT_MS,
    )
    ended = Game.objects.get(pk=game.pk)
    assert ended.status == "finished"
    assert ended.server_seed in page.locator("#fairness-facts").text_content()
    assert page.locator("#game-area .bj-session").is_visible()
    console.assert_clean("after the session")
    leave_table(table.pk, page)
