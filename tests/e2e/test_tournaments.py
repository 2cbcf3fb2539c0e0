"""Tournaments in a real browser, on a 360-px phone: a player registers on the event's
page with its button, and the page keeps the entrants current over the tournament socket
(docs/protocol.md §19) when someone else registers — no reload; and a whole event: the
clock (the embedded ticker, standing in for beat) starts it, the page shows the «стол
готов» notice without a reload, the player taps it, plays the heat at the table and comes
back to the standings.

Screenshots (E2E_SCREENSHOTS=1) go to test-artifacts/tournament-*.png.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.utils import timezone

from accounts.services import WELCOME_GRANT_CHIPS, wallet_for
from tests.e2e.conftest import VIEWPORTS, shoot
from tests.e2e.table_helpers import (
    act,
    chips_in_header,
    make_player,
    player_page,
    quiet_broadcasts,
    settle,
    wait_socket_open,
)
from tournaments.models import Entry, Tournament
from tournaments.services import entry_register, tournament_finish, tournament_registration_open

pytestmark = pytest.mark.e2e

TIMEOUT_MS = 10_000
PHONE = dict(zip(("width", "height"), VIEWPORTS["phone"], strict=True))


# The embedded ticker is the event's clock, as beat is in production: it starts the
# event when its time comes (tournaments-advance, every 5 s). (The environment's
# client-seed wait is no heat's concern: a heat's games deal at once.)
DAPHNE_ENV = "ticker"


def open_event(**fields: Any) -> Tournament:
    """An event taking registrations now, due in an hour: not before the test starts it (the
    server's clock would start it with whoever had registered)."""
    now = timezone.now()
    return tournament_registration_open(
        tournament=Tournament.objects.create(
            registration_opens_at=now,
            starts_at=now + datetime.timedelta(hours=1),
            ends_at=now + datetime.timedelta(hours=2),
            **fields,
        )
    )


def test_a_player_registers_and_sees_a_second_entrant_arrive_live(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    make_player("ann"), make_player("bob")
    event = open_event(
        name="Заезд в браузере",
        variant="blackjack",
        format=Tournament.Format.DUPLICATE,
        buy_in=100,
    )
    context, page, console = player_page(browser, daphne_server.url, "ann", viewport="phone")
    bobs, bob_page, bob_console = player_page(browser, daphne_server.url, "bob")
    try:
        page.goto("/tournaments/")
        settle(page)
        page.get_by_role("link", name="Заезд в браузере").click()
        settle(page)
        page.get_by_role("button", name="Зарегистрироваться за 100").click()
        settle(page)
        assert "Вы зарегистрированы." in page.inner_text("body")
        assert page.locator('[data-player="ann"]').count() == 1
        # The page's socket is open once its first standings arrived; then bob registers
        # in his own browser and ann's page shows him without a reload.
        page.locator("[data-tournament-socket][data-connected]").wait_for(
            state="attached", timeout=TIMEOUT_MS
        )
        bob_page.goto(f"/tournaments/{event.pk}/")
        settle(bob_page)
        bob_page.get_by_role("button", name="Зарегистрироваться за 100").click()
        settle(bob_page)
        page.locator('[data-player="bob"]').wait_for(timeout=TIMEOUT_MS)
        assert "200" in page.locator("[data-pool]").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        shoot(page, "tournament-event-phone")
        console.assert_clean("on the event's page")
        bob_console.assert_clean("on bob's page")
    finally:
        context.close()
        bobs.close()


def test_a_sit_and_go_starts_when_full_and_its_page_leads_to_the_table_on_a_phone(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    make_player("ann")
    bob = make_player("bob")
    event = open_event(
        name="Сит-энд-гоу в браузере",
        variant="banker36",
        format=Tournament.Format.SIT_AND_GO,
        buy_in=100,
        max_entrants=2,
        rounds=1,
        starting_stack=200,
    )
    entry_register(tournament_id=event.pk, player=bob, now=timezone.now())
    context, page, console = player_page(browser, daphne_server.url, "ann", viewport="phone")
    try:
        page.goto(f"/tournaments/{event.pk}/")
        settle(page)
        page.get_by_role("button", name="Зарегистрироваться за 100").click()
        settle(page)
        # The last seat taken: the event runs, and the page leads ann to the shared table.
        link = page.locator("[data-own-table]")
        link.wait_for(timeout=TIMEOUT_MS)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        link.click()
        settle(page)
        assert "/tables/" in page.url
        page.goto(f"/tournaments/{event.pk}/")
        settle(page)
        shoot(page, "tournament-sit-and-go-phone")  # (it checks 360 px: no sideways scroll)
        console.assert_clean("on the sit-and-go's pages")
    finally:
        context.close()


def test_a_running_multi_table_page_fits_a_phone(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    from tournaments.services import tournament_start

    players = [make_player(name) for name in ("ann", "bob", "cat", "dan", "eve")]
    event = open_event(
        name="Многостоловый в браузере",
        variant="banker36",
        format=Tournament.Format.MULTI_TABLE,
        buy_in=100,
        max_entrants=16,
        rounds=3,
        starting_stack=100,
    )
    for player in players:
        entry_register(tournament_id=event.pk, player=player, now=timezone.now())
    tournament_start(tournament=event)
    context, page, console = player_page(browser, daphne_server.url, "ann", viewport="phone")
    try:
        page.goto(f"/tournaments/{event.pk}/")
        settle(page)
        page.locator("[data-own-table]").wait_for(timeout=TIMEOUT_MS)
        assert page.locator("[data-points]").count() == 5
        shoot(page, "tournament-multi-table-phone")  # (it checks 360 px: no sideways scroll)
        console.assert_clean("on the multi-table event's page")
    finally:
        context.close()


# The player's turn with something to do, or the heat's game over.
MY_TURN_OR_OVER = """() => {
    const root = document.getElementById('table-page');
    if (root.dataset.gameStatus === 'finished') return true;
    return root.dataset.seat !== '' && root.dataset.turn === root.dataset.seat
        && root.dataset.busy !== 'true'
        && document.querySelector('#actions [data-action]:not([disabled])') !== null;
}"""


def play_the_heat(page: Any) -> int:
    """Play the heat's game to its end from the table page, as a cautious player does:
    another card below 12, «Хватит» from there. The number of decisions made."""
    for decisions in range(60):
        page.wait_for_function(MY_TURN_OR_OVER, timeout=TIMEOUT_MS)
        if page.locator("#table-page").get_attribute("data-game-status") == "finished":
            return decisions
        hand = page.locator('#game-area .bj-seat.mine .bj-hand[data-active="true"] .total')
        total = int(re.match(r"\d+", hand.inner_text()).group())  # type: ignore[union-attr]
        act(page, "hit" if total < 12 else "stand")
    raise AssertionError("the heat did not end within 60 decisions")


def test_a_phone_player_registers_is_told_the_table_is_ready_plays_the_heat_and_sees_standings(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    now = timezone.now()
    make_player("vera")
    bob = make_player("bob")
    with quiet_broadcasts():
        event = open_event(
            name="Заезд на телефоне",
            variant="blackjack",
            format=Tournament.Format.DUPLICATE,
            buy_in=100,
            rounds=3,
        )
        entry_register(tournament_id=event.pk, player=bob, now=now)
    context, page, console = player_page(browser, daphne_server.url, "vera", viewport="phone")
    try:
        page.goto("/tournaments/")
        settle(page)
        page.get_by_role("link", name="Заезд на телефоне").click()
        settle(page)
        page.get_by_role("button", name="Зарегистрироваться за 100").click()
        settle(page)
        assert "Вы зарегистрированы." in page.inner_text("body")
        page.locator("[data-tournament-socket][data-connected]").wait_for(
            state="attached", timeout=TIMEOUT_MS
        )
        assert page.locator("[data-own-table]").count() == 0

        # Its start falls due; the server's clock starts it and deals every heat. The page
        # learns it over its socket: the notice comes without a reload, at the top of the
        # screen.
        page.evaluate("window.notReloaded = true")
        Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
        ready = page.get_by_role("link", name="Ваш стол готов — играть")
        ready.wait_for(timeout=3 * TIMEOUT_MS)
        assert page.evaluate("window.notReloaded") is True
        vera = Entry.objects.get(tournament=event, player__username="vera")
        assert vera.table_id is not None
        assert ready.get_attribute("href") == f"/tables/{vera.table_id}/"
        box = ready.bounding_box()
        assert box is not None and box["y"] + box["height"] <= VIEWPORTS["phone"][1]
        assert page.locator("[data-status]").get_attribute("data-status") == "running"
        shoot(page, "tournament-table-ready")
        page.set_viewport_size(PHONE)  # shoot() leaves the desktop size

        # The tap opens the heat's table, its game dealt; the player plays it to its end.
        ready.click()
        page.wait_for_url(f"**/tables/{vera.table_id}/", timeout=TIMEOUT_MS)
        wait_socket_open(page)
        assert play_the_heat(page) >= 1
        # Over: the page says where its result is, and offers nothing an entrant cannot do
        # there (no start, «Готов», AI seat, invite or close: the services refuse them).
        status = page.locator("#table-status")
        status.wait_for(state="visible", timeout=TIMEOUT_MS)
        assert status.inner_text() == "Турнирная игра сыграна — итоги на странице турнира."
        assert "Турнирная игра сыграна." in page.locator("#game-area").inner_text()
        controls = set(
            page.locator("#table-controls [data-control]").evaluate_all(
                "(nodes) => nodes.map((node) => node.dataset.control)"
            )
        )
        assert controls <= {"stand", "leave"}, controls
        body = page.inner_text("body")
        for offer in ("Начать игру", "ИИ за столом", "Пригласить друга", "Готов", "Закрыть стол"):
            assert offer not in body, offer
        assert "Шуз кончился: турнирная игра окончена" in page.locator("#log").inner_text()
        # The way back to the event, on screen at the top of a phone's page (the site's
        # menu hides «Турниры» at this width).
        back = page.get_by_role("link", name="Заезд на телефоне")
        assert back.get_attribute("href") == f"/tournaments/{event.pk}/"
        page.evaluate("window.scrollTo(0, 0)")
        box = back.bounding_box()
        assert box is not None and box["y"] >= 0 and box["x"] + box["width"] <= 360
        shoot(page, "tournament-heat-over")  # no sideways scroll at 360 px, checked there
        page.set_viewport_size(PHONE)
        vera.refresh_from_db()
        assert vera.heat_over and not vera.no_show
        # Bob's heat is the clock's to play (he never came): the window's end is not
        # waited for, the event is ended as the clock would end it.
        with quiet_broadcasts():
            tournament_finish(tournament=event)

        # Back on the event's page by the table page's link: the results, the player's
        # place and stack among them.
        back.click()
        page.wait_for_url(f"**/tournaments/{event.pk}/", timeout=TIMEOUT_MS)
        settle(page)
        page.get_by_role("heading", name="Итоги").wait_for(timeout=TIMEOUT_MS)
        assert page.locator("[data-status]").get_attribute("data-status") == "finished"
        assert page.locator("[data-own-table]").count() == 0
        entries = {e.player.username: e for e in Entry.objects.filter(tournament=event)}
        assert entries["vera"].status == Entry.Status.FINISHED
        for name, entry in entries.items():
            row = page.locator(f'tr[data-player="{name}"]')
            cells = [re.sub(r"\D", "", text) for text in row.locator("td").all_inner_texts()]
            assert cells[0] == str(entry.place) and cells[2] == str(entry.stack), (name, cells)
        assert page.locator('tr.mine[data-player="vera"]').count() == 1
        # The header's balance is the wallet's, the prize in it (or the buy-in gone).
        wallet = wallet_for(entries["vera"].player).balance
        assert wallet == WELCOME_GRANT_CHIPS - 100 + entries["vera"].prize
        assert chips_in_header(page) == wallet
        assert page.locator("[data-pool]").inner_text() == "200"  # what the places were paid
        shoot(page, "tournament-standings")
        console.assert_clean("through the whole event")
    finally:
        context.close()
