"""The site's pages in a real browser: sign-up, lobby, chips, login; CSP; accessibility.

Screenshots of each page at 360 and 1280 px go to test-artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.services import WELCOME_GRANT_CHIPS
from lobby.management.commands.demo_setup import DEMO_TABLES
from tests.e2e.conftest import Console, check_accessibility, shoot

pytestmark = pytest.mark.e2e

PASSWORD = "Brauzer-Parol-2024"


def visit(page: Any, console: Console, path: str, name: str) -> None:
    """Open a page, screenshot it at both widths, and require a clean console and axe."""
    response = page.goto(path)
    assert response is not None and response.ok, f"{path}: {response and response.status}"
    assert response.headers.get("content-security-policy"), path
    shoot(page, name)
    check_accessibility(page, name)
    console.assert_clean(f"on {path}")


def test_a_new_player_signs_up_and_sees_chips_and_the_demo_tables(
    daphne_server: Any, demo_tables: None, page: Any, console: Console
) -> None:
    # Signed out: the lobby, the login and sign-up pages.
    visit(page, console, "/", "lobby-anonymous")
    visit(page, console, "/login/", "login")
    visit(page, console, "/signup/", "signup")

    # Sign up through the real form (Russian labels: the default language).
    page.get_by_label("Имя пользователя").fill("brauzer")
    page.get_by_label("E-mail").fill("brauzer@example.com")
    page.get_by_label("Пароль:", exact=True).fill(PASSWORD)
    page.get_by_label("Подтверждение пароля").fill(PASSWORD)
    page.get_by_role("button", name="Зарегистрироваться").click()
    # The welcome grant is shown on the chips page, where sign-up leads.
    page.wait_for_url("**/chips/")
    chips = page.locator(".chips-badge")
    assert int(re.sub(r"\D", "", chips.inner_text())) == WELCOME_GRANT_CHIPS
    assert page.locator("[data-balance]").get_attribute("data-balance") == str(WELCOME_GRANT_CHIPS)
    console.assert_clean("after signing up")
    shoot(page, "chips")
    check_accessibility(page, "chips")

    # The lobby lists the demo tables, one per variant, and the header the chips.
    page.get_by_role("link", name="Лобби").first.click()
    page.wait_for_url(f"{daphne_server.url}/")
    rows = page.locator("table.lobby tbody tr")
    names = {rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())}
    assert {fields["name"] for fields in DEMO_TABLES.values()} <= names
    assert int(re.sub(r"\D", "", chips.inner_text())) == WELCOME_GRANT_CHIPS
    visit(page, console, "/", "lobby")
    visit(page, console, "/chips/", "chips")


def test_the_policy_allows_the_sites_own_websocket_and_blocks_the_rest(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    # connect-src 'self' (CSP Level 3) covers ws:// on the same host and port.
    page.goto("/login/")
    opened = page.evaluate(
        """() => new Promise((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/ws/lobby/`);
            ws.onopen = () => { ws.close(); resolve("open"); };
            ws.onerror = () => resolve("error");
        })"""
    )
    assert opened == "open"
    console.assert_clean("after a same-origin WebSocket")

    # Another origin (here: the same server under another host name) is refused.
    other = f"ws://localhost:{daphne_server.port}/ws/lobby/"
    page.evaluate(
        """(url) => new Promise((resolve) => {
            try {
                const ws = new WebSocket(url);
                ws.onopen = () => resolve("open");
                ws.onerror = () => resolve("error");
            } catch (error) { resolve(String(error)); }
        })""",
        other,
    )
    page.wait_for_timeout(200)  # the violation event is dispatched asynchronously
    problems = console.take()
    assert any("connect-src" in p for p in problems), problems


def test_the_console_collector_catches_inline_code_and_script_errors(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    page.goto("/login/")
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.body.append(script);
        }"""
    )
    page.evaluate("() => { setTimeout(() => { throw new Error('boom'); }); }")
    page.wait_for_timeout(200)
    assert page.evaluate("window.inlineRan === undefined")
    problems = console.take()
    assert any("script-src" in p for p in problems), problems
    assert any("boom" in p for p in problems), problems


def test_admin_login_loads_cleanly(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    response = page.goto("/admin/login/")
    assert response is not None and response.ok
    page.wait_for_load_state("load")
    console.assert_clean("on /admin/login/")


RULE_HEADINGS = {
    "classic": ("Ход дилера", "The dealer's turn"),
    "salon": ("Расчёт (ставка понтёра — s)", "Settlement (a ponter's stake is s)"),
    "solo": ("Монеты и банк", "Coins and the bank"),
    "banker36": ("Поединок", "A duel"),
    "blackjack": ("Ваши действия", "Your moves"),
}


def test_the_rules_of_every_variant_in_russian_and_in_english(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    visit(page, console, "/rules/", "rules-index")
    for variant, (russian, _english) in RULE_HEADINGS.items():
        visit(page, console, f"/rules/{variant}/", f"rules-{variant}-ru")
        assert page.get_by_role("heading", name=russian).is_visible()
        # Every variant's rules are one click away from any other's.
        nav = page.get_by_role("navigation", name="Правила вариантов")
        assert nav.get_by_role("link").count() == len(RULE_HEADINGS)

    # The site's language switch turns the rules into English.
    page.get_by_role("button", name="EN").click()
    page.wait_for_load_state("load")
    assert page.locator("html").get_attribute("lang") == "en"
    for variant, (_russian, english) in RULE_HEADINGS.items():
        visit(page, console, f"/rules/{variant}/", f"rules-{variant}-en")
        assert page.get_by_role("heading", name=english).is_visible()


def test_the_chip_statement_links_each_round_to_its_replay(
    daphne_server: Any, transactional_db: None, page: Any, console: Console, settings: Any
) -> None:
    import random

    from accounts.models import User
    from play.services import moves, seating
    from tables import services
    from tests.e2e.test_lobby import sign_in, with_password
    from tests.play.live_helpers import play_game_randomly

    settings.GAME_INTERLUDE_SECONDS = 3600  # one bank to look at
    ann = with_password(User.objects.create_user(username="ann"))
    bob = User.objects.create_user(username="bob")
    table = services.table_create(variant="banker36", name="Банк Анны", stake=10, created_by=ann)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=ann)
    game = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, random.Random(5))

    sign_in(page, "ann")
    visit(page, console, "/chips/", "chips-with-games")
    replays = page.locator("a[data-replay]")
    assert replays.count() >= 1
    assert {replays.nth(i).get_attribute("href") for i in range(replays.count())} == {
        f"/history/{game.pk}/"
    }
    assert "«Банк Анны», игра 1" in replays.first.inner_text()
    # The header leads to the hand history.
    assert page.get_by_role("link", name="История", exact=True).get_attribute("href") == "/history/"
    visit(page, console, "/password/change/", "password-change")
