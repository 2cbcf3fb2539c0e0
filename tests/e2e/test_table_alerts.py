"""«Ваш ход», even in another tab (static/js/table/alerts.js): when the player's decision
comes while the page is hidden, the tab title flashes and, once the player allowed it with
a click, a notification «Ваш ход — стол N» is shown; the sounds' toggle is off until
clicked and remembered after a reload."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import VIEWPORTS, Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    act,
    create_table,
    log_in,
    make_player,
    open_table,
    wait_my_turn,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e

# The page's visibility under the test's control (a hidden tab, without a second window),
# and every Notification the page constructs (and every permission request) recorded.
RECORD = """
window.__notices = [];
window.__asked = 0;
window.__hidden = sessionStorage.getItem("test-hidden") === "1";
Object.defineProperty(Document.prototype, "hidden", {
  configurable: true, get: () => window.__hidden,
});
Object.defineProperty(Document.prototype, "visibilityState", {
  configurable: true, get: () => (window.__hidden ? "hidden" : "visible"),
});
window.__tones = 0;
window.__vibrations = [];
if (window.AudioContext) {
  const create = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function (...args) {
    window.__tones += 1;
    return create.apply(this, args);
  };
}
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };
if (window.Notification) {
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title, options = {}) {
      window.__notices.push({ title, tag: options.tag, body: options.body });
      super(title, options);
    }
    static requestPermission(...args) {
      window.__asked += 1;
      return Real.requestPermission(...args);
    }
  }
  window.Notification = Recorded;
}
"""


def new_page(browser: Any, base_url: str) -> tuple[Any, Any, Console]:
    width, height = VIEWPORTS["desktop"]
    context = browser.new_context(
        base_url=base_url, locale="ru-RU", viewport={"width": width, "height": height}
    )
    context.grant_permissions(["notifications"])
    context.add_init_script(RECORD)
    page = context.new_page()
    return context, page, Console(page)


def test_a_turn_in_a_hidden_tab_flashes_the_title_and_notifies_once_allowed(
    browser: Any, daphne_server: Any, transactional_db: None
) -> None:
    make_player("alerted")
    table = create_table("solo", name="Стол в фоне")
    context, page, console = new_page(browser, daphne_server.url)
    try:
        log_in(page, "alerted")
        open_table(page, table.pk, sit=True)
        wait_my_turn(page)
        # Nothing is asked on load, and nothing is shown while the page is in view.
        assert page.evaluate("window.__asked") == 0
        assert page.evaluate("window.__notices") == []
        toggle = page.locator("#alert-notify")
        assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
        toggle.click()
        page.wait_for_function(
            "() => document.getElementById('alert-notify').getAttribute('aria-pressed') === 'true'"
        )
        shoot(page, "table-alerts")
        page.set_viewport_size({"width": 1280, "height": 800})
        check_accessibility(page, "table-alerts")

        # The player's turn arrives while the tab is in the background (a reload with the
        # page hidden: its first picture brings the decision).
        page.evaluate("sessionStorage.setItem('test-hidden', '1')")
        page.reload()
        wait_my_turn(page)
        page.wait_for_function("() => document.title === 'Ваш ход'", timeout=5000)
        page.wait_for_function("() => document.title !== 'Ваш ход'", timeout=5000)
        plain = page.title()
        assert "Стол в фоне" in plain
        page.wait_for_function("() => document.title === 'Ваш ход'", timeout=5000)
        notices = page.evaluate("window.__notices")
        assert notices == [
            {
                "title": f"Ваш ход — стол {table.pk}",
                "tag": f"twentyone-table-{table.pk}",
                "body": "Стол в фоне",
            }
        ]

        # Seen again: the flashing stops, the page's own title comes back.
        page.evaluate(
            "() => { window.__hidden = false; sessionStorage.removeItem('test-hidden');"
            " document.dispatchEvent(new Event('visibilitychange')); }"
        )
        assert page.title() == plain
        page.wait_for_timeout(2500)
        assert page.title() == plain
        console.assert_clean()
    finally:
        context.close()


def test_sounds_are_off_until_clicked_and_remembered_after_a_reload(
    browser: Any, daphne_server: Any, transactional_db: None
) -> None:
    make_player("listener")
    table = create_table("solo", name="Стол со звуком")
    context, page, console = new_page(browser, daphne_server.url)
    try:
        log_in(page, "listener")
        open_table(page, table.pk, sit=True)
        sound = page.locator("#alert-sound")
        assert sound.get_attribute("aria-pressed") == "false"
        # Off by default: the turn neither sounds nor vibrates.
        wait_my_turn(page)
        assert page.evaluate("[window.__tones, window.__vibrations.length]") == [0, 0]
        assert page.evaluate("localStorage.getItem('twentyone:alerts:sound')") is None
        sound.click()
        assert sound.get_attribute("aria-pressed") == "true"
        assert page.evaluate("localStorage.getItem('twentyone:alerts:sound')") == "on"
        # With the sounds on, a card dealt is heard (Web Audio notes).
        wait_my_turn(page)
        page.locator('#actions button[data-quick="50"]').click()
        act(page, "bet")
        wait_my_turn(page)
        assert page.evaluate("window.__tones") == 0
        act(page, "hit")
        page.wait_for_function("() => window.__tones > 0", timeout=5000)
        # A reload and nothing more: a second navigation on top of it would abort the reloaded
        # page's variant module while it still loads.
        page.reload()
        wait_socket_open(page)
        assert page.locator("#alert-sound").get_attribute("aria-pressed") == "true"
        # The turn that the reload's first picture brings vibrates (the same toggle).
        wait_my_turn(page)
        page.wait_for_function("() => window.__vibrations.length > 0", timeout=5000)
        page.locator("#alert-sound").click()
        assert page.locator("#alert-sound").get_attribute("aria-pressed") == "false"
        # A reload and nothing more: a second navigation on top of it would abort the reloaded
        # page's variant module while it still loads.
        page.reload()
        wait_socket_open(page)
        assert page.locator("#alert-sound").get_attribute("aria-pressed") == "false"
        console.assert_clean()
    finally:
        context.close()
