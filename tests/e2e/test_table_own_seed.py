"""«Свой ключ» in a real browser: a player types their own client seed in the fairness
panel of a `solo` table. The page refuses one the server would refuse, keeps a good one for
this table in the tab (sessionStorage: a reload keeps it) and sends it, instead of a
random one, for the next game announced to the player — that game only: once sent, the
server has seen it, so it is used up and the next game gets a random seed unless the
player types a new one. The typed seed is in the game's `client_seeds` (the panel, the
database), in the downloaded record once the game is over, and `python -m games verify`
passes that record.

Screenshots of the panel at 360 and 1280 px go to test-artifacts/table-own-seed-*.png: the
field refusing a seed, keeping one, and the game dealt with it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from play.models import Game
from tests.e2e.conftest import ROOT, Console, check_accessibility, shoot
from tests.e2e.table_helpers import (
    act,
    create_table,
    leave_table,
    log_in,
    make_player,
    open_table,
    press_control,
    table_state,
    wait_attr,
    wait_my_turn,
    wait_socket_open,
)

pytestmark = pytest.mark.e2e

MINE = "Moy-klyuch_42"


# The page sends its client seed at once, so the deal does not wait for deal_at.
DAPHNE_ENV = "ticker"


def stored(page: Any, table_id: int) -> str | None:
    value: str | None = page.evaluate(
        "(key) => window.sessionStorage.getItem(key)", f"twentyone.table.{table_id}.own-seed"
    )
    return value


def status(page: Any) -> str:
    text: str = page.locator("#own-seed-status").inner_text()
    return text


def keep(page: Any, text: str) -> None:
    """Type `text` in «Свой ключ» and press Enter (the form's «Запомнить»)."""
    field = page.get_by_label("Свой ключ", exact=True)
    field.fill(text)
    field.press("Enter")


def open_panel(page: Any) -> None:
    """Open «Честная игра» (a <details>, closed when the page loads)."""
    if not page.locator("#fairness").evaluate("(details) => details.open"):
        page.locator("#fairness > summary").click()


def seeds_in_panel(page: Any) -> str:
    text: str = page.locator("#fairness-facts").inner_text()
    return text


def test_a_typed_client_seed_goes_into_the_next_game_and_its_record_verifies(
    daphne_server: Any, transactional_db: None, page: Any, console: Console
) -> None:
    make_player("svoy")
    table = create_table("solo", name="Один на один")
    log_in(page, "svoy")
    open_table(page, table.pk)
    assert table_state(page)["seat"] is None

    # The field is in the fairness panel, with a label, a hint and a status line; empty,
    # it says the game gets a random seed.
    open_panel(page)
    field = page.get_by_label("Свой ключ", exact=True)
    assert field.is_visible() and field.input_value() == ""
    assert "латинские буквы" in page.locator("#own-seed-help").inner_text()
    assert field.get_attribute("aria-describedby") == "own-seed-help own-seed-status"
    assert page.locator("#own-seed-status").get_attribute("role") == "status"
    assert "случайный" in status(page)
    assert page.locator("#own-seed-forget").is_hidden()

    # One the server would refuse (a space, Cyrillic, too long) is refused here, and
    # nothing is kept.
    for bad in ("мой-ключ", "has space", "x" * 65):
        keep(page, bad)
        assert field.get_attribute("aria-invalid") == "true"
        assert status(page).startswith("Ключ — от 1 до 64 знаков")
        assert stored(page, table.pk) is None
    shoot(page, "table-own-seed-refused")

    # A good one is kept for this table in this tab, also over a reload.
    keep(page, f"  {MINE} ")  # spaces around a pasted seed are dropped
    assert field.get_attribute("aria-invalid") == "false"
    assert field.input_value() == MINE and stored(page, table.pk) == MINE
    assert MINE in status(page) and "следующую игру" in status(page)
    assert page.locator("#own-seed-forget").is_visible()
    shoot(page, "table-own-seed")
    check_accessibility(page, "table-own-seed")
    page.reload()
    wait_socket_open(page)
    open_panel(page)
    assert field.input_value() == MINE and MINE in status(page)
    console.assert_clean("after typing the seed")

    # Seated, the game is announced and the page sends the typed seed, not a random one;
    # the seed is used up: the field is empty again and says where it went.
    press_control(page, "sit")
    wait_my_turn(page)
    seat = table_state(page)["seat"]
    first = Game.objects.get(table=table, number=1)
    assert first.client_seeds == [{"seat": seat, "seed": MINE}]
    panel = seeds_in_panel(page)
    assert "Ключи игроков" in panel and f"svoy: {MINE}" in panel
    assert field.input_value() == "" and stored(page, table.pk) is None
    assert status(page).startswith(f"Ключ «{MINE}» ушёл в игру 1.")
    shoot(page, "table-own-seed-dealt")
    check_accessibility(page, "table-own-seed-dealt")

    # «Новая игра»: a new record, a new commitment, and a random seed from the page.
    act(page, "new_game")
    wait_attr(page, "game", "2")
    wait_my_turn(page)
    (second,) = Game.objects.get(table=table, number=2).client_seeds
    assert second["seat"] == seat and second["seed"] != MINE
    assert re.fullmatch(r"[A-Za-z0-9_-]{16}", second["seed"]), second

    # The first game is over: its downloaded record holds the typed seed, revealed with
    # the server seed, and the project's own `verify` passes it.
    response = page.request.get(f"/games/{first.pk}/record.json")
    assert response.ok
    record = response.json()
    assert record["fairness"]["client_seeds"] == [{"seat": seat, "seed": MINE}]
    assert record["fairness"]["server_seed"] and record["seed"]
    record.pop("table")
    verified = subprocess.run(
        [sys.executable, "-m", "games", "verify", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.splitlines()[-1] == "verified: every check passed"

    # «Стереть» forgets a kept seed; a new one typed afterwards goes into the next game.
    keep(page, "Peredumal")
    assert stored(page, table.pk) == "Peredumal"
    page.locator("#own-seed-forget").click()
    assert field.input_value() == "" and stored(page, table.pk) is None
    assert "случайный" in status(page) and page.locator("#own-seed-forget").is_hidden()
    keep(page, "Tretiy-3")
    act(page, "new_game")
    wait_attr(page, "game", "3")
    wait_my_turn(page)
    assert Game.objects.get(table=table, number=3).client_seeds == [
        {"seat": seat, "seed": "Tretiy-3"}
    ]
    assert stored(page, table.pk) is None
    console.assert_clean("at the end")
    leave_table(table.pk, page)
