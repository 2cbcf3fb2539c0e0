"""The host closes his table from the table page: «Закрыть стол» in the table controls
asks first (a native <dialog>), then sends `close` (docs/protocol.md §9.8).

- At a `classic` table it closes at once: the page says the table is closed with a link
  back to the lobby, the table is closed in the database, the lobby lists it no more; a
  spectator never had the button and sees the table closed too.
- At a `banker36` table whose bank is in play the close is scheduled: the button gives way
  to the note that the table closes once the stakes in play are settled, and the table
  stays open until then.

Screenshots at 360 and 1280 px go to test-artifacts/.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.models import Table
from tests.e2e.conftest import Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    create_table,
    leave_table,
    make_player,
    open_table,
    player_page,
    press_control,
    wait_attr,
    wait_game_playing,
)

pytestmark = pytest.mark.e2e

CLOSE_BUTTON = '#table-controls button[data-control="close"]'
CLOSING_NOTE = '#table-controls [data-control="closing"]'


# The ticker deals the bank once both seeds are in; a long interlude keeps the next
# bank from being dealt while the test looks.
DAPHNE_ENV = "one-game"


def test_the_host_closes_a_classic_table_with_the_button_after_confirming(
    daphne_server: Any, transactional_db: None, browser: Any, page: Any, console: Console
) -> None:
    host = make_player("hozyain")
    table = create_table("classic", name="Стол на закрытие", host=host)
    spectator = page  # anonymous: it never gets the button
    context, host_page, host_console = player_page(browser, daphne_server.url, "hozyain")
    try:
        open_table(host_page, table.pk, sit=True)
        open_table(spectator, table.pk)
        button = host_page.locator(CLOSE_BUTTON)
        button.wait_for(state="visible", timeout=TIMEOUT_MS)
        assert spectator.locator(CLOSE_BUTTON).count() == 0

        # The button only asks: «Отмена» leaves the table open.
        dialog = host_page.locator("#close-dialog")
        button.click()
        dialog.wait_for(state="visible", timeout=TIMEOUT_MS)
        assert host_page.evaluate("() => document.getElementById('close-dialog').open")
        dialog.get_by_role("button", name="Отмена").click()
        dialog.wait_for(state="hidden", timeout=TIMEOUT_MS)
        table.refresh_from_db()
        assert table.status == Table.Status.OPEN
        assert host_page.locator(CLOSE_BUTTON).is_visible()

        # The question fits a phone screen: both its buttons are within the viewport.
        button.click()
        dialog.wait_for(state="visible", timeout=TIMEOUT_MS)
        shoot(host_page, "table-close-confirm")
        host_page.set_viewport_size({"width": 360, "height": 740})
        for name in ("Отмена", "Закрыть стол"):
            box = dialog.get_by_role("button", name=name).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
        check_accessibility(host_page, "table-close-confirm")
        dialog.get_by_role("button", name="Закрыть стол").click()

        for p in (host_page, spectator):
            wait_attr(p, "tableStatus", "closed")
            status = p.locator("#table-status")
            assert status.inner_text().startswith("Стол закрыт.")
            assert status.locator('a[data-link="lobby"]').get_attribute("href") == "/"
            assert p.locator(CLOSE_BUTTON).count() == 0
        table.refresh_from_db()
        assert table.status == Table.Status.CLOSED
        assert not table.seats.exists()
        shoot(host_page, "table-close-closed")
        host_console.assert_clean("(the host's page)")

        # The link leads back to the lobby, which no longer lists the table (nor among
        # the host's own).
        host_page.locator('#table-status a[data-link="lobby"]').click()
        host_page.wait_for_url(f"{daphne_server.url}/", timeout=TIMEOUT_MS)
        host_page.wait_for_load_state("networkidle")
        assert host_page.locator(f'tr[data-table-id="{table.pk}"]').count() == 0
        assert host_page.locator(f'a[href="/tables/{table.pk}/"]').count() == 0
        host_console.assert_clean("(the lobby)")
        console.assert_clean("(the spectator's page)")
    finally:
        leave_table(table.pk, context, spectator)


def test_at_a_banker36_table_with_a_bank_in_play_the_close_is_scheduled(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    anna = make_player("anna")
    make_player("boris")
    table = create_table("banker36", name="Банк до конца", host=anna, decision_seconds=60)
    contexts = []
    pages: dict[str, tuple[Any, Console]] = {}
    try:
        for name in ("anna", "boris"):
            context, player, player_console = player_page(
                browser, daphne_server.url, name, viewport="phone"
            )
            contexts.append(context)
            pages[name] = (player, player_console)
            open_table(player, table.pk, sit=True)
        host, host_console = pages["anna"]
        guest, guest_console = pages["boris"]
        assert guest.locator(CLOSE_BUTTON).count() == 0
        # One way to start: the guest says «Готов», the host has «Начать игру» alone.
        press_control(guest, "ready")
        assert host.locator('#table-controls [data-control="ready"]').count() == 0
        press_control(host, "start")
        for p in (host, guest):
            wait_game_playing(p)

        # The bank is in play from its first card: the close waits for it.
        host.locator(CLOSE_BUTTON).click(timeout=TIMEOUT_MS)
        dialog = host.locator("#close-dialog")
        dialog.wait_for(state="visible", timeout=TIMEOUT_MS)
        dialog.get_by_role("button", name="Закрыть стол").click()
        note = host.locator(CLOSING_NOTE)
        note.wait_for(state="visible", timeout=TIMEOUT_MS)
        assert note.inner_text() == "Стол закроется, когда ставки в игре будут разыграны"
        assert host.locator(CLOSE_BUTTON).count() == 0
        for p in (host, guest):
            p.locator("#table-status").get_by_text("Ведущий закрыл стол").wait_for(
                timeout=TIMEOUT_MS
            )
        # Only the host's controls say it: the guest had no button to replace.
        assert guest.locator(CLOSING_NOTE).count() == 0
        table.refresh_from_db()
        assert table.closing and table.status == Table.Status.OPEN
        assert host.evaluate("() => document.getElementById('table-page').dataset.tableStatus") == (
            "open"
        )
        shoot(host, "table-close-scheduled")
        host_console.assert_clean("(the host's page)")
        guest_console.assert_clean("(the guest's page)")
    finally:
        leave_table(table.pk, *contexts)
