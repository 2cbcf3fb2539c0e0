"""The site's pages in a real browser: sign-up, lobby, chips, login; CSP; accessibility.

Screenshots of each page at 360 and 1280 px go to test-artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.services import WELCOME_GRANT_CHIPS
from tables.management.commands.demo_setup import DEMO_TABLES
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
