"""classic's shared screen for a TV: public information only, in large type, with a QR
code (an SVG from our own origin) for phones to join.

The TV here is signed in as the host, who is seated and playing: the screen must still
never hold one of the host's hidden cards (it watches with `?view=spectator`).
"""

from __future__ import annotations

import io
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import segno

from games import engine
from play.models import Game
from tables.models import Table
from tests.e2e.conftest import check_accessibility, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    create_table,
    make_player,
    open_table,
    player_page,
    table_state,
    wait_game_playing,
)
from tests.play.ws_play import card_tokens

pytestmark = pytest.mark.e2e

HOST, GUEST = "khozyain", "gostya"


DAPHNE_ENV = "quick-rounds"


@pytest.fixture
def contexts(daphne_server: Any, transactional_db: None, browser: Any) -> Iterator[dict[str, Any]]:
    host = make_player(HOST)
    make_player(GUEST)
    table = create_table("classic", name="Телевизор", host=host, decision_seconds=60)
    opened: dict[str, Any] = {"table": table, "server": daphne_server}
    made = []
    for key, name in (("host", HOST), ("guest", GUEST), ("tv", HOST)):
        context, page, console = player_page(browser, daphne_server.url, name)
        made.append(context)
        opened[key] = (page, console)
    yield opened
    for context in made:
        context.close()


def _screen_cards(tv: Any) -> list[str]:
    codes: list[str] = tv.eval_on_selector_all(
        "#screen svg.card[data-card]", "nodes => nodes.map(n => n.dataset.card)"
    )
    return codes


def _assert_public_only(tv: Any, table: Table) -> None:
    """Every card on the screen is one a spectator may see now (copy for copy), and none
    of the seated host's own hidden cards is there.

    The screen is first brought to the table's current version: nobody else moves while
    the test checks, so the screen and the database then hold the same state. Compared
    while the screen lagged, a settled round's cards (public when the screen drew them)
    could look like a leak once a later round had replaced them as the last round."""
    table.refresh_from_db(fields=["version"])
    _wait_screen_version(tv, table.version)
    game = Game.objects.filter(table=table).order_by("-number").first()
    assert game is not None
    shown = Counter(_screen_cards(tv))
    public = Counter(card_tokens(engine.view(game.state, None)))
    assert not shown - public, f"cards on the screen that a spectator may not see: {shown - public}"
    if game.status == Game.Status.PLAYING and game.state["hands"].get(HOST):
        own = set(game.state["hands"][HOST])
        last = {
            c
            for hand in (game.state["rounds"][-1:] or [{"hands": []}])[0]["hands"]
            for c in hand["cards"]
        }
        assert not (own - last) & set(shown), "the host's hidden cards are on the screen"


def _wait_screen_version(tv: Any, version: int) -> None:
    tv.wait_for_function(
        "(v) => Number(document.getElementById('screen').dataset.version) >= v",
        arg=version,
        timeout=TIMEOUT_MS,
    )


def test_the_shared_screen_shows_public_information_and_a_qr_code_to_join(
    contexts: dict[str, Any],
) -> None:
    table: Table = contexts["table"]
    server = contexts["server"]
    host, host_console = contexts["host"]
    guest, guest_console = contexts["guest"]
    tv, tv_console = contexts["tv"]
    open_table(host, table.pk, sit=True)
    open_table(guest, table.pk, sit=True)

    # The TV (signed in as the seated host) opens the screen.
    response = tv.goto(f"/tables/{table.pk}/screen/")
    assert response is not None and response.ok
    tv.wait_for_function(
        "() => document.getElementById('screen').dataset.state === 'open'"
        " && Number(document.getElementById('screen').dataset.version) >= 0",
        timeout=TIMEOUT_MS,
    )
    assert tv.locator("#screen-seats li[data-seat]").count() == 2

    # The QR code: an image from our own origin, an SVG that encodes the join address.
    join = f"{server.url}/tables/{table.pk}/?sit=1"
    qr = tv.locator("#screen-qr")
    tv.wait_for_function(
        "() => document.getElementById('screen-qr').complete"
        " && document.getElementById('screen-qr').naturalWidth > 0",
        timeout=TIMEOUT_MS,
    )
    src = qr.evaluate("img => img.src")
    assert src.startswith(f"{server.url}/")
    image = tv.request.get(src)
    assert image.ok and image.headers["content-type"] == "image/svg+xml"
    expected = io.BytesIO()
    segno.make(join, error="m").save(
        expected, kind="svg", scale=8, border=4, dark="#000", light="#fff", omitsize=True
    )
    assert image.body() == expected.getvalue()
    assert tv.locator(".screen-url a").get_attribute("href") == join
    assert join in (qr.get_attribute("alt") or "")
    shoot(tv, "screen-waiting")
    check_accessibility(tv, "screen-waiting")

    # The host starts a match from the table page; the screen follows it.
    panel = host.locator(".classic-host")
    panel.get_by_role("radio", name="5").check()
    panel.get_by_role("button", name="Начать партию").click()
    wait_game_playing(host)
    tv.wait_for_function(
        "() => document.getElementById('screen').dataset.gameStatus === 'playing'",
        timeout=TIMEOUT_MS,
    )
    tv.locator("#screen .classic-round").wait_for(timeout=TIMEOUT_MS)
    _wait_screen_version(tv, table_state(host)["version"])
    # The host's own page shows her cards; the TV, in the same account, shows backs.
    host.wait_for_function(
        "() => document.querySelectorAll('.classic-round li.mine svg.card[data-card]').length >= 2",
        timeout=TIMEOUT_MS,
    )
    assert tv.locator(f'#screen li[data-seat="{HOST}"] svg.card.back').count() >= 2
    _assert_public_only(tv, table)
    # Large type for a room: the status line is big at a desktop width.
    size = tv.evaluate(
        "() => parseFloat(getComputedStyle(document.getElementById('screen-status')).fontSize)"
    )
    assert size >= 32, size
    assert not tv.locator("#screen-clock").is_hidden()
    shoot(tv, "screen-round")
    check_accessibility(tv, "screen-round")

    # Both players stand whenever on turn, until the first round is settled: the screen
    # then reveals every hand of it, as the round summary does.
    pages = {HOST: host, GUEST: guest}
    end = time.monotonic() + 40
    while not tv.locator("#screen .classic-summary").count():
        assert time.monotonic() < end, "the round did not settle"
        turn = table_state(host)["turn"]
        if turn in pages and table_state(pages[turn])["turn"] == turn:
            act(pages[turn], "stand")
            _assert_public_only(tv, table)
        tv.wait_for_timeout(100)
    _wait_screen_version(tv, table_state(host)["version"])
    game = Game.objects.get(table=table, number=1)
    settled = game.state["rounds"][-1]["hands"]
    summary = tv.locator("#screen .classic-summary")
    for hand in settled:
        codes = summary.locator(f'li[data-seat="{hand["seat"]}"] svg.card[data-card]').evaluate_all(
            "nodes => nodes.map(n => n.dataset.card)"
        )
        assert codes == hand["cards"]
    assert tv.locator("#screen-scores .classic-scores tbody tr").count() == 2
    _assert_public_only(tv, table)
    shoot(tv, "screen-summary")
    check_accessibility(tv, "screen-summary")

    host_console.assert_clean("on the host's page")
    guest_console.assert_clean("on the guest's page")
    tv_console.assert_clean("on the shared screen")
