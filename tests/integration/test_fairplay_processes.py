"""Linked accounts kept apart over real sockets (issue 32, item 3), on a real daphne.

ann and bob sign in through the login form from one browser (its device cookie) and one
address: their link score is 3. ann sits at a `banker36` table; bob's `sit` is refused
with `linked_account`, in his language, naming no one. eve signs in from the same address
in another browser (score 1: a household, a café) and sits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import global_settings

from benchmarks.http_login import http_request
from fairplay.middleware import DEVICE_COOKIE
from tables import services
from tables.models import Table
from tests.integration.live_stack import (
    HTTP_TIMEOUT,
    PASSWORD,
    Conn,
    Stack,
    close_all,
    create_players,
    make_stack,
    open_retrying,
    require_redis_server,
    run_scenario,
    stack_env,
    start_stack,
)

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

SCENARIO_TIMEOUT = 60.0


@pytest.fixture
def stack(postgres: None, transactional_db: None, tmp_path: Path) -> Iterator[Stack]:
    require_redis_server()
    processes = start_stack(
        make_stack(stack_env(""), tmp_path, webs=1, workers=0, beat=False, private_redis=True)
    )
    try:
        yield processes
    finally:
        processes.stop()


@pytest.fixture
def table(transactional_db: None, settings: Any) -> Table:
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    create_players(["ann", "bob", "eve"])
    return services.table_create(variant="banker36", name="Linked", stake=10, entry_limit=100)


def _sign_in(port: int, username: str, device: str | None) -> tuple[str, str]:
    """The login form from a browser holding `device` (None: a new browser); the
    session cookie to send and the device cookie the browser then holds."""
    jar = f"{DEVICE_COOKIE}={device}" if device else ""
    status, page, cookies = http_request(
        port, "GET", "/login/", headers={"Cookie": jar} if jar else {}, timeout=HTTP_TIMEOUT
    )
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert status == 200 and token, status
    device = device or cookies[DEVICE_COOKIE]
    form = {"csrfmiddlewaretoken": token.group(1), "username": username, "password": PASSWORD}
    status, _page, answer = http_request(
        port,
        "POST",
        "/login/",
        body=urlencode(form),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookies['csrftoken']}; {DEVICE_COOKIE}={device}",
        },
        timeout=HTTP_TIMEOUT,
    )
    assert status == 302 and answer.get("sessionid"), (username, status)
    return f"sessionid={answer['sessionid']}", device


async def test_linked_accounts_are_refused_one_banker36_table_over_real_sockets(
    stack: Stack, table: Table
) -> None:
    conns: list[Conn] = []
    await run_scenario(
        stack,
        _scenario(stack.ports[0], table.pk, conns),
        timeout=SCENARIO_TIMEOUT,
        cleanup=lambda: close_all(conns),
    )


async def _scenario(port: int, table_id: int, conns: list[Conn]) -> None:
    import asyncio

    sink: list[str] = []
    ann_cookie, device = await asyncio.to_thread(_sign_in, port, "ann", None)
    bob_cookie, _ = await asyncio.to_thread(_sign_in, port, "bob", device)  # ann's browser
    eve_cookie, other = await asyncio.to_thread(_sign_in, port, "eve", None)
    assert other != device

    ann = await open_retrying("ann", port, table_id, sink, ann_cookie)
    conns.append(ann)
    await ann.command("sit")

    bob = await open_retrying("bob", port, table_id, sink, bob_cookie + "; django_language=en")
    conns.append(bob)
    refused = await bob.request("sit")
    assert refused["type"] == "error" and refused["code"] == "linked_account", refused
    assert refused["message"].startswith("A player whose account is linked with yours")
    assert "ann" not in refused["message"].lower()

    eve = await open_retrying("eve", port, table_id, sink, eve_cookie)
    conns.append(eve)
    await eve.command("sit")  # the same address, another browser: not kept apart
