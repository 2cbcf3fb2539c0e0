"""Shared helpers for the table page's browser tests (tests/e2e/test_table_*.py).

The table page (`/tables/<id>/`, templates/play/table.html, static/js/table/main.js)
mirrors its state on the root element `#table-page` as data attributes, refreshed after
every frame it applies:

- `data-state`: the connection (`connecting`, `open`, `reconnecting`, `closed`), as
  `#connection[data-state]`;
- `data-version`: the table version of the picture shown (-1 before the first snapshot);
- `data-seat`: your seat id ("" for a spectator); `data-in-game`: "true" / "false";
- `data-game`: the shown game's number ("" when none); `data-game-status`: `playing`,
  `finished`, `voided` or "";
- `data-turn`: the seat to act ("" when none); `data-pending`: the announced game's number
  ("" when none);
- `data-busy`: "true" while a command sent from the page is unanswered (the action bar is
  disabled then).

The action bar is `#actions`; each plain action is a `button[data-action="<name>"]`.
Cards are `svg.card[data-card]` (a hidden card is an `svg.card.back`, without a code).

Import these from any table test; their names and signatures stay stable.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

from accounts.services import player_register
from play.frames import broadcast
from play.models import Presence
from tables import services
from tables.models import Table
from tests.e2e.conftest import VIEWPORTS, Console

PASSWORD = "Stol-Parol-2024"
TIMEOUT_MS = 15_000


# --- users and tables (ORM, in the test process) ----------------------------------------


@contextlib.contextmanager
def quiet_broadcasts() -> Iterator[None]:
    """Changes made in the test process broadcast nothing: with Playwright's loop running
    in this thread the channel layer cannot be reached from here (the send would fail
    and log a traceback). The pages learn such changes from their next snapshot."""
    with mock.patch.object(broadcast, "send", lambda group, message: None):
        yield


def make_player(username: str, *, password: str = PASSWORD) -> Any:
    """A user signed up as the sign-up page does it (with the welcome chips); its password
    is hashed with the suite's fast hasher, which the daphne under test knows too
    (tests/e2e/daphne_settings.py)."""
    with quiet_broadcasts():
        user = player_register(
            username=username, email=f"{username}@example.com", password=password
        )
    return user


def create_table(
    variant: str, *, name: str | None = None, host: Any = None, **fields: Any
) -> Table:
    """An open table, made with tables.services.table_create (validated against the variant).

    Do this before opening the pages: a change made in the test process reaches the pages
    only through their next snapshot (the test process's broadcasts do not reach daphne
    on the embedded stack)."""
    with quiet_broadcasts():
        return services.table_create(
            created_by=host, variant=variant, name=name or f"Стол {variant}", **fields
        )


# --- browser contexts ---------------------------------------------------------------------


def settle(page: Any) -> None:
    """Let a page finish loading (its favicon included): leaving a page whose favicon is
    still loading aborts that request, which the console collector counts as a failure."""
    page.wait_for_load_state("networkidle")


def log_in(page: Any, username: str, password: str = PASSWORD) -> None:
    """Sign in through the real /login/ form."""
    page.goto("/login/")
    settle(page)
    page.locator("main input[name=username]").fill(username)
    password_input = page.locator("main input[name=password]")
    password_input.fill(password)
    password_input.press("Enter")
    page.wait_for_url(lambda url: "/login/" not in url, timeout=TIMEOUT_MS)
    settle(page)


def player_page(
    browser: Any,
    base_url: str,
    username: str | None = None,
    *,
    password: str = PASSWORD,
    viewport: str = "desktop",
) -> tuple[Any, Any, Console]:
    """A new browser context (Russian), its page and a Console collecting its errors;
    signed in as `username` unless it is None (an anonymous visitor). Close the context
    at the end of the test, and call `console.assert_clean()`."""
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(
        base_url=base_url, locale="ru-RU", viewport={"width": width, "height": height}
    )
    page = context.new_page()
    console = Console(page)
    if username is not None:
        log_in(page, username, password)
    return context, page, console


# --- the table page -------------------------------------------------------------------------


def leave_table(table_id: int, *closables: Any, timeout: float = 10.0) -> None:
    """Close these pages or contexts and wait until daphne has let go of their table
    connections (no presence row left). Call it at the end of a test: the database flush
    that follows a test must not race the disconnects' writes (a deadlock on PostgreSQL)."""
    for item in closables:
        item.close()
    end = time.monotonic() + timeout
    while Presence.objects.filter(table_id=table_id).exists():
        assert time.monotonic() < end, "the table's connections did not close"
        time.sleep(0.05)


def table_url(table_id: int, *, sit: bool = False, invite: str | None = None) -> str:
    query = []
    if sit:
        query.append("sit=1")
    if invite:
        query.append(f"invite={invite}")
    return f"/tables/{table_id}/" + ("?" + "&".join(query) if query else "")


def open_table(page: Any, table_id: int, *, sit: bool = False, invite: str | None = None) -> None:
    """Open the table page and wait until its socket is open and the first snapshot is
    drawn; with `sit`, also until the page has taken a seat (`?sit=1`)."""
    response = page.goto(table_url(table_id, sit=sit, invite=invite))
    assert response is not None and response.ok, response and response.status
    wait_socket_open(page)
    if sit:
        page.wait_for_function(
            "() => document.getElementById('table-page').dataset.seat !== ''",
            timeout=TIMEOUT_MS,
        )


