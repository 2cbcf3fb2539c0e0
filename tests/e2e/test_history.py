"""The hand history in a real browser: a real banker36 bank played to its end, its replay
stepped through with the buttons and the keys, and «Проверить» re-deriving the shuffle
with Web Crypto — ✓ for the real keys, ✗ for a changed one. The JavaScript port of the
shuffle is compared with games.shuffle, bit for bit.

Screenshots at 360 and 1280 px go to test-artifacts/history-*.png.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from accounts.services import player_register
from games import fairness as fair
from games.cards import shoe as fresh_stock
from games.shuffle import SeedStream, draw_lot, shuffled
from history.replays import DECK_OF, replay
from insights.models import Decision
from play.frames import broadcast
from play.models import Game
from play.services import moves, seating
from tables import services
from tests.e2e.conftest import Console, check_accessibility, shoot
from tests.play.live_helpers import play_game_randomly, play_step, playing

pytestmark = pytest.mark.e2e

PASSWORD = "Istoriya-Parol-2024"
TIMEOUT_MS = 15_000


@pytest.fixture(autouse=True)
def _no_broadcasts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The games are played by live play's services (play/) in this process, where Playwright's loop
    # runs: channels' async_to_sync cannot send from here, and no page here listens to a
    # table socket, so the frames are not sent at all (instead of logging each failure).

    monkeypatch.setattr(broadcast, "send", lambda group, message: None)


def _player(name: str) -> Any:
    return player_register(username=name, email=f"{name}@example.com", password=PASSWORD)


def _goto(page: Any, path: str) -> Any:
    """Open a page and let it settle: navigating on while the browser still fetches the
    favicon aborts that request, which the console collector counts as a failed load."""
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


def _bank(ann: Any, bob: Any, settings: Any, *, finish: bool, seed: int = 1) -> Game:
    """A banker36 bank at a new table: both players give a client seed, then (with
    `finish`) it is played to its end with random legal moves."""
    settings.GAME_INTERLUDE_SECONDS = 3600  # the next bank waits: this one stays the last
    settings.CLIENT_SEED_SECONDS = 60
    table = services.table_create(variant="banker36", name=f"Банк {seed}", stake=10, created_by=ann)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    assert moves.game_start(table=table, by=ann) is None  # announced: seeds awaited
    moves.client_seed_give(table=table, player=ann, seed=f"ann-{seed}-Klyuch")
    moves.client_seed_give(table=table, player=bob, seed=f"bob_{seed}")
    game = playing(table)
    assert game is not None and len(game.client_seeds) == 2
    if finish:
        game = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, random.Random(seed))
        assert game.status == "finished"
    return game


def _stage_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#replay-stage svg.card[data-card]", "nodes => nodes.map(n => n.dataset.card)"
    )


def _scene_cards(step: dict[str, Any]) -> list[str]:
    """The card codes a step's scene shows, in the order the page draws them."""
    scene = step["scene"]
    cards = [card for hand in scene["hands"] for card in hand["cards"]]
    cards += [card for hand in scene.get("last") or [] for card in hand["cards"]]
    cards += [
        card for hands in scene.get("rounds") or [] for hand in hands for card in hand["cards"]
    ]
    return cards


def _wait_step(page: Any, index: int) -> None:
    page.wait_for_function(
        "(n) => document.getElementById('replay-stage').dataset.step === String(n)",
        arg=index,
        timeout=TIMEOUT_MS,
    )


def _verify(page: Any) -> str:
    page.get_by_role("button", name="Проверить", exact=True).click()
    page.wait_for_function(
        "() => document.getElementById('verify-verdict').dataset.verdict",
        timeout=TIMEOUT_MS,
    )
    return str(page.get_attribute("#verify-verdict", "data-verdict"))


