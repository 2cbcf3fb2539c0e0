"""The lobby in a real browser: live updates from the lobby socket, the variant filter,
the join buttons' reasons, «Открыть стол» and the one-click tables.

The table page belongs to another part of the client: here its address is answered by a
stub, so that these tests check where the lobby leads and what the server made, not that
page. Other players act through what the server offers them: the lobby's own form, and a
`sit` on the table socket (docs/protocol.md §5.2).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from accounts.services import chips_adjust, wallet_for
from tables.models import Seat, Table
from tables.services import table_create
from tests.e2e.conftest import Console, check_accessibility, shoot

pytestmark = pytest.mark.e2e

PASSWORD = "Lobby-Parol-2024"
LOBBY = re.compile(r"^https?://[^/]+/(\?.*)?$")
TABLE_PAGE = re.compile(r"/tables/\d+/(\?.*)?$")
LOBBY_JSON = re.compile(r"/lobby\.json(\?.*)?$")

# A second player's client sits down: the table socket's `sit` command.
SIT = """(tableId) => new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${tableId}/`);
  const timer = setTimeout(() => reject(new Error("no answer to sit")), 10000);
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "snapshot" && !ws.sent) {
      ws.sent = true;
      ws.send(JSON.stringify({type: "sit", id: `sit-${Date.now()}`}));
    } else if (message.type === "ack") {
      clearTimeout(timer); ws.close(); resolve(message.seat);
    } else if (message.type === "error") {
      clearTimeout(timer); ws.close(); reject(new Error(message.code));
    }
  };
})"""


# A player's client opens a table: the lobby socket's `open_table` (docs/protocol.md §14).
OPEN = """(fields) => new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}/ws/lobby/`);
  const timer = setTimeout(() => reject(new Error("no answer to open_table")), 10000);
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "lobby") {
      ws.send(JSON.stringify({type: "open_table", ...fields}));
    } else if (message.type === "table_opened") {
      clearTimeout(timer); ws.close(); resolve(message.table);
    } else if (message.type === "error") {
      clearTimeout(timer); ws.close(); reject(new Error(message.code));
    }
  };
})"""

# The host closes their table: the table socket's `close` (docs/protocol.md §9.8).
CLOSE = """(tableId) => new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${tableId}/`);
  const timer = setTimeout(() => reject(new Error("no answer to close")), 10000);
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "snapshot" && !ws.sent) {
      ws.sent = true;
      ws.send(JSON.stringify({type: "close", id: `close-${Date.now()}`}));
    } else if (message.type === "ack") {
      clearTimeout(timer); ws.close(); resolve(true);
    } else if (message.type === "error") {
      clearTimeout(timer); ws.close(); reject(new Error(message.code));
    }
  };
})"""


def count_is(page: Any, variant: str, value: int) -> None:
    """Wait until the variant filter's count (`""`: «Все») reads `value`."""
    page.wait_for_function(
        '([key, value]) => document.querySelector(`[data-count="${key}"]`).textContent === value',
        arg=[variant, str(value)],
    )


def counts(page: Any) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            "#lobby-filters [data-count]",
            "(spans) => spans.map((span) => [span.dataset.count, span.textContent])",
        )
    )


def query_has(page: Any, name: str, value: str) -> bool:
    return bool(
        page.evaluate(
            "([name, value]) => new URL(location.href).searchParams.get(name) === value",
            [name, value],
        )
    )


def stub_table_page(page: Any) -> None:
    page.route(
        TABLE_PAGE,
        lambda route: route.fulfill(
            status=200,
            content_type="text/html; charset=utf-8",
            body='<!doctype html><html lang="ru"><title>стол</title><h1>Стол</h1></html>',
        ),
    )


def sign_in(page: Any, username: str) -> None:
    page.goto("/login/")
    main = page.locator("main")
    main.get_by_label("Имя пользователя").fill(username)
    main.get_by_label("Пароль").fill(PASSWORD)
    main.get_by_role("button", name="Войти").click()
    page.wait_for_url(LOBBY)
    # Its favicon too: a page left while that still loads reports it as a failed load.
    page.wait_for_load_state("networkidle")


def wait_live(page: Any) -> None:
    page.locator('#lobby-live[data-state="live"]').wait_for()


def row(page: Any, name: str) -> Any:
    link = page.get_by_role("link", name=name, exact=True)
    return page.locator("#lobby-tables tbody tr", has=link)


def with_password(user: Any) -> Any:
    """A PBKDF2 hash (few rounds), as an account made before the suite's fast hasher has:
    daphne checks it and upgrades it to its first hasher at the first sign-in."""
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, f"salt{user.pk}", iterations=1000)
    user.save(update_fields=["password"])
    return user


@pytest.fixture
def players(daphne_server: Any, transactional_db: None, make_user: Any) -> dict[str, Any]:
    return {name: with_password(make_user(name)) for name in ("alice", "bob", "carol")}


@pytest.fixture
def other_context(browser: Any, daphne_server: Any) -> Iterator[Any]:
    """Another player's browser (its own cookies), on the lobby."""
    contexts: list[Any] = []

    def open_as(username: str) -> Any:
        context = browser.new_context(base_url=daphne_server.url, locale="ru-RU")
        contexts.append(context)
        other = context.new_page()
        stub_table_page(other)
        sign_in(other, username)
        return other

    yield open_as
    for context in contexts:
        context.close()


def test_the_lobby_follows_other_players_opening_tables_and_taking_seats(
    players: dict[str, Any], page: Any, console: Console, other_context: Any
) -> None:
    small = table_create(variant="banker36", name="Маленький стол", seat_count=2)
    sign_in(page, "alice")
    wait_live(page)
    small_row = row(page, "Маленький стол")
    assert small_row.locator(".col-seats").inner_text() == "0/2"
    assert small_row.get_by_role("link", name=re.compile("^Сесть")).is_visible()

    # Bob opens a table with the lobby's form: Alice sees it arrive, and why she may not
    # sit there (its entry limit is above her 10 000 chips).
    bob = other_context("bob")
    bob.locator("#open-table summary").click()
    bob.get_by_role("combobox", name="Вариант").select_option("banker36")
    bob.get_by_label("Название").fill("Дорогой стол")
    bob.get_by_label("Лимит входа", exact=True).fill("20000")
    bob.get_by_label("Сразу сесть за стол").uncheck()
    bob.get_by_role("button", name="Открыть стол").click()
    bob.wait_for_url(TABLE_PAGE)
    dear = row(page, "Дорогой стол")
    dear.wait_for()
    assert dear.get_by_role("button", name=re.compile("^Сесть")).is_disabled()
    assert (
        dear.locator(".why").inner_text() == "Нужно не меньше 20\u00a0000 фишек, у вас 10\u00a0000."
    )
    # The counts are the server's: they follow with lobby.json, asked after the change.
    count_is(page, "banker36", 2)

    # Bob and then Carol take the small table's seats: its count follows, and once it is
    # full Alice's button is disabled with the reason.
    bob.evaluate(SIT, small.pk)
    page.wait_for_function(
        "() => document.querySelector("
        f"'tr[data-table-id=\"{small.pk}\"] .col-seats').textContent === '1/2'"
    )
    carol = other_context("carol")
    carol.evaluate(SIT, small.pk)
    small_row.locator(".why", has_text="Свободных мест нет.").wait_for()
    assert small_row.locator(".col-seats").inner_text() == "2/2"
    assert small_row.get_by_role("button", name=re.compile("^Сесть")).is_disabled()
    assert small_row.locator(".status").inner_text() == "Мест нет"
    assert Seat.objects.filter(table=small).count() == 2
    console.assert_clean("in the live lobby")


def test_the_variant_filter_hides_other_variants_by_keyboard_and_is_remembered(
    players: dict[str, Any], page: Any, console: Console
) -> None:
    table_create(variant="salon", name="Салон у окна")
    table_create(variant="banker36", name="Банк у двери")
    table_create(variant="classic", name="Классика в углу")
    sign_in(page, "alice")
    wait_live(page)
    rows = page.locator("#lobby-tables tbody tr")
    assert rows.count() == 3

    # Keyboard only: Tab to the chosen filter, arrows to move between the variants.
    page.get_by_role("radio", name=re.compile("^Все")).focus()
    page.keyboard.press("ArrowRight")  # classic
    page.keyboard.press("ArrowRight")  # salon
    assert page.get_by_role("radio", name=re.compile("^Салонная игра")).is_checked()
    assert row(page, "Салон у окна").is_visible()
    assert not row(page, "Банк у двери").is_visible()
    assert not row(page, "Классика в углу").is_visible()

    page.reload()
    wait_live(page)
    assert page.get_by_role("radio", name=re.compile("^Салонная игра")).is_checked()
    assert row(page, "Салон у окна").is_visible() and not row(page, "Банк у двери").is_visible()

    # A variant with no table says so.
    page.get_by_role("radio", name=re.compile("^Против банкира")).check()
    page.locator("#lobby-filtered-empty").wait_for()  # once the filtered page has come
    page.get_by_role("radio", name=re.compile("^Все")).check()
    # The filter asks the server for that page (lobby.json): the rows follow its answer.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#lobby-tables tbody tr')]"
        ".filter((tr) => tr.offsetParent !== null).length === 3"
    )
    assert rows.locator("visible=true").count() == 3
    console.assert_clean("while filtering")


def test_open_table_form_creates_the_table_and_lands_on_it(
    players: dict[str, Any], page: Any, console: Console
) -> None:
    stub_table_page(page)
    sign_in(page, "alice")
    page.locator("#open-table summary").click()
    page.get_by_role("combobox", name="Вариант").select_option("salon")
    # Fields of other variants are not offered.
    assert not page.get_by_label("Ставка стола").is_visible()
    assert not page.get_by_label("Раздач в партии").is_visible()
    page.get_by_label("Название").fill("Салон Алисы")
    page.get_by_label("Мест за столом").fill("3")
    page.get_by_label("Минимальная ставка").fill("20")
    page.get_by_label("Максимальная ставка").fill("200")
    page.get_by_label("Лимит входа", exact=True).fill("400")
    page.get_by_role("button", name="Открыть стол").click()
    page.wait_for_url(TABLE_PAGE)
    table = Table.objects.get(name="Салон Алисы")
    assert page.url.endswith(f"/tables/{table.pk}/")
    assert (table.variant, table.seat_count, table.min_bet, table.max_bet) == ("salon", 3, 20, 200)
    assert table.entry_limit == 400 and not table.private
    assert table.seats.get().player == players["alice"]
    console.take()  # the stub stands for the table page: nothing of it to judge here

    # A refused table stays on the lobby with the reasons beside the fields.
    page.goto("/")
    page.locator("#open-table summary").click()
    page.get_by_role("combobox", name="Вариант").select_option("salon")
    page.get_by_label("Минимальная ставка").fill("50")
    page.get_by_label("Максимальная ставка").fill("10")
    page.get_by_role("button", name="Открыть стол").click()
    page.locator(".open-form .errorlist").first.wait_for()
    assert page.locator("#open-table").get_attribute("open") is not None
    assert Table.objects.filter(variant="salon").count() == 1
    console.take()  # the refusal answers 400, which the browser logs


def test_one_click_solo_and_blackjack_open_tables_and_land_on_them(
    players: dict[str, Any], page: Any, console: Console
) -> None:
    stub_table_page(page)
    sign_in(page, "alice")
    page.get_by_role("button", name="Играть: Против банкира").click()
    page.wait_for_url(TABLE_PAGE)
    solo = Table.objects.get(variant="solo")
    assert page.url.endswith(f"/tables/{solo.pk}/")
    assert solo.private and solo.seats.get().player == players["alice"]

    page.goto("/")
    page.get_by_role("button", name="Играть: Блэкджек (тренировка)").click()
    page.wait_for_url(TABLE_PAGE)
    training = Table.objects.get(variant="blackjack")
    assert page.url.endswith(f"/tables/{training.pk}/")
    seats = list(training.seats.order_by("number"))
    assert [s.player_id for s in seats] == [players["alice"].pk, None, None]
    assert all(s.ai_level for s in seats[1:])
    console.take()  # the stub stands for the table page


def test_join_buttons_say_why_and_lead_to_the_table(
    players: dict[str, Any], page: Any, console: Console
) -> None:
    open_table = table_create(variant="salon", name="Салон для всех", entry_limit=100)
    table_create(variant="banker36", name="Банк для богатых", stake=50, entry_limit=5000)
    alice = players["alice"]
    chips_adjust(wallet=wallet_for(alice), amount=-6000, memo="e2e", by=None, idempotency_key="e2e")

    # Signed out: every button is disabled, with a link to sign in.
    page.goto("/")
    why = row(page, "Салон для всех").locator(".why")
    assert why.inner_text() == "Войдите, чтобы сесть за стол."
    assert "/login/?next=" in (why.locator("a").get_attribute("href") or "")
    shoot(page, "lobby-signed-out")
    check_accessibility(page, "lobby-signed-out")

    sign_in(page, "alice")
    wait_live(page)
    rich = row(page, "Банк для богатых")
    assert rich.get_by_role("button", name=re.compile("^Сесть")).is_disabled()
    assert (
        rich.locator(".why").inner_text() == "Нужно не меньше 5\u00a0000 фишек, у вас 4\u00a0000."
    )
    assert page.locator(".chips-badge").inner_text().replace("\u00a0", " ").endswith("4 000")
    join = row(page, "Салон для всех").get_by_role("link", name=re.compile("^Сесть"))
    assert join.get_attribute("href") == f"/tables/{open_table.pk}/?sit=1"
    shoot(page, "lobby-signed-in")
    check_accessibility(page, "lobby-signed-in")
    console.assert_clean("on the lobby")


def test_signing_out_in_another_tab_ends_the_lobbys_live_link_with_a_note(
    players: dict[str, Any], page: Any
) -> None:
    """The lobby socket of a session that ends (here: «Выйти» in another tab of the same
    browser) is closed by the server with 4440; the page says so and does not reconnect."""
    sign_in(page, "alice")
    wait_live(page)
    other_tab = page.context.new_page()
    other_tab.goto("/")
    other_tab.locator("header").get_by_role("button", name="Выйти").click()
    other_tab.wait_for_load_state("networkidle")
    page.locator('#lobby-live[data-state="offline"]', has_text="Вы вышли из аккаунта").wait_for()
    page.wait_for_timeout(1500)  # no reconnect follows: it stays so
    assert page.locator("#lobby-live").get_attribute("data-state") == "offline"
    assert "Вы вышли из аккаунта" in page.locator("#lobby-live").inner_text()
    other_tab.close()


def test_a_part_lobby_json_could_not_build_is_said_so_not_shown_as_no_tables(
    players: dict[str, Any], page: Any, console: Console
) -> None:
    """lobby.json names the parts it could not build (`unavailable`, docs/protocol.md
    §14): the page says so where the part is, keeps what it showed of it (the player is
    not told there are no tables, nor that they are signed out), and drops the note once
    the part comes back. The server's failure is stood in for by the answer itself: the
    daphne process cannot be made to fail one part from here."""
    alice = players["alice"]
    table_create(variant="salon", name="Тайный салон", private=True, created_by=alice)
    broken = {
        "tables": [],
        "page": 1,
        "pages": 1,
        "total": 0,
        "counts": {key: 0 for key in ("classic", "salon", "solo", "banker36", "blackjack")},
        "counts_total": 0,
        "me": None,
        "unavailable": ["tables", "me"],
    }
    page.route(
        LOBBY_JSON,
        lambda route: route.fulfill(status=200, json=broken),
    )
    sign_in(page, "alice")
    wait_live(page)
    # The socket's first message makes the script ask lobby.json for the viewer's part.
    tables_note = page.locator('[data-unavailable="tables"]')
    me_note = page.locator('[data-unavailable="me"]')
    tables_note.wait_for()
    me_note.wait_for()
    note = "Эта часть страницы сейчас недоступна. Попробуйте обновить страницу чуть позже."
    assert tables_note.inner_text() == note and me_note.inner_text() == note
    assert not page.locator("#lobby-empty").is_visible()
    # What it knew of the viewer stays: their private table.
    mine = page.locator("#my-tables li")
    assert mine.all_inner_texts() == ["Тайный салон — ваш частный стол"]
    shoot(page, "lobby-part-unavailable")
    console.assert_clean("with parts unavailable")

    # The parts are back: the notes go, and «no tables» is said again.
    page.unroute(LOBBY_JSON)
    page.get_by_role("radio", name=re.compile("^Салонная игра")).check()
    tables_note.wait_for(state="hidden")
    me_note.wait_for(state="hidden")
    assert page.locator("#lobby-empty").is_visible()
    assert mine.all_inner_texts() == ["Тайный салон — ваш частный стол"]
    console.assert_clean("with the parts back")


def test_counts_follow_tables_opened_and_closed_outside_the_filters(
    players: dict[str, Any], page: Any, console: Console, other_context: Any
) -> None:
    """The counts beside the variants are the server's, under the entry-limit filter: a
    table opened above the limit is not counted, and one closed while another variant is
    shown (so not on the page) is no longer counted. A row the filter excludes leaves
    the list at once: it is not shown as closed."""
    table_create(variant="salon", name="Салон сто", entry_limit=100)
    table_create(variant="salon", name="Салон для богатых", entry_limit=5000)
    sign_in(page, "alice")
    wait_live(page)
    count_is(page, "salon", 2)
    limit = page.get_by_label("Лимит входа до")
    limit.fill("500")
    limit.press("Tab")  # the field's change
    row(page, "Салон для богатых").wait_for(state="detached")
    count_is(page, "salon", 1)
    assert query_has(page, "max_entry", "500")
    assert not page.locator("#lobby-tables tr[data-closed]").count()
    assert counts(page) == {
        "": "1",
        "classic": "0",
        "salon": "1",
        "solo": "0",
        "banker36": "0",
        "blackjack": "0",
    }

    # Bob opens a banker above Alice's limit of 500, then a salon under it: the salon
    # shows and is counted, the banker neither (it is not in her lobby).
    bob = other_context("bob")
    bob.evaluate(OPEN, {"variant": "banker36", "name": "Дорогой банк", "entry_limit": 20000})
    bob.evaluate(OPEN, {"variant": "salon", "name": "Салон двести", "entry_limit": 200})
    row(page, "Салон двести").wait_for()
    count_is(page, "salon", 2)
    assert counts(page) == {
        "": "2",
        "classic": "0",
        "salon": "2",
        "solo": "0",
        "banker36": "0",
        "blackjack": "0",
    }
    assert not row(page, "Дорогой банк").count()

    # A banker under the limit is counted; Alice shows only the salons, and Bob closes
    # that banker: its count goes, though its row was not on her page.
    bank = bob.evaluate(OPEN, {"variant": "banker36", "name": "Банк сто", "entry_limit": 100})
    count_is(page, "banker36", 1)
    page.get_by_role("radio", name=re.compile("^Салонная игра")).check()
    page.wait_for_function("() => new URL(location.href).searchParams.get('variant') === 'salon'")
    page.wait_for_function(
        "() => !document.querySelector('#lobby-tables tr[data-variant=\"banker36\"]')"
    )
    bob.evaluate(CLOSE, bank)
    bob.evaluate(OPEN, {"variant": "salon", "name": "Салон триста", "entry_limit": 300})
    row(page, "Салон триста").wait_for()
    count_is(page, "salon", 3)
    assert counts(page) == {
        "": "3",
        "classic": "0",
        "salon": "3",
        "solo": "0",
        "banker36": "0",
        "blackjack": "0",
    }
    # Only the filters' rows are shown: the salons under 500.
    names = page.locator("#lobby-tables tbody tr .col-name").all_inner_texts()
    assert names == ["Салон двести", "Салон сто", "Салон триста"]
    console.assert_clean("while the counts follow")


def _page_of_classics(n: int) -> None:
    """n public classic tables (bulk: their validation is not what is tested here)."""
    Table.objects.bulk_create(
        Table(variant="classic", name=f"Стол {i:03}", seat_count=6, entry_limit=0, match_length=5)
        for i in range(n)
    )


def count_lobby_json(page: Any) -> list[str]:
    """The page's lobby.json requests from now on (their URLs, as they are made)."""
    made: list[str] = []
    page.on(
        "request",
        lambda request: made.append(request.url) if LOBBY_JSON.search(request.url) else None,
    )
    return made


def pager_reads(page: Any, text: str | None) -> None:
    """Wait until the pager says `text` (None: hidden, one page)."""
    if text is None:
        page.locator("#lobby-pager").wait_for(state="hidden")
    else:
        page.locator("#lobby-page-of", has_text=text).wait_for()


def test_with_no_entry_filter_the_counts_and_pages_follow_the_socket_without_lobby_json(
    players: dict[str, Any], page: Any, console: Console, other_context: Any
) -> None:
    """The counts (and the number of pages) come with each batch of the socket's changes
    (lobby_counts, docs/protocol.md §14): the page asks lobby.json for none of them. (It
    asked after every batch; with hundreds of players in the lobby that was hundreds of
    requests a second.)"""
    from lobby.selectors import LOBBY_PAGE_SIZE

    _page_of_classics(LOBBY_PAGE_SIZE)  # a full first page
    with page.expect_response(LOBBY_JSON):  # the one the socket's first list asks for
        sign_in(page, "alice")
    wait_live(page)
    made = count_lobby_json(page)
    count_is(page, "classic", 50)
    pager_reads(page, None)

    # Bob opens a 51st classic and a banker: both counted, a second page appears.
    bob = other_context("bob")
    extra = bob.evaluate(OPEN, {"variant": "classic", "name": "Стол 999"})
    bank = bob.evaluate(OPEN, {"variant": "banker36", "name": "Банк", "stake": 10})
    count_is(page, "banker36", 1)
    count_is(page, "classic", 51)
    count_is(page, "", 52)
    pager_reads(page, "Страница 1 из 2")
    # The banker sorts after the classics: the full page has no room for it.
    assert not row(page, "Банк").count()

    # He closes both: the counts and the pager follow, though neither row was shown.
    bob.evaluate(CLOSE, extra)
    bob.evaluate(CLOSE, bank)
    count_is(page, "banker36", 0)
    count_is(page, "", 50)
    pager_reads(page, None)
    assert made == [], made
    console.assert_clean("while the counts follow the socket")


def test_under_an_entry_filter_the_counts_follow_lobby_json_and_a_row_pushed_off_is_not_closed(
    players: dict[str, Any], page: Any, console: Console, other_context: Any
) -> None:
    """Under an entry-limit filter the socket's counts (over all tables) are not the
    page's: it asks lobby.json for its own, throttled. A row that the new list pushed to
    the next page just leaves: only a table the socket said was closed shows «Закрыт»."""
    from lobby.selectors import LOBBY_PAGE_SIZE

    _page_of_classics(LOBBY_PAGE_SIZE)
    sign_in(page, "alice")
    page.goto("/?max_entry=0")
    wait_live(page)
    count_is(page, "classic", 50)
    made = count_lobby_json(page)

    # A classic sorting first: not inserted into the full page, but counted once the page
    # asks lobby.json, whose first page then ends a table earlier.
    bob = other_context("bob")
    bob.evaluate(OPEN, {"variant": "classic", "name": "Аааа"})
    # And a banker above the limit: not counted here, though the socket counts it.
    bob.evaluate(OPEN, {"variant": "banker36", "name": "Дорогой банк", "entry_limit": 500})
    count_is(page, "classic", 51)
    row(page, "Аааа").wait_for()
    row(page, "Стол 049").wait_for(state="detached")
    pager_reads(page, "Страница 1 из 2")
    assert counts(page)["banker36"] == "0" and counts(page)[""] == "51"
    assert not page.locator("#lobby-tables tr[data-closed]").count()
    assert made, "the entry-filtered counts come from lobby.json"

    # A shown table closed: said so (the socket named it).
    shown = Table.objects.get(name="Стол 010")
    shown.created_by = players["bob"]
    shown.save(update_fields=["created_by"])
    bob.evaluate(CLOSE, shown.pk)
    row(page, "Стол 010").locator(".status", has_text="Закрыт").wait_for()
    count_is(page, "classic", 50)
    console.assert_clean("while the counts follow lobby.json")


def test_your_tables_appear_when_you_open_one_in_another_tab(
    players: dict[str, Any], page: Any, console: Console
) -> None:
    """«Ваши столы» (lobby.json's `me`) follows what the player does in another tab: a
    private table (no lobby message names it) and a public one they opened, then their
    seat at it — though the page was rendered with no such list."""
    sign_in(page, "alice")
    wait_live(page)
    assert not page.locator("#my-tables").count()

    other_tab = page.context.new_page()
    stub_table_page(other_tab)
    other_tab.goto("/")
    other_tab.evaluate(OPEN, {"variant": "classic", "name": "Тайный стол", "private": True})
    public = other_tab.evaluate(OPEN, {"variant": "classic", "name": "Стол Алисы"})
    row(page, "Стол Алисы").wait_for()
    mine = page.locator("#my-tables li")
    mine.nth(1).wait_for()
    assert page.locator("#my-tables h3").inner_text() == "Ваши столы"
    assert sorted(mine.all_inner_texts()) == [
        "Стол Алисы — вы его открыли",
        "Тайный стол — ваш частный стол",
    ]

    other_tab.evaluate(SIT, public)
    page.locator("#my-tables li", has_text="Стол Алисы — вы за столом").wait_for()
    assert mine.all_inner_texts() == ["Стол Алисы — вы за столом", "Тайный стол — ваш частный стол"]
    assert page.locator("#my-tables a", has_text="Стол Алисы").get_attribute("href") == (
        f"/tables/{public}/"
    )
    other_tab.close()
    console.assert_clean("while your tables follow")