def wait_socket_open(page: Any, timeout: int = TIMEOUT_MS) -> None:
    """The socket is open and a snapshot has been applied."""
    page.wait_for_function(
        """() => {
            const root = document.getElementById('table-page');
            return root && root.dataset.state === 'open' && Number(root.dataset.version) >= 0;
        }""",
        timeout=timeout,
    )


def table_state(page: Any) -> dict[str, Any]:
    """The page's own account of the table (the data attributes of #table-page)."""
    data: dict[str, str] = page.evaluate(
        "() => Object.assign({}, document.getElementById('table-page').dataset)"
    )
    return {
        "state": data.get("state", ""),
        "version": int(data.get("version", "-1")),
        "seat": data.get("seat", "") or None,
        "in_game": data.get("inGame") == "true",
        "game": int(data["game"]) if data.get("game") else None,
        "game_status": data.get("gameStatus", "") or None,
        "turn": data.get("turn", "") or None,
        "pending": int(data["pending"]) if data.get("pending") else None,
        "busy": data.get("busy") == "true",
    }


def wait_attr(page: Any, name: str, value: str, timeout: int = TIMEOUT_MS) -> None:
    """Wait until #table-page's data-<name> equals `value` (name in JS camelCase, as
    `gameStatus`)."""
    page.wait_for_function(
        "([name, value]) => document.getElementById('table-page').dataset[name] === value",
        arg=[name, value],
        timeout=timeout,
    )


def wait_version(page: Any, version: int, timeout: int = TIMEOUT_MS) -> None:
    """Wait until the page shows table version `version` or later."""
    page.wait_for_function(
        "(v) => Number(document.getElementById('table-page').dataset.version) >= v",
        arg=version,
        timeout=timeout,
    )


def wait_game_playing(page: Any, timeout: int = TIMEOUT_MS) -> None:
    wait_attr(page, "gameStatus", "playing", timeout)


def wait_my_turn(page: Any, timeout: int = TIMEOUT_MS) -> None:
    """Wait until it is this page's seat's turn and the action bar offers something."""
    page.wait_for_function(
        """() => {
            const root = document.getElementById('table-page');
            return root.dataset.seat !== '' && root.dataset.turn === root.dataset.seat
                && root.dataset.busy !== 'true'
                && document.querySelector('#actions [data-action]:not([disabled])') !== null;
        }""",
        timeout=timeout,
    )


def action_button(page: Any, action: str) -> Any:
    return page.locator(f'#actions button[data-action="{action}"]')


def act(page: Any, action: str, timeout: int = TIMEOUT_MS) -> None:
    """Click the action bar's button for `action` once it is enabled, and wait until the
    server has answered (the page is no longer busy)."""
    button = action_button(page, action)
    button.wait_for(state="visible", timeout=timeout)
    page.wait_for_function(
        '(a) => { const b = document.querySelector(`#actions button[data-action="${a}"]`);'
        " return b && !b.disabled; }",
        arg=action,
        timeout=timeout,
    )
    button.click()
    wait_idle(page, timeout)


def wait_idle(page: Any, timeout: int = TIMEOUT_MS) -> None:
    """No command of the page's is waiting for its answer."""
    page.wait_for_function(
        "() => document.getElementById('table-page').dataset.busy !== 'true'", timeout=timeout
    )


def press_control(page: Any, name: str, timeout: int = TIMEOUT_MS) -> None:
    """Click one of the generic table controls (#table-controls button[data-control]):
    `sit`, `stand`, `ready`, `unready`, `start`, `leave`."""
    button = page.locator(f'#table-controls button[data-control="{name}"]')
    button.wait_for(state="visible", timeout=timeout)
    button.click()
    wait_idle(page, timeout)


def dom_cards(page: Any, scope: str = "body") -> list[str]:
    """Every card code drawn on the page (in `scope`), in document order."""
    codes: list[str] = page.eval_on_selector_all(
        f"{scope} svg.card[data-card]", "nodes => nodes.map(n => n.dataset.card)"
    )
    return codes


def hidden_backs(page: Any, scope: str = "body") -> int:
    """How many face-down cards are drawn."""
    return int(page.locator(f"{scope} svg.card.back").count())


def log_lines(page: Any) -> list[str]:
    """The table log's lines, newest first."""
    lines: list[str] = page.eval_on_selector_all("#log li", "nodes => nodes.map(n => n.innerText)")
    return lines


def chips_in_header(page: Any) -> int:
    return int(re.sub(r"\D", "", page.locator(".chips-badge").inner_text()))


def outcome_text(hand: dict[str, Any]) -> str:
    """What a settled hand says on the felt, from the server's stored round."""

    def signed(value: float) -> str:
        text = f"{value:g}".replace(".", ",").replace("-", "\u2212")
        return text if value <= 0 else f"+{text}"

    if hand["total"] > 21:
        return "Перебор" if hand["delta"] == -1 else f"Перебор {signed(hand['delta'])}"
    if hand["outcome"] == "push":
        return "Ничья"
    if hand["outcome"] == "win" and hand["delta"] == 1.5:
        return f"Блэкджек {signed(1.5)}"
    return signed(hand["delta"])