def test_a_player_replays_a_real_bank_step_by_step_and_verifies_its_shuffle(
    daphne_server: Any, transactional_db: None, settings: Any, page: Any, console: Console
) -> None:
    ann, bob = _player("anna"), _player("boris")
    # A bank with a few moves in which anna draws or stands: the lot makes her the banker
    # (who never decides) about half the time.
    for attempt in range(1, 30):
        game = _bank(ann, bob, settings, finish=True, seed=attempt)
        anna_decides = any(
            a.get("seat") == "anna" and a["action"] in ("hit", "stand") for a in game.actions
        )
        if len(game.actions) >= 3 and anna_decides:
            break
        for player in (ann, bob):  # free the chips for the next table
            seating.seat_leave(table=game.table, player=player)
    assert anna_decides, f"no bank of {attempt} where anna drew or stood"
    data = replay(game, "anna")
    steps = data["steps"]

    _log_in(page, "anna")
    _goto(page, "/history/")
    row = page.locator(f"tr[data-game='{game.pk}']")
    assert row.count() == 1
    shoot(page, "history-list")
    check_accessibility(page, "history-list")
    row.get_by_role("link").click()
    page.wait_for_url(f"**/history/{game.pk}/")
    page.wait_for_load_state("networkidle")
    page.wait_for_selector("#replay[data-ready='1']", timeout=TIMEOUT_MS)

    # The deal: the page draws exactly the cards the server's step shows — none of the
    # other player's cards of the first duel (hidden from anna then, or not dealt yet).
    _wait_step(page, 0)
    assert _stage_cards(page) == _scene_cards(steps[0])
    first_duel = game.result["rounds"][0]["hands"]
    theirs = {card for hand in first_duel if hand["seat"] != "anna" for card in hand["cards"]}
    assert not theirs & set(_stage_cards(page))
    assert page.get_attribute("[data-go='prev']", "disabled") is not None
    shoot(page, "history-replay")

    # Buttons, then keys: each step shows its own cards, in order.
    page.get_by_role("button", name="Вперёд").click()
    _wait_step(page, 1)
    assert _stage_cards(page) == _scene_cards(steps[1])
    page.locator("#replay-position").click()  # focus off the buttons: the page's keys
    page.keyboard.press("ArrowRight")
    _wait_step(page, 2)
    assert _stage_cards(page) == _scene_cards(steps[2])
    assert steps[2]["title"] in page.inner_text("#replay-position")
    page.keyboard.press("ArrowLeft")
    _wait_step(page, 1)
    assert page.inner_text("#replay-announce").startswith(f"Шаг 2 из {len(steps)}")
    page.keyboard.press("Space")  # play…
    assert page.get_attribute("[data-go='play']", "aria-pressed") == "true"
    _wait_step(page, 2)
    page.keyboard.press("Space")  # …and pause
    assert page.get_attribute("[data-go='play']", "aria-pressed") == "false"
    page.keyboard.press("End")
    _wait_step(page, len(steps) - 1)
    # The end: the record's result, every hand of every duel shown.
    assert page.get_attribute("#replay-stage", "data-final") == "1"
    assert _stage_cards(page) == _scene_cards(steps[-1])
    shown = set(_stage_cards(page))
    assert {
        card for duel in game.result["rounds"] for h in duel["hands"] for card in h["cards"]
    } <= shown
    page.keyboard.press("Home")
    _wait_step(page, 0)

    # Each of anna's decisions shows what every option was worth, the best ticked.
    decided = [i for i, step in enumerate(steps) if "decision" in step]
    assert decided, (game.actions, game.players, Decision.objects.filter(game=game).count())
    assert all(steps[i]["decision"]["options"] for i in decided)
    for _ in range(decided[0]):
        page.keyboard.press("ArrowRight")
    _wait_step(page, decided[0])
    decision = steps[decided[0]]["decision"]
    panel = page.locator("#replay-stage .decision")
    assert panel.count() == 1
    text = panel.inner_text()
    assert decision["label"] in text and "✓" in text
    assert all(option["label"] in text for option in decision["options"])
    shoot(page, "history-decision")
    page.keyboard.press("End")
    _wait_step(page, len(steps) - 1)
    assert "Ваши решения" in page.inner_text("#replay-stage")
    page.keyboard.press("Home")
    _wait_step(page, 0)

    # The keys of the game are shown, and the record can be downloaded.
    assert page.inner_text("#commitment") == game.commitment
    assert page.inner_text("#server-seed-shown") == game.server_seed
    assert page.inner_text("#record-seed") == game.seed
    assert page.get_attribute("a[download]", "href") == f"/games/{game.pk}/record.json"

    # «Проверить» with the real keys: every check and every dealt card ✓.
    assert _verify(page) == "ok"
    assert page.inner_text("#verify-verdict").startswith("✓")
    checks = page.eval_on_selector_all("#verify-checks li", "n => n.map(x => x.dataset.ok)")
    assert checks and set(checks) == {"1"}
    dealt = page.eval_on_selector_all(
        "#verify-cards li", "n => n.map(x => [x.dataset.dealt, x.dataset.derived, x.dataset.match])"
    )
    expected = []
    kind, copies = DECK_OF["banker36"]
    for entry in data["verify"]["shuffles"]:
        order = shuffled(
            fresh_stock(kind, copies) if entry["fresh"] else entry["pile"],
            game.seed,
            entry["number"],
        )
        for pass_ in entry["passes"]:
            expected += [[card, order[i], "1"] for i, card in enumerate(pass_)]
    assert dealt == expected and len(dealt) >= 3
    assert int(page.get_attribute("#verify-cards", "data-matched")) == len(dealt)
    shoot(page, "history-verified")
    check_accessibility(page, "history-verified")

    # A changed server seed: the commitment and the seed fail, and the cards no longer match.
    other = "0" * 63 + ("1" if game.server_seed[-1] != "1" else "2")
    page.get_by_label("Ключ сервера").fill(other)
    assert _verify(page) == "fail"
    assert page.inner_text("#verify-verdict").startswith("✗")
    checks = page.eval_on_selector_all("#verify-checks li", "n => n.map(x => x.dataset.ok)")
    assert checks[1] == "0" and checks[2] == "0"  # commitment, derivation
    matches = page.eval_on_selector_all("#verify-cards li", "n => n.map(x => x.dataset.match)")
    assert "0" in matches
    shoot(page, "history-rejected")

    # Back to the record's keys, then a changed client seed: the commitment still holds,
    # but the seed and so the shuffle are not the game's.
    page.get_by_role("button", name="Вернуть ключи из записи").click()
    assert page.get_by_label("Ключ сервера").input_value() == game.server_seed
    page.get_by_label("Ключ игрока boris").fill("bob_tampered")
    assert _verify(page) == "fail"
    checks = page.eval_on_selector_all("#verify-checks li", "n => n.map(x => x.dataset.ok)")
    assert checks[1] == "1" and checks[2] == "0"
    console.assert_clean("on the replay page")


