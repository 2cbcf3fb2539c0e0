"""The `solo` table page in a real browser: a new player signs up, sits at a solo table,
bets with the quick buttons, finds the bet still there after a reload, plays the round to
its result through the buttons, and zooms the cards (the zoom is kept across visits).

Screenshots of the table page at 360 and 1280 px go to test-artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.services import WELCOME_GRANT_CHIPS
from play.models import Game
from tests.e2e.conftest import Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    PASSWORD,
    TIMEOUT_MS,
    act,
    action_button,
    chips_in_header,
    create_table,
    dom_cards,
    leave_table,
    make_player,
    open_table,
    settle,
    table_state,
    wait_my_turn,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e


# The page sends its client seed at once, so the deal does not wait for deal_at.
DAPHNE_ENV = "ticker"


def stat(page: Any, name: str) -> str:
    text: str = page.locator(f'#game-area [data-stat="{name}"] dd').inner_text()
    return text


def number(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def card_width(page: Any) -> float:
    box = page.locator("#game-area svg.card").first.bounding_box()
    assert box is not None
    return float(box["width"])


def sign_up(page: Any, username: str) -> None:
    page.goto("/signup/")
    page.locator("main input[name=username]").fill(username)
    page.locator("main input[name=email]").fill(f"{username}@example.com")
    page.locator("main input[name=password1]").fill(PASSWORD)
    page.locator("main input[name=password2]").fill(PASSWORD)
    page.locator("main input[name=password2]").press("Enter")
    page.wait_for_url("**/chips/")
    settle(page)


def test_the_page_is_404_for_an_unknown_table_and_a_private_one_without_its_invite(
    client: Any, db: None
) -> None:
    public = create_table("solo", name="Открытый")
    response = client.get(f"/tables/{public.pk}/")
    assert response.status_code == 200
    assert response["Content-Security-Policy"]
    config = response.context["config"]
    assert config["ws_path"] == f"/ws/tables/{public.pk}/" and config["user"] is None
    assert client.get(f"/tables/{public.pk + 1000}/").status_code == 404

    host = make_player("hozyain")
    private = create_table("banker36", name="Свои", host=host, private=True)
    assert private.invite_code
    assert client.get(f"/tables/{private.pk}/").status_code == 404
    assert client.get(f"/tables/{private.pk}/?invite=wrong").status_code == 404
    invited = client.get(f"/tables/{private.pk}/?invite={private.invite_code}")
    assert invited.status_code == 200
    # The invite goes on to the socket (and to «Сесть за стол»): docs/protocol.md §2.
    assert invited.context["config"]["invite"] == private.invite_code
    client.force_login(host)
    assert client.get(f"/tables/{private.pk}/").status_code == 200


def test_a_new_player_plays_a_solo_round_keeps_the_bet_over_a_reload_and_the_zoom(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    # Every table socket of the page goes through the test (untouched), so that the test
    # can cut one as a network drop would.
    links: list[tuple[Any, Any]] = []

    def relay(ws: Any) -> None:
        links.append((ws, ws.connect_to_server()))

    page.route_web_socket("**/ws/tables/**", relay)
    sign_up(page, "solist")
    assert chips_in_header(page) == WELCOME_GRANT_CHIPS
    table = create_table("solo", name="Один на один")

    # ?sit=1 seats the player; the game is announced, the page sends its client seed, and
    # the first card is dealt: the bet is the first decision.
    open_table(page, table.pk, sit=True)
    wait_my_turn(page)
    state = table_state(page)
    assert state["seat"] == "solist" and state["in_game"] and state["game_status"] == "playing"
    assert number(stat(page, "coins")) == 1000
    assert number(stat(page, "bank")) == 300
    assert stat(page, "bet") == "—"
    assert len(dom_cards(page, "#game-area [data-hand=player]")) == 1
    assert page.locator("#game-area [data-hand=banker] svg.card.back").count() == 1
    # «Начать заново» is offered before the bet (and only then); it and «Новая игра» each
    # say under their name what they do, so that the two are not taken for one another.
    assert action_button(page, "restart").is_visible()
    hints = {
        action: action_button(page, action).locator(".action-hint").inner_text()
        for action in ("restart", "new_game")
    }
    assert hints == {"restart": "те же карты ещё раз", "new_game": "монеты и банк с начала"}
    assert "тем же порядком карт" in action_button(page, "restart").get_attribute("title")
    # The fairness panel shows the commitment and the client seed that went in.
    game = Game.objects.get(table=table, number=1)
    assert game.commitment in page.locator("#fairness-facts").text_content()
    assert len(game.client_seeds) == 1 and game.client_seeds[0]["seat"] == "solist"
    shoot(page, "table-solo-bet")
    check_accessibility(page, "table-solo-bet")
    console.assert_clean("before the bet")

    # Quick bet 50, confirmed with «Сделать ставку».
    page.locator('#actions button[data-quick="50"]').click()
    assert page.locator("#solo-bet").input_value() == "50"
    act(page, "bet")
    wait_my_turn(page)
    assert number(stat(page, "bet")) == 50
    assert number(stat(page, "coins")) == 950
    assert action_button(page, "restart").count() == 0
    assert action_button(page, "hit").is_visible() and action_button(page, "stand").is_visible()
    game.refresh_from_db()
    assert game.state["bet"] == 50

    # A reload restores the table from the snapshot: the bet is still there.
    page.reload()
    wait_socket_open(page)
    wait_my_turn(page)
    assert number(stat(page, "bet")) == 50
    assert number(stat(page, "coins")) == 950
    assert action_button(page, "hit").is_visible()
    shoot(page, "table-solo-draw")
    check_accessibility(page, "table-solo-draw")

    # The link drops: the indicator says so, the page reconnects by itself (backoff) and
    # the snapshot restores the table exactly.
    opened = len(links)
    page_side, server_side = links[-1]
    page_side.close(code=4000, reason="network drop")
    server_side.close()
    page.wait_for_function(
        "() => document.getElementById('connection').dataset.state === 'reconnecting'",
        timeout=TIMEOUT_MS,
    )
    assert "переподключаемся" in page.locator("#connection").inner_text()
    wait_socket_open(page)
    assert len(links) == opened + 1
    assert page.locator("#connection").inner_text().strip() == "На связи"
    assert number(stat(page, "bet")) == 50
    wait_my_turn(page)

    # «Хватит» by its keyboard shortcut (shown on the button): the banker plays and the
    # round is settled; the result names the winner, the coins won or lost and a reason.
    assert action_button(page, "stand").locator("kbd").inner_text() == "S"
    page.keyboard.press("s")
    result = page.locator("#game-area .solo-result")
    result.wait_for(timeout=TIMEOUT_MS)
    game.refresh_from_db()
    outcome = game.state["result"]
    assert result.get_attribute("data-outcome") == outcome["outcome"]
    text = result.inner_text()
    # The player's own result in the second person, with the amount and its unit.
    assert ("Вы проиграли" in text) == (outcome["outcome"] == "loss")
    assert ("Вы выиграли" in text) == (outcome["outcome"] == "win")
    assert str(abs(outcome["delta"])) in text
    assert number(stat(page, "coins")) == game.state["coins"]
    assert number(stat(page, "bank")) == game.state["bank"]
    assert stat(page, "bet") == "—"
    assert action_button(page, "next_round").is_visible()
    # After the round the turn line says what comes next, not «Ваш ход»; the log names the
    # player «Вы», never by their own user name.
    assert page.locator("#turn").inner_text() == "Раздача окончена: нажмите «Следующая раздача»"
    log_texts = page.locator("#log li").all_inner_texts()
    assert any(re.search(r"Вы (вы|про)играли [+−]\d+ монет", line) for line in log_texts), log_texts
    assert not any("solist" in line for line in log_texts), log_texts
    assert any("хватит" in line for line in page.locator("#log li").all_inner_texts())
    # The live region said it for screen readers.
    page.wait_for_function(
        "() => /Вы (вы|про)играли/.test(document.getElementById('announce').textContent)",
        timeout=TIMEOUT_MS,
    )
    shoot(page, "table-solo-result")
    check_accessibility(page, "table-solo-result")

    # The zoom, a page setting off the felt: «+» four times from 100 % to 140 % (its end),
    # the cards grow; kept over a reload.
    area = page.locator("#table-page")
    assert page.locator("#game-area .zoom-button").count() == 0
    assert area.get_attribute("data-zoom") == "100"
    before = card_width(page)
    zoom_in = page.locator('#table-zoom button[data-key="zoom-in"]')
    for _ in range(4):
        zoom_in.click()
    assert area.get_attribute("data-zoom") == "140"
    assert zoom_in.is_disabled()
    zoomed = card_width(page)
    assert zoomed == pytest.approx(before * 1.4, rel=0.02)
    page.reload()
    wait_socket_open(page)
    page.locator("#game-area .solo-result").wait_for(timeout=TIMEOUT_MS)
    assert page.locator("#table-page").get_attribute("data-zoom") == "140"
    assert card_width(page) == pytest.approx(zoomed, rel=0.02)
    zoom_out = page.locator('#table-zoom button[data-key="zoom-out"]')
    for _ in range(7):
        if not zoom_out.is_disabled():
            zoom_out.click()
    assert page.locator("#table-page").get_attribute("data-zoom") == "80"
    assert card_width(page) == pytest.approx(before * 0.8, rel=0.02)

    # «Следующая раздача» deals the next round: the bet is the decision again.
    act(page, "next_round")
    page.locator('#actions button[data-quick="50"]').wait_for(timeout=TIMEOUT_MS)
    assert action_button(page, "restart").is_visible()
    console.assert_clean("after the round")
    leave_table(table.pk, page)
