"""The lobby's «Играть» per variant on a phone: one tap seats the player at the best
table for their chips and lands them on its page (docs/protocol.md §14, quick seat)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.services import chips_adjust, wallet_for
from play.seating import seat_take
from tables.models import Seat
from tables.services import table_create
from tests.e2e.conftest import ARTIFACTS, Console, shoot
from tests.e2e.test_lobby import sign_in, with_password

pytestmark = pytest.mark.e2e

TABLE_PAGE = re.compile(r"/tables/(\d+)/(\?.*)?$")


def _inside(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def test_play_on_a_phone_seats_the_player_at_the_table_their_chips_allow(
    daphne_server: Any, transactional_db: None, make_user: Any, page: Any, console: Console
) -> None:
    alice = with_password(make_user("alice"))
    wallet = wallet_for(alice)
    chips_adjust(
        wallet=wallet, amount=1000 - wallet.balance, memo="e2e", by=None, idempotency_key="e2e"
    )
    dear = table_create(variant="banker36", name="Высокие ставки", stake=100, entry_limit=5000)
    seat_take(table=dear, player=make_user("rich"))
    cheap = table_create(variant="banker36", name="Для всех", stake=10, entry_limit=100)
    seat_take(table=cheap, player=make_user("bob"))
    table_create(variant="salon", name="Салон у Карины", min_bet=10, max_bet=100)
    table_create(variant="classic", name="Классика по вечерам", match_length=7)

    page.set_viewport_size({"width": 360, "height": 640})
    sign_in(page, "alice")
    page.locator('#lobby-live[data-state="live"]').wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lobby-quick-seat-360x640.png"))
    page.locator("section.tables").screenshot(path=str(ARTIFACTS / "lobby-quick-seat-list-360.png"))
    shoot(page, "lobby-quick-seat")  # full pages at 360×740 and 1280×800
    page.set_viewport_size({"width": 360, "height": 640})
    page.evaluate("window.scrollTo(0, 0)")
    # On the phone's first screen: «Открыть стол» and the quick seats.
    assert _inside(page, "#open-table-top")
    assert _inside(page, "#quick-classic")
    # Two lines a table at most (name and seats; variant and stakes), its button beside.
    row = page.locator("#lobby-tables tbody tr", has_text="Для всех")
    line = page.locator("#lobby-tables tbody tr", has_text="Для всех").locator(".col-name")
    assert row.bounding_box()["height"] <= 3 * line.bounding_box()["height"] + 24

    page.set_viewport_size({"width": 360, "height": 640})
    page.locator("#quick-banker36").scroll_into_view_if_needed()
    page.locator("#quick-banker36").click()
    page.wait_for_url(TABLE_PAGE)
    table_id = int(TABLE_PAGE.search(page.url).group(1))
    assert table_id == cheap.pk  # affordable, and with a player waiting
    assert Seat.objects.filter(table=cheap, player=alice).exists()
    assert not Seat.objects.filter(table=dear, player=alice).exists()
    page.wait_for_load_state("networkidle")

    # «Открыть стол» at the top opens the form in place.
    page.goto("/")
    page.locator("#open-table-top").click()
    assert page.locator("#open-table").get_attribute("open") is not None
    assert page.locator("#open-table-form").is_visible()
