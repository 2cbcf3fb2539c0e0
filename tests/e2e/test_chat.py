"""The table chat in a real browser (issue 21): a player on a 360-px phone and one at
1280 px at a classic table with a deal in play.

- on the phone the chat is a drawer opened from «Чат»; open, it ends above the action
  bar, whose buttons stay on screen and uncovered (checked geometrically);
- a quick phrase tapped on the phone reaches the other player's side panel;
- a message holding `<script>` is shown as text and runs nothing;
- a message that comes while the drawer is closed counts on its badge;
- «Пожаловаться» on the other's message opens the reasons and files a report through
  /report/ (moderation's, for real), showing its thanks; the report names the message.

Screenshots at 360 and 1280 px go to test-artifacts/chat-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from games import engine
from moderation.models import Report
from play.models import Game
from play.services import moves, seating
from tests.e2e.conftest import ARTIFACTS, check_accessibility, screenshot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    create_table,
    leave_table,
    make_player,
    open_table,
    player_page,
    quiet_broadcasts,
)

pytestmark = pytest.mark.e2e

EDGE_SLACK = 0.5


def _classic_in_play() -> tuple[Any, str, str]:
    """A classic match of two players, dealt: the table, who is on turn, the other."""
    ann, bob = make_player("anya"), make_player("boris")
    table = create_table("classic", name="Чат за столом", host=ann, decision_seconds=60)
    with quiet_broadcasts():
        seating.seat_take(table=table, player=ann)
        seating.seat_take(table=table, player=bob)
        moves.game_start(table=table, by=ann)
    game = Game.objects.get(table=table, status=Game.Status.PLAYING)
    turn = engine.legal_actions(game.state)
    on_turn = game.player_entry(turn["seat"])["user"]
    names = {ann.pk: "anya", bob.pk: "boris"}
    other = next(name for pk, name in names.items() if pk != on_turn)
    return table, names[on_turn], other


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def test_chat_drawer_quick_phrase_escaping_badge_and_report(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    table, phone_name, desk_name = _classic_in_play()
    phone_ctx, phone, phone_console = player_page(
        browser, daphne_server.url, phone_name, viewport="phone"
    )
    desk_ctx, desk, desk_console = player_page(browser, daphne_server.url, desk_name)
    try:
        open_table(phone, table.pk)
        open_table(desk, table.pk)
        # The phone's player is on turn: the action bar is on screen.
        phone.wait_for_selector("#actions button[data-action]", timeout=TIMEOUT_MS)
        # A wide screen shows the chat as a panel, with no drawer handle.
        assert desk.locator("#chat").is_visible()
        assert not desk.locator("#chat-toggle").is_visible()
        # On the phone the chat is closed until «Чат» is tapped.
        assert not phone.locator("#chat").is_visible()
        phone.locator("#chat-toggle").click()
        assert phone.locator("#chat").is_visible()
        chat, dock = _box(phone, "#chat"), _box(phone, ".action-dock")
        assert chat["y"] + chat["height"] <= dock["y"] + EDGE_SLACK, (chat, dock)
        height = phone.viewport_size["height"]
        for button in phone.locator("#actions button[data-action]").all():
            box = button.bounding_box()
            assert box is not None and box["y"] >= chat["y"] + chat["height"] - EDGE_SLACK
            assert box["y"] + box["height"] <= height + EDGE_SLACK
            # Nothing lies over the button: the element at its centre is the button's own.
            centre = phone.evaluate(
                "([x, y]) => document.elementFromPoint(x, y)?.closest('#actions') !== null",
                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
            )
            assert centre, "the drawer covers an action button"

        # A quick phrase in one tap, seen by the other player.
        phone.locator('#chat [data-phrase="good_luck"]').click()
        desk.locator("#chat-log .chat-text", has_text="Удачи!").wait_for(timeout=TIMEOUT_MS)
        line = desk.locator("#chat-log .chat-line").last
        assert line.locator(".chat-author").get_attribute("href") == f"/players/{phone_name}/"

        # Markup stays text.
        desk.evaluate("() => { window.__chatRan = false; }")
        phone.evaluate("() => { window.__chatRan = false; }")
        hostile = "<script>window.__chatRan = true</script><b>жирный</b>"
        desk.locator("#chat-input").fill(hostile)
        desk.locator("#chat-input").press("Enter")
        shown = phone.locator("#chat-log .chat-text", has_text="<script>")
        shown.wait_for(timeout=TIMEOUT_MS)
        assert shown.text_content() == hostile
        assert phone.locator("#chat-log script, #chat-log b").count() == 0
        assert phone.evaluate("() => window.__chatRan") is False
        assert desk.evaluate("() => window.__chatRan") is False

        # The chat alone: the rest of the table page has its own checks.
        check_accessibility(phone, "chat drawer (phone)", context="#chat")
        check_accessibility(desk, "chat panel (desktop)", context="#chat")
        ARTIFACTS.mkdir(exist_ok=True)
        screenshot(phone, ARTIFACTS / "chat-drawer-360x740.png")
        screenshot(desk, ARTIFACTS / "chat-panel-1280x800.png")

        # Closed, the drawer counts what comes in on its badge.
        phone.locator("#chat-close").click()
        assert not phone.locator("#chat").is_visible()
        desk.locator("#chat-input").fill("Ход за тобой")
        desk.locator("#chat-input").press("Enter")
        phone.locator("#chat-unread:not([hidden])").wait_for(timeout=TIMEOUT_MS)
        assert phone.locator("#chat-unread").text_content() == "1"
        phone.locator("#chat-toggle").click()
        assert phone.locator("#chat-unread").is_hidden()

        # «Пожаловаться» on the other's message: the reasons, then moderation's /report/,
        # which files the report with the message as its evidence and thanks the player.
        other_line = phone.locator("#chat-log .chat-line", has_text="Ход за тобой")
        assert phone.locator("#chat-log .chat-line[data-own] .chat-report-open").count() == 0
        other_line.locator(".chat-report-open").click()
        dialog = phone.locator("#chat-report")
        assert dialog.is_visible()
        dialog.locator('input[value="spam"]').check()
        dialog.locator("#chat-report-note").fill("реклама")
        screenshot(phone, ARTIFACTS / "chat-report-360x740.png")
        dialog.locator("[data-report-send]").click()
        phone.locator("#chat-report-status", has_text="Спасибо! Модераторы").wait_for(
            timeout=TIMEOUT_MS
        )
        message_id = int(other_line.get_attribute("data-id"))
        [report] = Report.objects.all()
        assert (report.message_id, report.reason, report.note) == (message_id, "spam", "реклама")
        assert report.reporter.username == phone_name and report.reported.username == desk_name
        assert report.status == Report.Status.OPEN
        dialog.press("Escape")

        # A phone held sideways: the bar stands at the top of the side column; the open
        # drawer still leaves it uncovered.
        phone.set_viewport_size({"width": 844, "height": 390})
        phone.wait_for_function(
            "() => document.querySelector('.table-side .action-dock') !== null",
            timeout=TIMEOUT_MS,
        )
        phone.evaluate("() => window.dispatchEvent(new Event('resize'))")
        assert phone.locator("#chat").is_visible()
        chat, dock = _box(phone, "#chat"), _box(phone, ".action-dock")
        apart = (
            chat["y"] >= dock["y"] + dock["height"] - EDGE_SLACK
            or chat["y"] + chat["height"] <= dock["y"] + EDGE_SLACK
            or chat["x"] >= dock["x"] + dock["width"] - EDGE_SLACK
            or chat["x"] + chat["width"] <= dock["x"] + EDGE_SLACK
        )
        assert apart, (chat, dock)
        screenshot(phone, ARTIFACTS / "chat-drawer-844x390.png")
        phone_console.assert_clean("(phone)")
        desk_console.assert_clean("(desktop)")
    finally:
        leave_table(table.pk, phone_ctx, desk_ctx)
