"""Friends, invites and blocks in a real browser (issue 21), on a 360-px phone and at
1280 px: the lobby's friends panel names the public table a friend is at (their table
page is open over a real socket) and shows an invite to a private table, whose «Сесть»
seats the friend; a profile's buttons add a friend and block.

Screenshots go to test-artifacts/friends-panel-*.png, friends-page-*.png,
profile-buttons-*.png and table-invite-*.png.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from people.blocks import blocked_ids
from people.friends import friend_request_accept, friend_request_send, invite_send
from play.models import Presence
from tests.e2e.conftest import check_accessibility, shoot
from tests.e2e.table_helpers import (
    create_table,
    make_player,
    open_table,
    player_page,
    settle,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e


def befriend(a: Any, b: Any) -> None:
    friend_request_send(sender=a, recipient=b)
    friend_request_accept(recipient=b, sender=a)


def test_the_lobby_shows_a_friend_at_a_public_table_and_an_invite_that_seats(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    ann, bob, hal = make_player("ann"), make_player("bob"), make_player("hal")
    make_player("cid")
    befriend(ann, bob)
    befriend(hal, ann)
    friend_request_send(sender=make_player("dan"), recipient=ann)
    public = create_table("classic", name="Общий", host=hal)
    private = create_table("classic", name="Свои", host=hal, private=True)
    invite_send(sender=hal, recipient=ann, table=private)
    bobs, bob_page, bob_console = player_page(browser, daphne_server.url, "bob")
    context, page, console = player_page(browser, daphne_server.url, "ann", viewport="phone")
    try:
        open_table(bob_page, public.pk, sit=True)
        bob_console.assert_clean("at the public table")
        page.goto("/")
        settle(page)
        panel = page.locator("#friends-panel")
        friend = panel.locator('[data-friend="bob"]')
        assert "«Общий»" in friend.inner_text()
        assert friend.get_by_role("link", name="Сесть").get_attribute("href") == (
            f"/tables/{public.pk}/?sit=1"
        )
        assert friend.get_by_role("link", name="Смотреть").count() == 1
        assert friend.get_by_role("link", name="bob").get_attribute("href") == "/players/bob/"
        assert "dan" in panel.locator("[data-request-from]").inner_text()
        invite = panel.locator("[data-invite]")
        assert "hal" in invite.inner_text() and "«Свои»" in invite.inner_text()
        shoot(page, "friends-panel")
        check_accessibility(page, "friends-panel")
        # bob leaves the table: the panel, refreshed from the server (as every 30 s, and
        # whenever the tab comes back into view), no longer names it. bob opened the lobby
        # as he signed in, so he is still online there.
        bobs.close()
        # The panel's refresh reads bob's connections: ask for it once daphne has let go of
        # them, not while his closing socket may still be counted.
        deadline = time.monotonic() + 10
        while Presence.objects.filter(user=bob).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        page.wait_for_function(
            """() => {
                const friend = document.querySelector('#friends-panel [data-friend="bob"]');
                return friend && !friend.textContent.includes('Общий');
            }""",
            timeout=10_000,
        )
        assert "в сети" in panel.locator('[data-friend="bob"]').inner_text()

        invite.get_by_role("link", name="Сесть").click()
        page.wait_for_url(f"**/tables/{private.pk}/**")
        wait_socket_open(page)
        page.wait_for_function(
            "() => document.getElementById('table-page').dataset.seat !== ''", timeout=10_000
        )
        # Seat names link to the players' profiles.
        page.locator("#seats a.seat-name", has_text="ann").wait_for()
        assert page.locator("#seats a.seat-name", has_text="ann").get_attribute("href") == (
            "/players/ann/"
        )
        # A seated guest may invite a friend of theirs (bob) in turn.
        page.reload()
        wait_socket_open(page)
        page.locator("#table-invite summary").click()
        assert page.locator("#invite-friend option").all_inner_texts() == ["bob", "hal"]
        shoot(page, "table-invite")
        console.assert_clean("on the lobby and the invite")
    finally:
        context.close()
        bobs.close()


def test_profile_buttons_add_a_friend_and_block(
    daphne_server: Any, transactional_db: None, browser: Any
) -> None:
    ann, cid = make_player("ann"), make_player("cid")
    context, page, console = player_page(browser, daphne_server.url, "ann", viewport="phone")
    try:
        page.goto("/players/cid/")
        settle(page)
        actions = page.locator("#profile-actions")
        assert actions.get_by_role("link", name="Пожаловаться").get_attribute("href") == (
            "/report/?player=cid"
        )
        shoot(page, "profile-buttons")
        check_accessibility(page, "profile-buttons")
        actions.get_by_role("button", name="Добавить в друзья").click()
        page.wait_for_url("**/players/cid/")
        assert "Заявка отправлена игроку cid." in page.locator(".messages").inner_text()
        assert "Заявка отправлена" in page.locator("#profile-actions").inner_text()
        page.locator("#profile-actions").get_by_role("button", name="Заблокировать").click()
        page.wait_for_url("**/players/cid/")
        assert page.locator("#profile-actions").get_by_role("button", name="Разблокировать").count()
        assert blocked_ids(ann.pk) == {cid.pk}
        # The block ended the request: the friend button is back once unblocked.
        page.locator("#profile-actions").get_by_role("button", name="Разблокировать").click()
        page.wait_for_url("**/players/cid/")
        actions = page.locator("#profile-actions")
        assert actions.get_by_role("button", name="Добавить в друзья").count()
        page.goto("/friends/")
        settle(page)
        page.locator("#add-friend-name").fill("cid")
        page.get_by_role("button", name="Отправить заявку").click()
        page.wait_for_url("**/friends/")
        assert page.locator('#outgoing [data-request-to="cid"]').count() == 1
        shoot(page, "friends-page")
        check_accessibility(page, "friends-page")
        console.assert_clean("on the profile and the friends page")
    finally:
        context.close()
