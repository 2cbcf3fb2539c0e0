"""The social layer in a real browser (issue 21), on a 360-px phone:

- the daily bonus: a broke player sees «Бонус» in the header, claims it, and the header
  shows the new balance with the button gone; the day is counted in the browser's zone;
- a profile, reached from the lobby's leaderboard: its facts, and the replay link for a
  viewer who played in the game.

Screenshots at 360 and 1280 px go to test-artifacts/bonus-*.png and profile-*.png.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from accounts.models import DailyBonusClaim, LedgerEntry
from accounts.services import chips_transfer, escrow_account, wallet_for
from insights import skill
from insights.models import Decision
from play.services import moves, seating
from tests.e2e.conftest import VIEWPORTS, Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    chips_in_header,
    create_table,
    log_in,
    make_player,
    player_page,
    quiet_broadcasts,
)
from tests.play.live_helpers import play_game_randomly

pytestmark = pytest.mark.e2e


def test_a_broke_player_claims_the_bonus_from_the_header_on_a_phone(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    player = make_player("bednyak")
    wallet = wallet_for(player)
    chips_transfer(
        source=wallet,
        destination=escrow_account("escrow:test:bonus"),
        amount=wallet.balance - 120,
        reason=LedgerEntry.Reason.STAKE,
        idempotency_key="spend:bonus",
    )
    width, height = VIEWPORTS["phone"]
    context = browser.new_context(
        base_url=daphne_server.url,
        locale="ru-RU",
        timezone_id="Asia/Vladivostok",
        viewport={"width": width, "height": height},
    )
    try:
        page = context.new_page()
        console = Console(page)
        log_in(page, "bednyak")
        page.goto("/history/")
        bonus = page.get_by_role("button", name="Бонус")
        bonus.wait_for(state="visible")
        assert chips_in_header(page) == 120
        shoot(page, "bonus-header")
        check_accessibility(page, "bonus-header")
        page.set_viewport_size({"width": width, "height": height})

        bonus.click()

        page.wait_for_url("**/history/")
        assert "Ежедневный бонус: +880 фишек" in page.locator(".messages").inner_text()
        assert chips_in_header(page) == 1_000
        assert page.get_by_role("button", name="Бонус").count() == 0  # hidden: taken today
        claim = DailyBonusClaim.objects.get(user=player)
        assert claim.time_zone == "Asia/Vladivostok"  # the browser's, posted by site.js
        shoot(page, "bonus-claimed")
        console.assert_clean("on the bonus")
    finally:
        context.close()


def test_a_profile_reached_from_the_leaderboard_shows_the_facts_and_the_players_replay(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    ann, bob = make_player("ann"), make_player("bob")
    table = create_table("classic", name="Вечерний", host=ann, match_length=5)
    with quiet_broadcasts():
        for player in (ann, bob):
            seating.seat_take(table=table, player=player)
        moves.game_start(table=table, by=ann)
        game = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, random.Random(5))
    Decision.objects.bulk_create(
        Decision(
            game=game,
            user=ann,
            variant="classic",
            seat="ann",
            number=1000 + i,
            round=1,
            situation="total15",
            options=[],
            chosen={},
            best={},
            loss=0.5 * (i % 3),
        )
        for i in range(skill.MIN_DECISIONS)
    )
    context, page, console = player_page(browser, daphne_server.url, "bob", viewport="phone")
    try:
        page.goto("/")
        page.locator('.board[data-variant="classic"]').get_by_role("link", name="ann").click()
        page.wait_for_url("**/players/ann/")
        assert page.get_by_role("heading", level=1).inner_text() == "ann"
        row = page.locator('tr[data-variant="classic"]')
        assert row.locator('[data-figure="games"]').inner_text() == "1"
        assert "±" in row.locator('[data-figure="skill"]').inner_text()
        replay = page.locator(f'tr[data-game="{game.pk}"] a[data-replay]')
        assert replay.inner_text() == "Смотреть и проверить"  # bob played in it
        shoot(page, "profile")
        check_accessibility(page, "profile")
        console.assert_clean("on the profile")
    finally:
        context.close()
