"""The statistics page in a real browser: a player's solo games (played through
live play's services, a few rounds each, the last still in play) and a classic match, then
«Статистика» from the site's menu draws both charts of each variant — the running result
with a point per game and the costliest kinds of decision as bars — with real sizes, no
console error and no CSP violation; the lobby's leaderboard then lists the player.

Screenshots at 360 and 1280 px go to test-artifacts/stats-*.png and lobby-skill-*.png.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from accounts.services import player_register
from insights.skill import MIN_DECISIONS
from lobby import services as lobby_services
from play.frames import broadcast
from play.models import Game
from play.services import moves, seating
from tables import services as tables_services
from tests.e2e.conftest import (
    ARTIFACTS,
    SCREENSHOTS,
    VIEWPORTS,
    Console,
    check_accessibility,
    screenshot,
    shoot,
)
from tests.play.live_helpers import play_game_randomly, playing

pytestmark = pytest.mark.e2e

PASSWORD = "Statistika-Parol-2024"
TIMEOUT_MS = 15_000


@pytest.fixture(autouse=True)
def _passwords_daphne_can_check(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_broadcasts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The games are played by live play's services (play/) in this process, where Playwright's loop
    # runs: no page here listens to a table socket, so the frames are not sent at all.

    monkeypatch.setattr(broadcast, "send", lambda *args, **kwargs: None)


def _player(name: str) -> Any:
    return player_register(username=name, email=f"{name}@example.com", password=PASSWORD)


def _goto(page: Any, path: str) -> Any:
    response = page.goto(path)
    page.wait_for_load_state("networkidle")
    return response


def _log_in(page: Any, username: str) -> None:
    _goto(page, "/login/")
    page.locator("main input[name=username]").fill(username)
    page.locator("main input[name=password]").fill(PASSWORD)
    page.locator("main input[name=password]").press("Enter")
    page.wait_for_url(lambda url: "/login/" not in url, timeout=TIMEOUT_MS)
    page.wait_for_load_state("networkidle")


def _act(table: Any, user: Any, **action: Any) -> None:
    moves.game_act(table=table, player=user, action=action, version=None)


def _solo_rounds(table: Any, user: Any, rng: random.Random, rounds: int) -> None:
    """Rounds of the solo game in play: a bet, a draw or two by chance, then a stand."""
    for _ in range(rounds):
        game = playing(table)
        if game is None or game.state["phase"] != "bet":
            return
        _act(table, user, action="bet", amount=rng.choice((5, 10, 25)))
        for move in ("hit", "hit", "stand"):
            game = playing(table)
            if game is None or game.state["phase"] != "draw":
                break
            if move == "hit" and rng.random() < 0.5:
                continue
            _act(table, user, action=move)
        game = playing(table)
        if game is not None and game.state["phase"] == "over" and not game.state["game_over"]:
            _act(table, user, action="next_round")


def _decisions_in(game: Game) -> int:
    """A solo game's decisions: each bet, draw and stand (insights.reviews stores them)."""
    return sum(1 for action in game.actions if action["action"] in ("bet", "hit", "stand"))


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box


def test_the_statistics_page_draws_its_charts_and_the_lobby_ranks_the_player(
    daphne_server: Any, transactional_db: None, settings: Any, page: Any, console: Console
) -> None:
    settings.GAME_INTERLUDE_SECONDS = 3600
    vera, oleg = _player("vera"), _player("oleg")
    rng = random.Random(21)
    table = lobby_services.table_open(by=vera, variant="solo", private=True)
    seating.seat_take(table=table, player=vera)
    ended: list[Game] = []
    # Solo games of a few rounds each, until the finished ones hold enough decisions for
    # a rating (the page reviews them itself); the last game stays in play: it counts on
    # the player's own page.
    while len(ended) < 3 or sum(map(_decisions_in, ended)) < MIN_DECISIONS + 10:
        _solo_rounds(table, vera, rng, 6)
        ended.append(playing(table))
        moves.solo_new_game(table=table, player=vera)
    _solo_rounds(table, vera, rng, 2)
    assert all(game.state["rounds"] for game in ended)
    games_shown = len(ended) + 1
    classic = tables_services.table_create(variant="classic", name="Классика", created_by=vera)
    seating.seat_take(table=classic, player=vera)
    seating.seat_take(table=classic, player=oleg)
    moves.game_start(table=classic, by=vera)
    play_game_randomly(classic, {vera.pk: vera, oleg.pk: oleg}, random.Random(4))

    _log_in(page, "vera")
    page.get_by_role("navigation", name="Разделы").get_by_role("link", name="Статистика").click()
    page.wait_for_url("**/stats/")
    page.wait_for_load_state("networkidle")
    assert page.get_by_role("heading", level=1).inner_text() == "Статистика"

    names = {"solo": "Против банкира", "classic": "Классика"}
    for variant, points in (("solo", games_shown), ("classic", 1)):
        result = f"#chart-result-{variant}"
        box = _box(page, result)
        assert box["width"] > 200 and box["height"] > 100
        assert page.locator(f"{result} circle").count() == points
        assert _box(page, f"{result} polyline")["width"] > 0
        name = f"Итог по играм: {names[variant]}"
        assert page.get_by_role("img", name=name, exact=False).count() == 1
    bars = page.locator("#chart-loss-solo rect")
    assert bars.count() >= 1
    widths = [bars.nth(i).bounding_box()["width"] for i in range(bars.count())]
    assert all(w > 0 for w in widths) and widths == sorted(widths, reverse=True)
    assert page.locator("[data-variant='solo'] [data-figure='skill'] strong").count() == 1
    console.assert_clean("on the statistics page")
    check_accessibility(page, "stats")
    shots = shoot(page, "stats")
    assert all(path.exists() for path in shots) or not SCREENSHOTS
    # At a phone's width the charts shrink with the page and stay drawn.
    width, height = VIEWPORTS["phone"]
    page.set_viewport_size({"width": width, "height": height})
    assert 250 < _box(page, "#chart-result-solo")["width"] <= width
    assert _box(page, "#chart-loss-solo rect")["width"] > 0
    screenshot(page.locator("#stats-solo"), ARTIFACTS / f"stats-solo-{width}.png")
    page.set_viewport_size(dict(zip(("width", "height"), VIEWPORTS["desktop"], strict=True)))

    # The rating earned on the statistics page is on the lobby's leaderboard.
    page.get_by_role("link", name="Лобби", exact=True).click()
    page.wait_for_load_state("networkidle")
    row = page.locator(".board[data-variant='solo'] tr[data-player='vera']")
    assert row.count() == 1 and row.locator("td").first.inner_text() == "1"
    page.locator("#skill-title").scroll_into_view_if_needed()
    check_accessibility(page, "lobby with leaderboard")
    shoot(page, "lobby-skill")
    console.assert_clean("in the lobby")
