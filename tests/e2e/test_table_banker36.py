"""The `banker36` table page in three browser contexts: two players sit, say «Готов», and
play the bank's duel with the offered bet buttons; a spectator watches. The spectator's
DOM never holds a card it may not see: every card code it ever drew is one the server
made public, and the ponter's cards are never in it while they are still his own.

Screenshots at 360 and 1280 px go to test-artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from games import engine
from play.models import Game
from tables.models import Table
from tests.e2e.conftest import Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    act,
    create_table,
    dom_cards,
    leave_table,
    make_player,
    open_table,
    player_page,
    press_control,
    table_state,
    wait_attr,
    wait_game_playing,
    wait_my_turn,
    wait_version,
)

pytestmark = pytest.mark.e2e

# Every card code that enters the spectator's DOM, whenever it does (not only at the
# moments the test looks), with the table version the page showed then.
RECORD_CARDS = """
window.__seenCards = [];
new MutationObserver(() => {
  const root = document.getElementById('table-page');
  for (const node of document.querySelectorAll('svg.card[data-card]')) {
    if (!node.__seen) {
      node.__seen = true;
      const version = root ? root.dataset.version : null;
      window.__seenCards.push({card: node.dataset.card, version});
    }
  }
}).observe(document, {subtree: true, childList: true});
"""


# A long interlude: the next bank must not be dealt while the test looks at this one.
DAPHNE_ENV = "one-game"


def private_cards(ponter: Any, seat: str) -> set[str]:
    """The cards of the ponter's own hand, as his page shows them."""
    return set(dom_cards(ponter, f'#game-area .circle-hand[data-seat="{seat}"]'))


def same_version(*pages: Any) -> int:
    version = max(table_state(p)["version"] for p in pages)
    for p in pages:
        wait_version(p, version)
    return version


