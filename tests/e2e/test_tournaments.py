"""Tournaments in a real browser, on a 360-px phone: a player registers on the event's
page with its button, and the page keeps the entrants current over the tournament socket
(docs/protocol.md §19) when someone else registers — no reload.

Screenshots (E2E_SCREENSHOTS=1) go to test-artifacts/tournament-*.png.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from tests.e2e.conftest import shoot
from tests.e2e.table_helpers import make_player, player_page, settle
from tournaments.models import Tournament
from tournaments.services import entry_register, tournament_registration_open

pytestmark = pytest.mark.e2e

TIMEOUT_MS = 10_000


def test_a_player_registers_and_sees_a_second_entrant_arrive_live(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    now = timezone.now()
    make_player("ann"), make_player("bob")
    event = tournament_registration_open(
        tournament=Tournament.objects.create(
            name="Заезд в браузере",
            variant="blackjack",
            format=Tournament.Format.DUPLICATE,
            registration_opens_at=now,
            starts_at=now + datetime.timedelta(hours=1),
            ends_at=now + datetime.timedelta(hours=2),
            buy_in=100,
        )
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
    now = timezone.now()
    make_player("ann")
    bob = make_player("bob")
    event = tournament_registration_open(
        tournament=Tournament.objects.create(
            name="Сит-энд-гоу в браузере",
            variant="banker36",
            format=Tournament.Format.SIT_AND_GO,
            registration_opens_at=now,
            starts_at=now + datetime.timedelta(hours=1),
            ends_at=now + datetime.timedelta(hours=2),
            buy_in=100,
            max_entrants=2,
            rounds=1,
            starting_stack=200,
        )
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

    now = timezone.now()
    players = [make_player(name) for name in ("ann", "bob", "cat", "dan", "eve")]
    event = tournament_registration_open(
        tournament=Tournament.objects.create(
            name="Многостоловый в браузере",
            variant="banker36",
            format=Tournament.Format.MULTI_TABLE,
            registration_opens_at=now,
            starts_at=now,
            ends_at=now + datetime.timedelta(hours=2),
            buy_in=100,
            max_entrants=16,
            rounds=3,
            starting_stack=100,
        )
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
