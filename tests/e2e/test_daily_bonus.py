"""The daily bonus in a real browser on a 360-px phone (issue 21): a broke player sees
«Бонус» in the header, claims it, and the header shows the new balance with the button
gone; the day is counted in the browser's own time zone.

Screenshots at 360 and 1280 px go to test-artifacts/bonus-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import DailyBonusClaim, LedgerEntry
from accounts.services import chips_transfer, escrow_account, wallet_for
from tests.e2e.conftest import VIEWPORTS, Console, check_accessibility, shoot
from tests.e2e.table_helpers import chips_in_header, log_in, make_player

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
