"""One way to start a table (issue 20): the page shows only the control that applies now —
«Начать игру» for the host, «Готов» for everyone else — and a status line saying what
happens next, by the server's rule (play/services/lifecycle.py: enough seats and everyone ready, or
the host's start)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Console, shoot
from tests.e2e.table_helpers import (
    TIMEOUT_MS,
    create_table,
    leave_table,
    make_player,
    open_table,
    player_page,
    press_control,
    wait_game_playing,
)

pytestmark = pytest.mark.e2e

READY = '#table-controls [data-control="ready"]'
START = '#table-controls [data-control="start"]'


DAPHNE_ENV = "one-game"


def wait_status(page: Any, text: str) -> None:
    page.wait_for_function(
        "(text) => document.getElementById('table-status').textContent === text",
        arg=text,
        timeout=TIMEOUT_MS,
    )


def test_the_host_sees_only_start_and_a_guest_only_ready_each_with_what_comes_next(
    daphne_server: Any, transactional_db: None, browser: Any, page: Any, console: Console
) -> None:
    anna = make_player("anna")
    make_player("boris")
    table = create_table("banker36", name="Один способ начать", host=anna)
    contexts = []
    try:
        host_context, host, _ = player_page(browser, daphne_server.url, "anna", viewport="phone")
        contexts.append(host_context)
        open_table(host, table.pk, sit=True)
        # Alone: no control to start with, and the line says a second seat is wanted.
        wait_status(host, "Для игры нужно ещё 1 игрок за столом.")
        assert host.locator(START).count() == 0
        assert host.locator(READY).count() == 0

        guest_context, guest, _ = player_page(browser, daphne_server.url, "boris")
        contexts.append(guest_context)
        open_table(guest, table.pk, sit=True)
        wait_status(host, "Игра начнётся, когда вы нажмёте «Начать игру».")
        host.locator(START).wait_for(timeout=TIMEOUT_MS)
        assert host.locator(READY).count() == 0
        shoot(host, "table-start-host")
        # The guest's «Готов» cannot start it alone: the host's seat never says «Готов».
        wait_status(
            guest,
            "Игра начнётся, когда все нажмут «Готов» — ждём ещё 2 игроков. "
            "Ведущий может начать её и раньше.",
        )
        assert guest.locator(START).count() == 0
        press_control(guest, "ready")
        wait_status(guest, "Все готовы: игру начнёт ведущий (anna) кнопкой «Начать игру».")
        shoot(guest, "table-start-guest")

        press_control(host, "start")
        for p in (host, guest):
            wait_game_playing(p)
    finally:
        leave_table(table.pk, *contexts)


def test_without_a_host_everyone_has_ready_and_the_line_counts_who_is_left(
    daphne_server: Any, transactional_db: None, browser: Any, page: Any, console: Console
) -> None:
    for name in ("vera", "gleb"):
        make_player(name)
    table = create_table("banker36", name="Без ведущего")
    contexts = []
    pages = {}
    try:
        for name in ("vera", "gleb"):
            context, player, _ = player_page(browser, daphne_server.url, name)
            contexts.append(context)
            pages[name] = player
            open_table(player, table.pk, sit=True)
        for player in pages.values():
            wait_status(player, "Игра начнётся, когда все нажмут «Готов» — ждём ещё 2 игроков.")
            assert player.locator(READY).is_visible()
            assert player.locator(START).count() == 0
        press_control(pages["vera"], "ready")
        wait_status(pages["gleb"], "Игра начнётся, как только вы нажмёте «Готов».")
        wait_status(pages["vera"], "Игра начнётся, когда все нажмут «Готов» — ждём ещё 1 игрока.")
        press_control(pages["gleb"], "ready")
        for player in pages.values():
            wait_game_playing(player)
    finally:
        leave_table(table.pk, *contexts)
