"""The table page at the moment of a decision, on phones and on a desktop: for every variant
at 360x640, 390x844, landscape 844x390 and 740x360, and 1280x800, the signed-in player's
decision is on screen as the page first shows it — the page is never scrolled by the test.
(On landscape phones the dock with the actions and the clock stands in the side column,
beside the felt: static/js/table/landscape.js.)

At that moment:

1. every legal action button (`#actions button`, visible and enabled) lies entirely inside
   the viewport;
2. so does the decision clock (`#clock`) when it is shown;
3. so do the player's own cards the decision depends on — as each variant's module marks
   them (static/js/table/variants/<variant>.js): solo's `[data-hand=player]`, blackjack's
   `.bj-seat.mine`, classic's and salon's `li.mine`, banker36's `.circle-hand.mine` — and the
   dealer's or banker's face-up cards where the page shows them (the classic and blackjack
   dealer's up-card, the banker36 banker's cards in the duel; solo's banker and salon's
   banker show only backs at that moment, so nothing of theirs is checked then) — and the
   action dock, which sticks over the page at the bottom of a phone's screen, covers none
   of those cards;
4. one of the action buttons can be pressed where it is: a mouse click at the centre of
   its box (no scrolling) is applied — the table version advances and the server records
   the move.

Nothing before the check may scroll either: the table controls («Готов», «Начать игру»,
«Снять колоду») are pressed through the DOM, not with Playwright's scrolling click.

A viewport-sized screenshot of each decision goes to
test-artifacts/phone-decision-<variant>-<w>x<h>.png.

The decision of each variant is its first one for the player: the bet in solo, banker36
and salon (salon's cut comes first, and is made on the way: it shows no cards), hit /
stand in classic and blackjack (beside two AI seats).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from play.models import Game
from play.services import seating
from tables.models import Table
from tests.e2e.conftest import ARTIFACTS, Console, screenshot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    create_table,
    leave_table,
    log_in,
    make_player,
    open_table,
    player_page,
    quiet_broadcasts,
    settle,
    table_state,
)

pytestmark = pytest.mark.e2e

VARIANTS = ("classic", "salon", "solo", "banker36", "blackjack")
SCREENS = ((360, 640), (390, 844), (844, 390), (740, 360), (1280, 800))

# Sub-pixel layout: a box may end a fraction of a pixel past an edge without a pixel of it
# being cut off.
EDGE_SLACK = 0.5

# The button pressed for check 4, the first of these the decision offers (a move of the
# game, never «Завершить сессию» or «Начать заново»).
PRESS_ORDER = ("stand", "bet", "hit")

# Where each variant's module draws the player's own hand, and the dealer's or banker's
# face-up cards (their backs carry no data-card).
OWN_CARDS = {
    "solo": '#game-area [data-hand="player"] svg.card',
    "blackjack": "#game-area .bj-seat.mine svg.card",
    "classic": "#game-area .classic-round li.hand.mine svg.card",
    "banker36": "#game-area .circle-hand.mine svg.card",
    "salon": "#game-area .salon-deal li.hand.mine svg.card",
}
DEALER_CARDS = {
    "solo": '#game-area [data-hand="banker"] svg.card[data-card]',
    "blackjack": "#game-area .bj-dealer svg.card[data-card]",
    "classic": '#game-area .classic-round .hand.dealer[data-seat="dealer"] svg.card[data-card]',
    "banker36": "#game-area .duel .banker-hand svg.card[data-card]",
    "salon": "#game-area .salon-deal li.hand.banker svg.card[data-card]",
}


# The pages send their client seeds at once, so each deal waits for nobody; AI seats
# move quickly; no next game is dealt while a test looks at one.
DAPHNE_ENV = "one-game"


# --- the players' pages ----------------------------------------------------------------------


@dataclass
class Player:
    name: str
    context: Any
    page: Any
    console: Console


def open_player(browser: Any, base_url: str, name: str, size: tuple[int, int]) -> Player:
    """A new context at the viewport `size` (set before any page is loaded), signed in."""
    context, page, console = player_page(browser, base_url)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    log_in(page, name)
    return Player(name, context, page, console)


def press_in_place(page: Any, selector: str) -> None:
    """Press a control through the DOM once it is shown and enabled: unlike Playwright's
    click, this does not scroll the page to it."""
    page.wait_for_function(
        "(s) => { const b = document.querySelector(s);"
        " return b !== null && !b.disabled && b.offsetParent !== null; }",
        arg=selector,
        timeout=TIMEOUT_MS,
    )
    page.eval_on_selector(selector, "b => b.click()")


def ready(player: Player) -> None:
    press_in_place(player.page, '#table-controls button[data-control="ready"]')


# --- each variant up to its players' pages; the decision comes next ---------------------------

Setup = Callable[[Any, str, tuple[int, int]], tuple[Table, list[Player]]]


def setup_solo(browser: Any, url: str, size: tuple[int, int]) -> tuple[Table, list[Player]]:
    # ?sit=1 seats the player; the game is dealt at once, and the bet is the first decision.
    make_player("solist")
    table = create_table("solo", name="Один на один", decision_seconds=60)
    player = open_player(browser, url, "solist", size)
    open_table(player.page, table.pk, sit=True)
    return table, [player]


def setup_blackjack(browser: Any, url: str, size: tuple[int, int]) -> tuple[Table, list[Player]]:
    vera = make_player("vera")
    table = create_table("blackjack", name="Тренировка", decision_seconds=60)
    with quiet_broadcasts():
        seating.seat_take(table=table, player=vera)
        seating.ai_seat_add(table=table, by=vera, level="easy")
        seating.ai_seat_add(table=table, by=vera, level="hard")
    player = open_player(browser, url, "vera", size)
    open_table(player.page, table.pk)
    press_in_place(player.page, '#table-controls button[data-control="start"]')
    return table, [player]


def setup_classic(browser: Any, url: str, size: tuple[int, int]) -> tuple[Table, list[Player]]:
    # The host beside two AI seats (always ready): the host's «Готов» starts the match.
    host = make_player("vedushchiy")
    table = create_table("classic", name="Вечер классики", host=host, decision_seconds=60)
    with quiet_broadcasts():
        seating.seat_take(table=table, player=host)
        seating.ai_seat_add(table=table, by=host, level="easy")
        seating.ai_seat_add(table=table, by=host, level="medium")
    player = open_player(browser, url, "vedushchiy", size)
    open_table(player.page, table.pk)
    ready(player)
    return table, [player]


def setup_banker36(browser: Any, url: str, size: tuple[int, int]) -> tuple[Table, list[Player]]:
    # Two players with their welcome chips; both say «Готов» and the bank is dealt. Who
    # holds it is drawn: the other one's bet is the decision.
    players = []
    table = create_table("banker36", name="Очко у камина", decision_seconds=60)
    for name in ("anna", "boris"):
        make_player(name)
        player = open_player(browser, url, name, size)
        open_table(player.page, table.pk, sit=True)
        players.append(player)
    for player in players:
        ready(player)
    return table, players


def setup_salon(browser: Any, url: str, size: tuple[int, int]) -> tuple[Table, list[Player]]:
    # Two players: the guest says «Готов», the host starts. The seat on the banker's right
    # cuts (on the way, see find_decision), then bets as the ponter, with both of his cards
    # dealt.
    players = []
    host = make_player("anna")
    make_player("boris")
    table = create_table(
        "salon",
        name="Салон",
        host=host,
        min_bet=10,
        max_bet=100,
        entry_limit=100,
        decision_seconds=60,
    )
    for name in ("anna", "boris"):
        player = open_player(browser, url, name, size)
        open_table(player.page, table.pk, sit=True)
        players.append(player)
    # boris says «Готов»; the host, anna, has «Начать игру» (one way to start each).
    ready(players[1])
    press_in_place(players[0].page, '#table-controls button[data-control="start"]')
    return table, players


SETUPS: dict[str, Setup] = {
    "solo": setup_solo,
    "blackjack": setup_blackjack,
    "classic": setup_classic,
    "banker36": setup_banker36,
    "salon": setup_salon,
}

MY_DECISION = """() => {
    const root = document.getElementById('table-page');
    return root.dataset.seat !== '' && root.dataset.turn === root.dataset.seat
        && root.dataset.busy !== 'true'
        && document.querySelector('#actions [data-action]:not([disabled])') !== null;
}"""

OFFERED = """() => [...document.querySelectorAll('#actions [data-action]:not([disabled])')]
    .map((b) => b.dataset.action)"""


def find_decision(players: list[Player], timeout: float = 30.0) -> Player:
    """Wait until one of the players has a decision to make (as wait_my_turn sees it) and
    return them; salon's cut, which shows no cards, is made on the way (through the DOM,
    without scrolling)."""
    end = time.monotonic() + timeout
    while True:
        for player in players:
            page = player.page
            if not page.evaluate(MY_DECISION):
                continue
            if page.evaluate(OFFERED) == ["cut"]:
                version = table_state(page)["version"]
                page.eval_on_selector('#actions button[data-action="cut"]', "b => b.click()")
                page.wait_for_function(
                    "(v) => Number(document.getElementById('table-page').dataset.version) > v",
                    arg=version,
                    timeout=TIMEOUT_MS,
                )
                continue
            return player
        states = {p.name: table_state(p.page) for p in players}
        assert time.monotonic() < end, f"no decision came for any player: {states}"
        time.sleep(0.1)


# --- what is on screen -------------------------------------------------------------------------

# Playwright's "visible": a non-empty box, and not visibility:hidden.
SHOWN = """(el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && el.checkVisibility({visibilityProperty: true});
    }"""

# Every box of the checked elements, read in one go (one frame of the page), relative to the
# viewport as Playwright's bounding_box() is.
MEASURE = """([own, dealer]) => {
    const box = (el) => {
        const r = el.getBoundingClientRect();
        return {x: r.x, y: r.y, w: r.width, h: r.height};
    };
    const shown = SHOWN;
    const label = (el) => (el.innerText || el.getAttribute('aria-label') || '')
        .replace(/\\s+/g, ' ').trim();
    const buttons = [...document.querySelectorAll('#actions button')]
        .filter((b) => shown(b) && !b.disabled)
        .map((b, index) => {
            const data = Object.entries(b.dataset)
                .filter(([k]) => ['action', 'amount', 'quick', 'key'].includes(k))
                .map(([k, v]) => `[data-${k}="${v}"]`).join('');
            return {index, name: `action button${data} «${label(b)}»`,
                    action: b.dataset.action || null, box: box(b)};
        });
    const clock = document.getElementById('clock');
    const cards = (selector, whose) => [...document.querySelectorAll(selector)]
        .map((c, i) => ({name: `${whose} card ${i + 1} (${c.dataset.card || 'back'})`,
                         box: box(c), shown: shown(c)}));
    const dock = document.querySelector('.action-dock');
    return {
        buttons,
        dock: dock ? box(dock) : null,
        clock: clock && !clock.hidden ? {name: '#clock', box: box(clock), shown: shown(clock)}
            : null,
        own: cards(own, 'own'),
        dealer: cards(dealer, "dealer's/banker's"),
        scroll: [window.scrollX, window.scrollY],
        documentSize: [document.documentElement.scrollWidth,
                       document.documentElement.scrollHeight],
    };
}""".replace("SHOWN", SHOWN)


def outside(box: dict[str, float], width: int, height: int) -> list[str]:
    """How a box (x, y, w, h) goes past the viewport's edges; [] when it is inside."""
    x, y, right, bottom = box["x"], box["y"], box["x"] + box["w"], box["y"] + box["h"]
    past = []
    if x < -EDGE_SLACK:
        past.append(f"left {x:g} < 0")
    if right > width + EDGE_SLACK:
        past.append(f"right {right:g} > {width}")
    if y < -EDGE_SLACK:
        past.append(f"top {y:g} < 0")
    if bottom > height + EDGE_SLACK:
        past.append(f"bottom {bottom:g} > {height}")
    return past


