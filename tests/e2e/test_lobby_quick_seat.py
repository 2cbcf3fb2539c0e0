"""The lobby's «Играть» per variant on a phone: one tap seats the player at the best
table for their chips and lands them on its page (docs/protocol.md §14, quick seat)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.services import chips_adjust, wallet_for
from play.models import Game
from play.services.seating import seat_take
from tables.models import Seat, Table
from tables.services import table_create
from tests.e2e.conftest import ARTIFACTS, Console, screenshot, shoot
from tests.e2e.table_helpers import TIMEOUT_MS, wait_game_playing
from tests.e2e.test_lobby import sign_in, with_password

pytestmark = pytest.mark.e2e


# The ticker deals a started match and plays its AI seat.
DAPHNE_ENV = "one-game"


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
    screenshot(page, ARTIFACTS / "lobby-quick-seat-360x640.png")
    screenshot(page.locator("section.tables"), ARTIFACTS / "lobby-quick-seat-list-360.png")
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


def test_play_classic_alone_opens_a_table_the_newcomer_hosts_adds_an_ai_and_starts(
    demo_tables: str, make_user: Any, page: Any, console: Console
) -> None:
    """A newcomer with `make run`'s demo tables: «Играть: Классика» does not seat them at
    the empty demo table nobody hosts (where they could neither add an AI nor start), but
    at a table of theirs, whose host panel adds an AI and starts the match."""
    with_password(make_user("nadia"))
    demo = Table.objects.get(variant="classic", name="Демо: классика")
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, "nadia")

    page.locator("#quick-classic").click()
    page.wait_for_url(TABLE_PAGE)
    table = Table.objects.get(pk=int(TABLE_PAGE.search(page.url).group(1)))
    assert table != demo and table.created_by.username == "nadia"
    assert not demo.seats.exists()
    status = "Ждём игроков: нужно хотя бы двое — или добавьте ИИ в панели «Ведущий»."
    page.wait_for_function(
        "(text) => document.querySelector('#game-area .classic-status')?.textContent === text",
        arg=status,
        timeout=TIMEOUT_MS,
    )
    panel = page.locator(".classic-host")
    add_ai = panel.locator('[data-command="add_ai"]')
    assert add_ai.is_visible()
    shoot(page, "table-classic-newcomer-alone")

    add_ai.click()
    page.wait_for_function(
        "() => document.querySelectorAll('#seats li[data-seat]').length === 2",
        timeout=TIMEOUT_MS,
    )
    shoot(page, "table-classic-newcomer-with-ai")
    page.set_viewport_size({"width": 360, "height": 740})
    panel.get_by_role("button", name="Начать партию").click()
    wait_game_playing(page)
    assert Game.objects.get(table=table, number=1).is_playing
    console.assert_clean("at the newcomer's own classic table")
