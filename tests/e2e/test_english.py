"""The site in English, in a real browser: no Russian left in what a player sees.

An English browser (Accept-Language en-US) gets the anonymous pages in English; a Russian
one turns the site English with the header's EN button, then signs up, sees the chips, the
lobby (its rows drawn by the server and redrawn by the lobby socket), the rules, plays a
solo round opened with the lobby's one-click button through the English action buttons,
starts a new game (so that the first one is over) and finds it in the history, replayed
and verified. On every page no Cyrillic is left in the page's text, nor in the attributes
that are read out or shown (aria-label, title, placeholder, alt, data-label), except in
elements marked `lang="ru"`: the language switcher's «Русский» and the Russian terms the
English rules quote on purpose. Every user and table name here is Latin.

Screenshots (360 and 1280 px) go to test-artifacts/ as english-*.png.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.services import WELCOME_GRANT_CHIPS
from play.models import Game
from tables.models import Table
from tests.e2e.conftest import Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    PASSWORD,
    TIMEOUT_MS,
    action_button,
    chips_in_header,
    create_table,
    leave_table,
    log_lines,
    make_player,
    settle,
    wait_idle,
    wait_my_turn,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e


# The page sends its client seed at once, so the deal does not wait for deal_at.
DAPHNE_ENV = "ticker"


# Every text node and read-out attribute with Cyrillic, unless an element inside the page
# marks it lang="ru".
RUSSIAN_LEFT = """() => {
  const cyrillic = /[\\u0400-\\u04FF]/;
  const russian = (element) => {
    const marked = element.closest("[lang]");  // the page's own lang is not an exemption
    return Boolean(marked) && marked !== document.documentElement
      && marked.getAttribute("lang").toLowerCase().startsWith("ru");
  };
  const where = (element) => {
    const id = element.id ? `#${element.id}` : "";
    const cls = element.classList.length ? `.${[...element.classList].join(".")}` : "";
    return `${element.tagName.toLowerCase()}${id}${cls}`;
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, noscript, template")) continue;
    if (cyrillic.test(node.textContent) && !russian(parent)) {
      found.push(`${where(parent)}: ${node.textContent.trim().slice(0, 120)}`);
    }
  }
  const attributes = ["aria-label", "title", "placeholder", "alt", "data-label", "aria-valuetext"];
  for (const element of document.body.querySelectorAll("*")) {
    for (const name of attributes) {
      const value = element.getAttribute(name);
      if (value && cyrillic.test(value) && !russian(element)) {
        found.push(`${where(element)}[${name}]: ${value.slice(0, 120)}`);
      }
    }
  }
  if (cyrillic.test(document.title)) found.push(`title: ${document.title}`);
  return found;
}"""


def assert_english(page: Any, name: str, *, shots: bool = True) -> None:
    """The page is English (html lang, no Russian left), with screenshots, axe and a
    clean console checked by the caller's Console at the end."""
    assert page.locator("html").get_attribute("lang") == "en", name
    left = page.evaluate(RUSSIAN_LEFT)
    assert left == [], f"{name}: Russian text left on the English page:\n" + "\n".join(left)
    if shots:
        shoot(page, f"english-{name}")
        check_accessibility(page, f"english-{name}")


def visit(page: Any, console: Console, path: str, name: str) -> None:
    response = page.goto(path)
    assert response is not None and response.ok, f"{path}: {response and response.status}"
    settle(page)
    assert_english(page, name)
    console.assert_clean(f"on {path}")


def stat(page: Any, name: str) -> int:
    return int(re.sub(r"\D", "", page.locator(f'#game-area [data-stat="{name}"] dd').inner_text()))


def english_context(browser: Any, base_url: str, locale: str) -> tuple[Any, Any, Console]:
    context = browser.new_context(
        base_url=base_url, locale=locale, viewport={"width": 1280, "height": 800}
    )
    page = context.new_page()
    return context, page, Console(page)