def describe(box: dict[str, float]) -> str:
    return f"x={box['x']:g} y={box['y']:g} w={box['w']:g} h={box['h']:g}"


def off_screen(seen: dict[str, Any], width: int, height: int) -> list[str]:
    """Checks 1-3: each checked element that is not entirely inside the viewport."""
    problems = []
    items = [*seen["buttons"], *([seen["clock"]] if seen["clock"] else []), *seen["own"]]
    items += seen["dealer"]
    for item in items:
        if item.get("shown") is False:
            problems.append(f"{item['name']}: not shown ({describe(item['box'])})")
            continue
        past = outside(item["box"], width, height)
        if past:
            problems.append(f"{item['name']}: {describe(item['box'])} — {', '.join(past)}")
    # The action dock sticks over the page at the bottom of a phone's screen: it must cover
    # none of the cards the decision depends on.
    dock = seen["dock"]
    for item in [*seen["own"], *seen["dealer"]]:
        if dock and dock["h"] > 0 and overlap(item["box"], dock):
            problems.append(
                f"{item['name']}: {describe(item['box'])} — under the action dock"
                f" ({describe(dock)})"
            )
    return problems


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share more than a sub-pixel sliver."""
    return (
        a["x"] + a["w"] > b["x"] + EDGE_SLACK
        and b["x"] + b["w"] > a["x"] + EDGE_SLACK
        and a["y"] + a["h"] > b["y"] + EDGE_SLACK
        and b["y"] + b["h"] > a["y"] + EDGE_SLACK
    )


def press_where_it_is(
    player: Player, table: Table, seen: dict[str, Any], size: tuple[int, int]
) -> str | None:
    """Check 4: click one of the action buttons at the centre of its box with the mouse
    (no scrolling), and wait until the move is applied. The problem found, or None."""
    page = player.page
    by_action: dict[str, dict[str, Any]] = {}
    for button in seen["buttons"]:  # the first button of an action (banker36 offers several bets)
        if button["action"]:
            by_action.setdefault(button["action"], button)
    choice = next((by_action[a] for a in PRESS_ORDER if a in by_action), None)
    if choice is None:
        return f"none of {PRESS_ORDER} is offered: {[b['name'] for b in seen['buttons']]}"
    box = choice["box"]
    if outside(box, *size):
        return f"{choice['name']} cannot be pressed without scrolling: {describe(box)}"
    x, y = box["x"] + box["w"] / 2, box["y"] + box["h"] / 2
    hit = page.evaluate(
        """([x, y, index]) => {
            const target = document.elementFromPoint(x, y);
            const shown = SHOWN;
            const button = [...document.querySelectorAll('#actions button')]
                .filter((b) => shown(b) && !b.disabled)[index];
            return button && button.contains(target) ? null
                : (target ? target.outerHTML.slice(0, 120) : 'nothing');
        }""".replace("SHOWN", SHOWN),
        [x, y, choice["index"]],
    )
    if hit is not None:
        return f"{choice['name']} at ({x:g}, {y:g}) is covered by {hit}"
    before = table_state(page)
    page.mouse.click(x, y)
    try:
        page.wait_for_function(
            """([version, seat]) => {
                const root = document.getElementById('table-page');
                return Number(root.dataset.version) > version
                    || (root.dataset.turn !== seat && root.dataset.busy !== 'true');
            }""",
            arg=[before["version"], before["seat"]],
            timeout=TIMEOUT_MS,
        )
    except PlaywrightTimeout:
        return (
            f"the click on {choice['name']} at ({x:g}, {y:g}) was not applied: the page stayed"
            f" at version {before['version']}, turn {before['turn']}"
        )
    game = Game.objects.filter(table=table).order_by("-number").first()
    moves = [(a.get("seat"), a.get("action")) for a in (game.actions if game else [])]
    if (before["seat"], choice["action"]) not in moves:
        return (
            f"the click on {choice['name']} advanced the page, but the game holds no such"
            f" move: {moves}"
        )
    return None


@pytest.fixture
def players(
    request: pytest.FixtureRequest, daphne_server: Any, transactional_db: None, browser: Any
) -> Iterator[tuple[Table, list[Player], tuple[int, int]]]:
    variant, size = request.param
    table, opened = SETUPS[variant](browser, daphne_server.url, size)
    yield table, opened, size
    leave_table(table.pk, *(p.context for p in opened))


# The first own card's width, the gap of its row, and the widest that row may grow to: the
# felt's content width less every padding and border between it and the row (a hand's box
# shrinks to its cards, so its own width says nothing about a fifth card).
FIVE_CARDS = """(selector) => {
  const card = document.querySelector(selector);
  if (!card) return null;
  const row = card.closest(".cards") || card.parentElement;
  const area = document.getElementById("game-area");
  const side = (el) => {
    const s = getComputedStyle(el);
    return ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"]
      .reduce((sum, key) => sum + (parseFloat(s[key]) || 0), 0);
  };
  let room = area.getBoundingClientRect().width;
  for (let el = row; el && el !== area.parentElement; el = el.parentElement) room -= side(el);
  const gap = parseFloat(getComputedStyle(row).columnGap) || 0;
  return { card: card.getBoundingClientRect().width, gap, row: room };
}"""


# The card zoom (static/js/table/zoom.js), pressed through the DOM and read in one go: the
# first own card's width at 100 %, after «+» (110 %) and after «−» (100 % again); and whether
# the control sits inside the felt. The scroll position is put back as it was, in case the
# browser's scroll anchoring moved it while the cards grew.
ZOOMED = """(selector) => {
  const width = () => document.querySelector(selector).getBoundingClientRect().width;
  const y = window.scrollY;
  const zoom = document.getElementById("table-zoom");
  const widths = [width()];
  zoom.querySelector('[data-key="zoom-in"]').click();
  widths.push(width());
  zoom.querySelector('[data-key="zoom-out"]').click();
  widths.push(width());
  window.scrollTo(window.scrollX, y);
  return { widths, onFelt: Boolean(zoom.closest("#game-area")),
           zoom: document.getElementById("table-page").dataset.zoom };
}"""


CASES = [(variant, size) for variant in VARIANTS for size in SCREENS]


@pytest.mark.parametrize(
    "players",
    CASES,
    ids=[f"{variant}-{w}x{h}" for variant, (w, h) in CASES],
    indirect=True,
)
def test_at_a_decision_every_action_the_clock_and_the_hand_are_on_screen_and_pressable(
    players: tuple[Table, list[Player], tuple[int, int]],
) -> None:
    table, opened, (width, height) = players
    variant = table.variant
    where = f"{variant} at {width}x{height}"

    player = find_decision(opened)
    page = player.page
    settle(page)
    # Two frames: whatever the last frame of the table changed is laid out and painted.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"phone-decision-{variant}-{width}x{height}.png"
    screenshot(page, shot, full_page=False)

    seen = page.evaluate(MEASURE, [OWN_CARDS[variant], DEALER_CARDS[variant]])
    # What the page must show for the check to mean anything: a setup problem, not layout.
    assert seen["buttons"], f"{where}: {player.name}'s decision shows no action button"
    assert seen["own"], f"{where}: {player.name}'s own cards are not drawn ({OWN_CARDS[variant]})"

    # The card zoom acts on the player's own hand in every variant, from outside the felt.
    zoomed = page.evaluate(ZOOMED, OWN_CARDS[variant])
    at_100, at_110, back = zoomed["widths"]
    assert not zoomed["onFelt"], f"{where}: the card zoom sits on the felt"
    assert at_110 == pytest.approx(at_100 * 1.1, rel=0.02), (
        f"{where}: «+» on the card zoom made the own card {at_110:.1f} px from {at_100:.1f} px"
    )
    assert back == pytest.approx(at_100, rel=0.01) and zoomed["zoom"] == "100", zoomed

    problems = off_screen(seen, width, height)
    if width < height and width < 900:
        # On a portrait phone the site header is one slim row: brand, balance and language.
        header = page.evaluate(
            "() => document.querySelector('.site-header').getBoundingClientRect().height"
        )
        if header > 48:
            problems.append(f"the site header is {header:g} px high, not one slim row")
    pressed = press_where_it_is(player, table, seen, (width, height))
    if pressed:
        problems.append(f"pressing: {pressed}")
    assert not problems, (
        f"{where}: {player.name}'s decision is not all on screen without scrolling"
        f" (viewport 0,0–{width},{height}; page scrolled to {seen['scroll']},"
        f" document {seen['documentSize'][0]}x{seen['documentSize'][1]}; screenshot {shot}):\n  "
        + "\n  ".join(problems)
    )
    if width == 360:
        # At 100 % zoom five cards of the player's hand fit one row of its container.
        fit = page.evaluate(FIVE_CARDS, OWN_CARDS[variant])
        assert fit, f"{where}: no own card to measure ({OWN_CARDS[variant]})"
        assert 5 * fit["card"] + 4 * fit["gap"] <= fit["row"] + EDGE_SLACK, (
            f"{where}: five cards of {fit['card']:.1f} px with gaps of {fit['gap']:.1f} px"
            f" do not fit the hand's row of {fit['row']:.1f} px"
        )
    for each in opened:
        each.console.assert_clean(f"({where}, {each.name})")
