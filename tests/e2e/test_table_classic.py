"""A `classic` match in the browser: the host starts it through the page (choosing the
match length), a decision runs out and the clock bar reaches zero as the server stands for
the player, the round summary shows every hand, the host pauses and resumes, removes a
player, and the final standings are shown.

The deadline ticker runs in daphne (timeouts, the deal after the client-seed window), and
the table's decision clock is the shortest allowed (5 s), so the test waits little.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from games import engine
from play.models import Game
from tables.models import Table
from tests.e2e.conftest import check_accessibility, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    create_table,
    log_lines,
    make_player,
    open_table,
    player_page,
    table_state,
    wait_attr,
    wait_game_playing,
)

pytestmark = pytest.mark.e2e

HOST, GUEST = "vedushchiy", "gost"

# Network latency for the frames that carry a timeout: the decision clock then sits at
# 0:00 for a moment before the server's stand arrives (the server plays a due clock up to
# a second late, and the page redraws its clock four times a second; without the latency
# the two could meet between two redraws and the test would not see the zero). Matched with
# or without a space after the colon: the server's JSON is compact (orjson).
DELAY_TIMEOUT_FRAMES = """
(() => {
  const Native = window.WebSocket;
  class Delayed extends Native {
    addEventListener(type, listener, options) {
      if (type !== "message") return super.addEventListener(type, listener, options);
      return super.addEventListener(type, (event) => {
        if (typeof event.data === "string" && /"timeout":\\s*true/.test(event.data)) {
          setTimeout(() => listener.call(this, event), 700);
        } else {
          listener.call(this, event);
        }
      }, options);
    }
  }
  window.WebSocket = Delayed;
})();
"""

# Every value the decision clock's aria-valuenow took while a given seat was on turn.
RECORD_CLOCK = """
(() => {
  window.__clockSeen = [];
  const watch = () => {
    const clock = document.getElementById("clock");
    const root = document.getElementById("table-page");
    if (!clock || !root) return setTimeout(watch, 50);
    new MutationObserver(() => {
      if (clock.hidden) return;
      window.__clockSeen.push([root.dataset.turn, clock.getAttribute("aria-valuenow")]);
    }).observe(clock, { attributes: true, attributeFilter: ["aria-valuenow"] });
  };
  document.addEventListener("DOMContentLoaded", watch);
})();
"""


DAPHNE_ENV = "quick-rounds"


@pytest.fixture
def pages(daphne_server: Any, transactional_db: None, browser: Any) -> Iterator[dict[str, Any]]:
    host = make_player(HOST)
    make_player(GUEST)
    table = create_table("classic", name="Вечер классики", host=host, decision_seconds=5)
    opened: dict[str, Any] = {"table": table}
    contexts = []
    for name in (HOST, GUEST):
        context, page, console = player_page(browser, daphne_server.url, name)
        page.add_init_script(DELAY_TIMEOUT_FRAMES)
        page.add_init_script(RECORD_CLOCK)
        contexts.append(context)
        opened[name] = (page, console)
    yield opened
    for context in contexts:
        context.close()


def _points(text: str) -> int:
    return int(text.replace("−", "-").replace("+", ""))


def _turn(page: Any) -> str | None:
    return table_state(page)["turn"]


def _wait_turn_or_over(page: Any, seats: tuple[str, ...], timeout: int = TIMEOUT_MS) -> None:
    page.wait_for_function(
        """(seats) => {
            const root = document.getElementById('table-page');
            return seats.includes(root.dataset.turn) || root.dataset.gameStatus !== 'playing';
        }""",
        arg=list(seats),
        timeout=timeout,
    )


def test_the_host_runs_a_match_and_a_decision_runs_out_on_the_clock(pages: dict[str, Any]) -> None:
    table: Table = pages["table"]
    host, host_console = pages[HOST]
    guest, guest_console = pages[GUEST]
    open_table(host, table.pk, sit=True)
    open_table(guest, table.pk, sit=True)
    host.wait_for_function(
        "() => document.querySelectorAll('#seats li[data-seat]').length === 2", timeout=TIMEOUT_MS
    )

    # Only the host has the host's controls.
    panel = host.locator(".classic-host")
    panel.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert guest.locator(".classic-host").count() == 0
    shoot(host, "table-classic-waiting")
    check_accessibility(host, "table-classic-waiting")

    # The header line says the table's match length as the page loaded it.
    for page in (host, guest):
        assert "на очки, партия из 5 раздач" in page.locator(".table-meta").inner_text()

    # The host picks a 7-round match and starts it through the page.
    panel.get_by_role("radio", name="7").check()
    panel.get_by_role("button", name="Начать партию").click()
    wait_game_playing(host)
    wait_game_playing(guest)
    table.refresh_from_db()
    assert table.match_length == 7
    game = Game.objects.get(table=table, number=1)
    assert game.options["rounds"] == 7
    # Both headers follow the table's new length from the frames, without a reload.
    for page in (host, guest):
        page.wait_for_function(
            "() => document.querySelector('.table-meta').textContent.includes('из 7 раздач')",
            timeout=TIMEOUT_MS,
        )
        assert page.locator(".table-meta").inner_text() == "Классика · на очки, партия из 7 раздач"
    host.locator(".classic-round").wait_for(timeout=TIMEOUT_MS)
    # (Round 1, or a later one when the dealer's natural settled the first rounds at once:
    # the shuffle is random, so two or three naturals in a row do happen.)
    round_title = host.locator(".classic-round h3").inner_text()
    assert re.fullmatch(r"Раздача [1-7] из 7", round_title), round_title
    # My own two cards are drawn; the other player's are backs, never codes.
    host.wait_for_function(
        "() => document.querySelectorAll('.classic-round li.mine svg.card[data-card]').length >= 2",
        timeout=TIMEOUT_MS,
    )
    assert host.locator(f'.classic-round li[data-seat="{GUEST}"] svg.card[data-card]').count() == 0
    assert host.locator(f'.classic-round li[data-seat="{GUEST}"] svg.card.back').count() >= 2
    shoot(host, "table-classic-round")
    check_accessibility(host, "table-classic-round")

    # The host stands when on turn; the guest never moves, so their clock runs out.
    end = time.monotonic() + 60
    while True:
        assert time.monotonic() < end, "no decision of the guest's came up"
        _wait_turn_or_over(host, (HOST, GUEST))
        turn = _turn(host)
        if turn == HOST:
            act(host, "stand")  # returns once the frame of the move is shown
            continue
        if turn == GUEST:
            break
        pytest.fail("the match ended before the guest had a decision")

    # The bar runs down to zero on both pages while the guest's decision is open …
    for page in (host, guest):
        page.wait_for_function(
            """(guest) => {
                const root = document.getElementById('table-page');
                const clock = document.getElementById('clock');
                return root.dataset.turn === guest && !clock.hidden
                    && clock.getAttribute('aria-valuenow') === '0'
                    && Number(getComputedStyle(clock).getPropertyValue('--left')) === 0;
            }""",
            arg=GUEST,
            timeout=12_000,
            polling=50,
        )
    seen = host.evaluate("() => window.__clockSeen")
    guest_values = [int(v) for turn, v in seen if turn == GUEST and v is not None]
    assert guest_values and guest_values[0] >= 3 and guest_values[-1] == 0
    assert guest_values == sorted(guest_values, reverse=True), guest_values

    # … and the server stands for them: the page says so, and the record holds a timeout.
    host.wait_for_function(
        "(guest) => document.getElementById('table-page').dataset.turn !== guest",
        arg=GUEST,
        timeout=TIMEOUT_MS,
    )
    host.wait_for_function(
        "() => [...document.querySelectorAll('#log li')]"
        ".some(li => li.innerText.includes('время вышло'))",
        timeout=TIMEOUT_MS,
    )
    assert any(GUEST in line and "время вышло" in line for line in log_lines(host))
    game.refresh_from_db()
    assert {"seat": GUEST, "action": "timeout"} in game.actions

    # The host pauses the match (the host's panel is folded while a match is played): the
    # clocks stop, so nothing moves while the page is compared with the server.
    assert table_state(host)["game_status"] == "playing"
    panel.locator("summary").click()
    panel.get_by_role("button", name="Пауза").click()
    host.wait_for_function(
        "() => document.getElementById('clock').getAttribute('aria-valuetext') === 'пауза'",
        timeout=TIMEOUT_MS,
    )
    game.refresh_from_db()
    assert game.paused_remaining_ms is not None and game.deadline is None

    # The round summary shows every hand of the last settled round: both players' and the
    # dealer's, every card as the server dealt it.
    summary = host.locator(".classic-summary")
    summary.wait_for(timeout=TIMEOUT_MS)
    rounds = game.state["rounds"]
    assert f"Итоги раздачи {len(rounds)}" in summary.locator("h3").inner_text()
    settled = rounds[-1]["hands"]
    assert {h["seat"] for h in settled} == {HOST, GUEST, "dealer"}
    for hand in settled:
        shown = summary.locator(f'li[data-seat="{hand["seat"]}"] svg.card[data-card]')
        codes = shown.evaluate_all("nodes => nodes.map(n => n.dataset.card)")
        assert codes == hand["cards"], (hand, codes)
        if hand["seat"] != "dealer":
            result = summary.locator(f'li[data-seat="{hand["seat"]}"] .hand-result strong')
            assert _points(result.inner_text()) == hand["delta"]
    # The scoreboard agrees with the server's scores.
    scores = engine.view(game.state, None)["scores"]
    for seat in (HOST, GUEST):
        cell = host.locator(f'.classic-scores tr[data-seat="{seat}"] .score').inner_text()
        assert _points(cell) == scores[seat]
    shoot(host, "table-classic-summary")
    check_accessibility(host, "table-classic-summary")
    shoot(guest, "table-classic-guest")

    # Resume: the clock runs again.
    panel.get_by_role("button", name="Продолжить").click()
    host.wait_for_function(
        "() => document.getElementById('clock').getAttribute('aria-valuetext') !== 'пауза'",
        timeout=TIMEOUT_MS,
    )
    game.refresh_from_db()
    assert game.paused_remaining_ms is None and game.deadline is not None

    # The host removes the guest: fewer than two players end the match, without a winner.
    # The list offers the other players, never the host themself.
    offered = panel.locator("#classic-remove-seat option").evaluate_all(
        "os => os.map(o => o.value)"
    )
    assert offered == [GUEST], offered
    panel.get_by_label("Игрок").select_option(GUEST)
    panel.get_by_role("button", name="Удалить игрока").click()
    wait_attr(host, "gameStatus", "finished")
    final = host.locator(".classic-final")
    final.wait_for(timeout=TIMEOUT_MS)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["final"]["winners"] is None
    assert "без победителя" in final.inner_text()
    # The host reads the match's result first; the next match's setup comes below it.
    assert host.evaluate(
        """() => {
            const final = document.querySelector('.classic-final');
            const setup = document.querySelector('.classic-host');
            return Boolean(final && setup
                && (final.compareDocumentPosition(setup) & Node.DOCUMENT_POSITION_FOLLOWING));
        }"""
    )
    assert any(a["action"] == "remove" and a.get("target") == GUEST for a in game.actions)
    shoot(host, "table-classic-final")
    check_accessibility(host, "table-classic-final")

    host_console.assert_clean("on the host's page")
    guest_console.assert_clean("on the guest's page")


def test_between_rounds_the_settled_round_is_shown_first_with_a_countdown_before_the_clock(
    pages: dict[str, Any],
) -> None:
    table: Table = pages["table"]
    host, host_console = pages[HOST]
    guest, guest_console = pages[GUEST]
    open_table(host, table.pk, sit=True)
    open_table(guest, table.pk, sit=True)
    host.wait_for_function(
        "() => document.querySelectorAll('#seats li[data-seat]').length === 2", timeout=TIMEOUT_MS
    )
    panel = host.locator(".classic-host")
    panel.wait_for(state="visible", timeout=TIMEOUT_MS)
    panel.get_by_role("radio", name="7").check()
    panel.get_by_role("button", name="Начать партию").click()
    wait_game_playing(host)

    # Both stand whenever on turn until a stand settles a round and the next is dealt
    # (a dealer's natural may settle rounds at the deal: those have no pause of their own).
    pause = host.locator(".classic-pause")
    end = time.monotonic() + 90
    while not pause.count():
        assert time.monotonic() < end, "no round settled into the next"
        _wait_turn_or_over(host, (HOST, GUEST))
        if pause.count():
            break
        turn = _turn(host)
        if turn not in (HOST, GUEST):
            pytest.fail("the match ended before a stand settled a round into the next")
        act(host if turn == HOST else guest, "stand")

    # The pause: the settled round's summary comes first, with the countdown, and the next
    # round's clock stands still at its whole time.
    text = pause.inner_text()
    assert re.fullmatch(r"Следующая раздача через [1-3] с", text), text
    game = Game.objects.get(table=table, number=1)
    assert game.clock_starts_at is not None
    summary_first = host.evaluate(
        """() => {
            const summary = document.querySelector('.classic-summary');
            const round = document.querySelector('.classic-round');
            return Boolean(summary && round && summary.querySelector('.classic-pause')
                && (summary.compareDocumentPosition(round) & Node.DOCUMENT_POSITION_FOLLOWING));
        }"""
    )
    assert summary_first
    assert host.locator("#clock").get_attribute("data-running") == "false"
    assert host.locator("#clock").get_attribute("aria-valuenow") == "5"
    shoot(host, "table-classic-round-pause")

    # After it the countdown is gone, the round in play comes first and its clock runs.
    host.locator(".classic-pause").wait_for(state="detached", timeout=6_000)
    host.wait_for_function(
        """() => {
            const summary = document.querySelector('.classic-summary');
            const round = document.querySelector('.classic-round');
            const clock = document.getElementById('clock');
            const playing = document.getElementById('table-page').dataset.gameStatus === 'playing';
            return !playing || (round && (!summary
                || (round.compareDocumentPosition(summary) & Node.DOCUMENT_POSITION_FOLLOWING))
                && clock.dataset.running === 'true');
        }""",
        timeout=TIMEOUT_MS,
    )
    host_console.assert_clean("on the host's page")
    guest_console.assert_clean("on the guest's page")
