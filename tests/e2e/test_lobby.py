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
    """The test settings hash passwords with MD5, which daphne's settings do not read: a
    PBKDF2 hash (few rounds: daphne upgrades it at the first sign-in) works in both."""
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
    assert dear.locator(".why").inner_text() == "Нужно не меньше 20000 фишек, у вас 10000."
    assert page.locator('[data-count="banker36"]').inner_text() == "2"

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
    assert page.locator("#lobby-filtered-empty").is_visible()
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
    page.get_by_role("button", name="Против банкира").click()
    page.wait_for_url(TABLE_PAGE)
    solo = Table.objects.get(variant="solo")
    assert page.url.endswith(f"/tables/{solo.pk}/")
    assert solo.private and solo.seats.get().player == players["alice"]

    page.goto("/")
    page.get_by_role("button", name="Тренировка: блэкджек").click()
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
    assert rich.locator(".why").inner_text() == "Нужно не меньше 5000 фишек, у вас 4000."
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