def test_the_browsers_shuffle_is_the_servers_bit_for_bit(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    _goto(page, "/login/")
    seeds = ["0" * 64, "f" * 64, "5d41402abc4b2a76b9719d911017c592" * 2]
    cases = [
        (variant, seed, number)
        for variant in DECK_OF
        for seed in seeds[:2]
        if variant != "blackjack" or seed == seeds[0]
        for number in (0, 3)
    ] + [("blackjack", seeds[2], 1), ("salon", seeds[2], 0)]
    computed = page.evaluate(
        """async (cases) => {
            const f = await import("/static/js/history/fairness.js");
            const out = [];
            for (const [variant, seed, n] of cases) {
                out.push(await f.shuffled(f.variantStock(variant), seed, n));
            }
            return out;
        }""",
        cases,
    )
    for (variant, seed, number), order in zip(cases, computed, strict=True):
        kind, copies = DECK_OF[variant]
        assert order == shuffled(fresh_stock(kind, copies), seed, number), (variant, seed, number)

    # The commitment, the derivation (with a non-ASCII-free but varied input), the lot,
    # the server's cut and a pile of discards.
    context = {"table": 12, "shoe": 3, "variant": "banker36"}
    clients = [{"seat": "ann", "seed": "q3V-x_9"}, {"seat": "ai:2", "seed": "Z"}]
    server = seeds[2]
    pile = ["AS", "6H", "TC", "9S", "KD", "6H"]
    got = page.evaluate(
        """async ([server, context, clients, seed, pile]) => {
            const f = await import("/static/js/history/fairness.js");
            return {
                commitment: await f.commit(server, context),
                seed: await f.derive(server, context, clients, 0),
                lot: await f.drawLot(seed, ["ann", "bob", "cat"]),
                cut: await f.serverCut(seed, 0, 104),
                pile: await f.shuffled(pile, seed, 2),
                below: await (async () => {
                    const s = new f.SeedStream(seed, "7");
                    const xs = [];
                    for (const m of [1, 2, 3, 52, 311, 4294967295, 1000003]) {
                        xs.push(await s.below(m));
                    }
                    return xs;
                })(),
            };
        }""",
        [server, context, clients, seeds[1], pile],
    )
    assert got["commitment"] == fair.commit(server, context)
    assert got["seed"] == fair.derive(server, context, clients, 0)
    assert got["lot"] == draw_lot(seeds[1], ["ann", "bob", "cat"])
    assert got["cut"] == 1 + SeedStream(seeds[1], "cut:0").below(103)
    assert got["pile"] == shuffled(pile, seeds[1], 2)
    stream = SeedStream(seeds[1], "7")
    assert got["below"] == [stream.below(m) for m in (1, 2, 3, 52, 311, 4294967295, 1000003)]
    console.assert_clean("after the cross-check")


def test_a_game_in_play_reveals_no_seed_and_others_get_not_found(
    daphne_server: Any, transactional_db: None, settings: Any, page: Any, console: Console
) -> None:
    ann, bob = _player("vera"), _player("gleb")
    _player("eva")
    game = _bank(ann, bob, settings, finish=False)
    _log_in(page, "vera")
    response = _goto(page, f"/history/{game.pk}/")
    assert response is not None and response.ok
    assert page.locator("[data-state='playing']").count() == 1
    assert page.inner_text("#commitment") == game.commitment
    html = page.content()
    assert game.server_seed not in html and game.seed not in html
    assert page.locator("#verify-form").count() == 0 and page.locator("#replay").count() == 0
    data = page.request.get(f"/history/{game.pk}/replay.json").json()
    assert data == {"game": game.pk, "status": "playing", "commitment": game.commitment}
    # Nor is it in the history yet.
    _goto(page, "/history/")
    assert page.locator(f"tr[data-game='{game.pk}']").count() == 0
    _goto(page, f"/history/{game.pk}/")
    shoot(page, "history-in-play")
    check_accessibility(page, "history-in-play")
    console.assert_clean("on a game in play")

    # Someone who did not play it: not found, page and data alike.
    page.context.clear_cookies()
    _log_in(page, "eva")
    assert page.request.get(f"/history/{game.pk}/").status == 404
    assert page.request.get(f"/history/{game.pk}/replay.json").status == 404
    console.assert_clean("as another user")


def _played(variant: str, settings: Any, rng: random.Random) -> tuple[Game, str]:
    """A game of `variant` played to its end through live play's services; its player's name."""
    settings.GAME_INTERLUDE_SECONDS = 3600
    settings.CLIENT_SEED_SECONDS = 0  # dealt at once: a record with no client seed too
    settings.AI_DECISION_SECONDS = 60  # AI seats move when the test sweeps past them
    host = _player(f"{variant}-host")
    users = {host.pk: host}
    table = services.table_create(variant=variant, name=f"Стол {variant}", created_by=host)
    seating.seat_take(table=table, player=host)
    if variant in ("classic", "blackjack"):
        seating.ai_seat_add(table=table, by=host, level="easy")
    if variant == "salon":
        guest = _player(f"{variant}-guest")
        users[guest.pk] = guest
        seating.seat_take(table=table, player=guest)
    if playing(table) is None:
        moves.game_start(table=table, by=host)
    game = playing(table)
    assert game is not None
    if variant == "blackjack":  # a few rounds, then the session ends (the record with it)
        for _ in range(12):
            play_step(table, users, rng, game.number)
        moves.session_end(table=table, player=host)
        return Game.objects.get(pk=game.pk), host.username
    return play_game_randomly(table, users, rng), host.username


@pytest.mark.parametrize("variant", ["classic", "salon", "solo", "blackjack"])
def test_every_variants_replay_steps_and_verifies(
    variant: str,
    daphne_server: Any,
    transactional_db: None,
    settings: Any,
    page: Any,
    console: Console,
) -> None:
    game, name = _played(variant, settings, random.Random(11))
    assert game.status == "finished"
    steps = replay(game, name)["steps"]
    _log_in(page, name)
    _goto(page, f"/history/{game.pk}/")
    page.wait_for_selector("#replay[data-ready='1']", timeout=TIMEOUT_MS)
    _wait_step(page, 0)
    assert _stage_cards(page) == _scene_cards(steps[0])
    middle = len(steps) // 2
    for _ in range(middle):
        page.get_by_role("button", name="Вперёд").click()
    _wait_step(page, middle)
    assert _stage_cards(page) == _scene_cards(steps[middle])
    shoot(page, f"history-replay-{variant}")
    page.locator("#replay-position").click()
    page.keyboard.press("End")
    _wait_step(page, len(steps) - 1)
    assert _stage_cards(page) == _scene_cards(steps[-1])
    assert _verify(page) == "ok", page.inner_text("#verify-checks")
    matches = page.eval_on_selector_all("#verify-cards li", "n => n.map(x => x.dataset.match)")
    assert matches and set(matches) == {"1"}
    if variant in ("classic", "salon"):
        shoot(page, f"history-final-{variant}")
        check_accessibility(page, f"history-final-{variant}")
    console.assert_clean(f"on a {variant} replay")