def test_an_english_browser_gets_the_anonymous_pages_in_english(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    create_table("salon", name="Evening salon")
    context, page, console = english_context(browser, daphne_server.url, "en-US")
    try:
        visit(page, console, "/", "lobby-anonymous")
        assert page.get_by_role("heading", name="Lobby", exact=True).is_visible()
        row = page.locator("#lobby-tables tbody tr", has_text="Evening salon")
        assert row.locator(".col-variant").inner_text() == "Salon"
        assert row.locator(".why").inner_text() == "Sign in to sit down at a table."
        # The brand in the lead is quoted in Russian on purpose, and marked so.
        assert page.locator('.lead span[lang="ru"]').inner_text() == "«Двадцать одно»"
        visit(page, console, "/login/", "login")
        assert page.get_by_role("button", name="Sign in").is_visible()
        visit(page, console, "/signup/", "signup")
        visit(page, console, "/rules/", "rules-index")
        visit(page, console, "/rules/banker36/", "rules-banker36")
        # The rules quote the Russian game terms, each marked lang="ru".
        assert page.locator('.rules [lang="ru"]').count() >= 3
    finally:
        context.close()


def test_a_player_switches_to_english_and_plays_a_solo_round_without_meeting_russian(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    host = make_player("harold")
    create_table("salon", name="Evening salon", host=host, entry_limit=100)
    # A Russian browser: the site starts in Russian, and the header's EN button switches it.
    context, page, console = english_context(browser, daphne_server.url, "ru-RU")
    try:
        page.goto("/signup/")
        settle(page)
        assert page.locator("html").get_attribute("lang") == "ru"
        assert len(page.evaluate(RUSSIAN_LEFT)) > 10  # the check sees Russian where it is
        assert page.locator(".lang button[value=en]").inner_text() == "EN"
        assert page.locator(".lang button[value=ru]").get_attribute("lang") == "ru"
        # Each language is named in itself, whatever the page's language.
        assert page.locator(".lang button[value=en]").get_attribute("title") == "English"
        assert page.locator(".lang button[value=ru]").get_attribute("title") == "Русский"
        page.get_by_role("button", name="EN").click()
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        assert page.url.endswith("/signup/")  # the switch stays on the page
        settle(page)
        assert page.locator(".lang button[value=en]").get_attribute("aria-current") == "true"
        assert_english(page, "signup-switched")
        console.assert_clean("after switching to English")

        # Sign up through the English form; the chips page greets in English.
        page.get_by_label("Username").fill("wendy")
        page.get_by_label("E-mail").fill("wendy@example.com")
        page.locator("main input[name=password1]").fill(PASSWORD)
        page.locator("main input[name=password2]").fill(PASSWORD)
        page.get_by_role("button", name="Sign up").click()
        page.wait_for_url("**/chips/")
        settle(page)
        assert chips_in_header(page) == WELCOME_GRANT_CHIPS
        welcome = page.locator(".messages li").inner_text()
        assert welcome == (
            f"Welcome! {WELCOME_GRANT_CHIPS:,} chips have been credited to your account."
        )
        assert page.get_by_role("heading", name="Chips").first.is_visible()
        assert_english(page, "chips")
        console.assert_clean("on the chips page")

        # The lobby: its row as the server drew it, then as the lobby socket redraws it.
        page.get_by_role("link", name="Lobby", exact=True).click()
        page.wait_for_url(f"{daphne_server.url}/")
        page.wait_for_function(
            """() => document.getElementById('lobby-live').dataset.state === 'live'
                && [...document.querySelectorAll('#lobby-tables tbody tr')]
                    .every((tr) => tr.__table)""",
            timeout=TIMEOUT_MS,
        )
        assert page.locator("#lobby-live").inner_text().strip() == "Updates live"
        row = page.locator("#lobby-tables tbody tr", has_text="Evening salon")
        assert row.locator(".col-variant").inner_text() == "Salon"
        assert row.locator(".col-status").inner_text() == "Waiting for players"
        assert row.get_by_role("link", name="Sit down at the table “Evening salon”").is_visible()
        page.locator("#open-table summary").click()
        assert page.get_by_label("Private table (invite only)").is_visible()
        assert_english(page, "lobby")
        console.assert_clean("on the lobby")

        # A rules page, and the history (empty so far).
        page.get_by_role("link", name="Rules", exact=True).first.click()
        page.wait_for_url("**/rules/")
        page.get_by_role("link", name="Solo", exact=True).first.click()
        page.wait_for_url("**/rules/solo/")
        settle(page)
        assert page.get_by_role("heading", name="Solo", level=1).is_visible()
        assert_english(page, "rules-solo")
        console.assert_clean("on the solo rules")
        page.get_by_role("link", name="History", exact=True).click()
        page.wait_for_url("**/history/")
        settle(page)
        assert "No played games yet." in page.locator("main").inner_text()
        assert_english(page, "history-empty", shots=False)
        console.assert_clean("on the empty history")

        # The one-click solo table, in English: seated at once, the bet is the first move.
        page.get_by_role("link", name="Lobby", exact=True).click()
        page.wait_for_url(f"{daphne_server.url}/")
        page.get_by_role("button", name="Play: Solo", exact=True).click()
        page.wait_for_url(re.compile(r"/tables/\d+/$"))
        table = Table.objects.get(variant="solo", created_by__username="wendy")
        assert table.name == "wendy's table"  # named in the language of the request
        wait_socket_open(page)
        wait_my_turn(page)
        assert page.locator("#connection").inner_text().strip() == "Connected"
        assert page.locator("#turn").inner_text() == "Your turn"
        bet = action_button(page, "bet")
        assert bet.inner_text().replace("\n", " ").strip() == "Place bet B"
        assert action_button(page, "restart").inner_text().startswith("Start over")
        assert "the same cards again" in action_button(page, "restart").inner_text()
        assert "coins and bank reset" in action_button(page, "new_game").inner_text()
        # Leaving the seat is not “Stand”, the move's word.
        leave = page.locator('#table-controls button[data-control="stand"]')
        assert leave.inner_text() == "Leave seat"
        assert page.locator('#actions button[data-quick="max"]').inner_text() == "Max"
        assert stat(page, "coins") == 1000 and stat(page, "bank") == 300
        assert_english(page, "table-solo-bet")
        console.assert_clean("before the bet")

        page.locator('#actions button[data-quick="50"]').click()
        bet.click()
        wait_idle(page)
        wait_my_turn(page)
        assert stat(page, "bet") == 50
        hit, stand = action_button(page, "hit"), action_button(page, "stand")
        assert hit.inner_text().replace("\n", " ").strip() == "Hit H"
        assert stand.inner_text().replace("\n", " ").strip() == "Stand S"
        assert any("Bet 50, 950 coins left" in line for line in log_lines(page)), log_lines(page)
        assert_english(page, "table-solo-draw")
        console.assert_clean("after the bet")

        # One card more, then stand (unless the card already ended the round).
        hit.click()
        wait_idle(page)
        result = page.locator("#game-area .solo-result")
        page.wait_for_function(
            """() => document.querySelector('#game-area .solo-result') !== null
                || document.querySelector(
                    '#actions button[data-action="stand"]:not([disabled])') !== null""",
            timeout=TIMEOUT_MS,
        )
        if result.count() == 0:
            stand.click()
        result.wait_for(timeout=TIMEOUT_MS)
        game = Game.objects.get(table=table, number=1)
        outcome = game.state["result"]["outcome"]
        who = result.locator(".result-who").inner_text()
        assert who == ("You won" if outcome == "win" else "You lost")
        assert re.fullmatch(r"[+−]\d+ coins?", result.locator(".result-delta").inner_text())
        lines = log_lines(page)
        assert any("You: hit — " in line for line in lines), lines
        assert any(" coins — " in line for line in lines), lines
        assert action_button(page, "next_round").is_visible()
        assert_english(page, "table-solo-result")
        console.assert_clean("after the round")

        # «New game» ends this game (its seed revealed): it is now in the history.
        new_game = action_button(page, "new_game")
        assert new_game.inner_text().startswith("New game")
        new_game.click()
        wait_idle(page)
        page.wait_for_function(
            "() => document.getElementById('table-page').dataset.game === '2'",
            timeout=TIMEOUT_MS,
        )
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and game.server_seed
        assert_english(page, "table-solo-new-game", shots=False)
        console.assert_clean("after the new game")
        leave_table(table.pk, context)
        context = None

        context, page, console = english_context(browser, daphne_server.url, "ru-RU")
        page.goto("/login/")
        page.get_by_role("button", name="EN").click()  # the choice is the browser's cookie
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        page.locator("main input[name=username]").fill("wendy")
        page.locator("main input[name=password]").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/login/" not in url)
        settle(page)
        visit(page, console, "/history/", "history")
        assert page.locator("tr[data-game]").count() == 1
        link = page.get_by_role("link", name=f"Replay and verify: game #1, table “{table.name}”")
        assert link.inner_text() == "Replay and verify"
        link.click()
        page.wait_for_url(f"**/history/{game.pk}/")
        page.wait_for_selector("#replay[data-ready='1']", timeout=TIMEOUT_MS)
        assert page.inner_text("#replay-position").startswith("Step 1 of ")
        page.get_by_role("button", name="Verify", exact=True).click()
        page.wait_for_function(
            "() => document.getElementById('verify-verdict').dataset.verdict",
            timeout=TIMEOUT_MS,
        )
        assert page.get_attribute("#verify-verdict", "data-verdict") == "ok"
        assert page.inner_text("#verify-verdict").startswith("✓ Verified:")
        page.get_by_role("button", name="Forward").click()
        assert_english(page, "history-replay")
        console.assert_clean("on the replay")
    finally:
        if context is not None:
            context.close()