def test_two_players_duel_with_the_offered_bets_and_the_spectator_sees_no_hidden_card(
    daphne_server: Any, transactional_db: None, browser: Any, page: Any, console: Console
) -> None:
    for name in ("anna", "boris"):
        make_player(name)
    table = create_table("banker36", name="Очко у камина", decision_seconds=60)

    spectator = page  # anonymous: it may watch, never play
    spectator.add_init_script(RECORD_CARDS)
    contexts = []
    players: dict[str, tuple[Any, Console]] = {}
    try:
        for name in ("anna", "boris"):
            context, player, player_console = player_page(browser, daphne_server.url, name)
            contexts.append(context)
            players[name] = (player, player_console)
            open_table(player, table.pk, sit=True)
        open_table(spectator, table.pk)
        assert spectator.locator('#table-controls a[href^="/login/"]').is_visible()

        # Both say «Готов»: the bank is announced, both pages send their client seeds, and
        # it is dealt at once (no wait for deal_at).
        for name in ("anna", "boris"):
            press_control(players[name][0], "ready")
        for p in (*[pl for pl, _ in players.values()], spectator):
            wait_game_playing(p)
        game = Game.objects.get(table=table, number=1)
        assert {entry["seat"] for entry in game.client_seeds} == {"anna", "boris"}
        banker = game.state["banker"]
        ponter_name = "boris" if banker == "anna" else "anna"
        ponter, _ = players[ponter_name]
        banker_page, _ = players[banker]

        # Who holds the bank and its size, for everyone.
        for p in (ponter, banker_page, spectator):
            assert p.locator("#game-area .bank-holder").get_attribute("data-banker") == banker
            assert p.locator("#game-area .bank-size").get_attribute("data-bank") == "10"

        # The bet: one button per offered amount, as the rules engine offers them.
        wait_my_turn(ponter)
        offered = engine.legal_actions(Game.objects.get(pk=game.pk).state)
        assert offered is not None and offered["seat"] == ponter_name
        amounts = next(a["amounts"] for a in offered["actions"] if a["action"] == "bet")
        buttons = ponter.locator("#actions button.bet-offer")
        assert [
            int(buttons.nth(i).get_attribute("data-amount")) for i in range(buttons.count())
        ] == amounts
        assert spectator.locator("#actions button").count() == 0
        same_version(ponter, spectator)
        hidden = private_cards(ponter, ponter_name)
        assert len(hidden) == 1
        assert not hidden & set(dom_cards(spectator))
        assert (
            spectator.locator(
                f'#game-area .circle-hand[data-seat="{ponter_name}"] svg.card.back'
            ).count()
            == 1
        )
        shoot(ponter, "table-banker36-bet")
        check_accessibility(ponter, "table-banker36-bet")
        shoot(spectator, "table-banker36-spectator")
        check_accessibility(spectator, "table-banker36-spectator")

        buttons.first.click()
        wait_my_turn(ponter)
        bet = Game.objects.get(pk=game.pk).state["circle"]["bet"]
        assert bet == amounts[0]
        # The spectator's frame of the bet is its own message: it may come a moment after
        # the ponter's.
        same_version(ponter, spectator)
        assert f"Ставка: {bet}" in spectator.locator("#game-area .duel").inner_text()
        # The ponter reads the duel in the second person, never with his own user name.
        duel_title = ponter.locator("#game-area .duel h3").inner_text()
        assert duel_title.startswith("Ваш поединок с банкиром"), duel_title
        assert ponter_name not in duel_title
        clock = ponter.locator("#clock")
        assert clock.is_visible() and 0 < int(clock.get_attribute("aria-valuenow")) <= 60

        # The ponter's only tab closes while he is to move: everyone sees «ждём игрока»
        # with the time he has left; he comes back in a new tab and plays on.
        ponter.close()
        for p in (spectator, banker_page):
            away = p.locator(f'#seats [data-seat="{ponter_name}"] .away-note')
            away.wait_for(timeout=TIMEOUT_MS)
            assert re.fullmatch(r"ждём игрока, \d:\d\d", away.inner_text()), away.inner_text()
        ponter = contexts[list(players).index(ponter_name)].new_page()
        players[ponter_name] = (ponter, Console(ponter))
        open_table(ponter, table.pk)
        spectator.locator(f'#seats [data-seat="{ponter_name}"] .away-note').wait_for(
            state="detached", timeout=TIMEOUT_MS
        )
        wait_my_turn(ponter)
        assert private_cards(ponter, ponter_name) == hidden

        # One card more, then «Хватит» (unless 21 or a bust ended the draw already).
        act(ponter, "hit")
        same_version(ponter, spectator)
        if (
            table_state(ponter)["game_status"] == "playing"
            and table_state(ponter)["turn"] == ponter_name
        ):
            hidden = private_cards(ponter, ponter_name)
            assert len(hidden) == 2
            assert not hidden & set(dom_cards(spectator))
            shoot(spectator, "table-banker36-duel")
            act(ponter, "stand")

        # The duel settles (the banker draws by himself) and the bank ends.
        for p in (ponter, banker_page, spectator):
            wait_attr(p, "gameStatus", "finished", TIMEOUT_MS)
        finished = Game.objects.get(pk=game.pk)
        duel = finished.result["rounds"][0]
        public = {card for hand in duel["hands"] for card in hand["cards"]}
        seen = spectator.evaluate("window.__seenCards")
        assert seen, "the spectator saw no card at all"
        assert {entry["card"] for entry in seen} <= public
        # The ponter's cards reached the spectator only with the settle that showed them.
        settled_at = Table.objects.get(pk=table.pk).version
        ponter_cards = next(h["cards"] for h in duel["hands"] if h["seat"] == ponter_name)
        for entry in seen:
            if entry["card"] in ponter_cards:
                assert int(entry["version"]) >= settled_at, entry
        text = spectator.locator("#game-area .last-duel").inner_text()
        assert ponter_name in text
        log = " ".join(spectator.locator("#log li").all_inner_texts())
        assert "ставка" in log or "ва-банк" in log
        shoot(spectator, "table-banker36-settled")
        check_accessibility(spectator, "table-banker36-settled")
        for name, (_player, player_console) in players.items():
            player_console.assert_clean(f"({name})")
        console.assert_clean("(the spectator)")
    finally:
        leave_table(table.pk, *contexts, spectator)
