"""A ban holds on every web process (issue 21, item 2), over real sockets to two daphnes.

bob watches one table through each of two web processes sharing PostgreSQL and Redis. A
moderator bans him (the service the admin's form runs, in this process): `sit` is refused
with `banned` on both processes at once — each reads the ban from the database, there is
no per-process cache to wait for — while he keeps watching; lifted, he sits through the
other process at once.

The mute's test goes the whole way: bob insults the table through one process, ann reads
it on the other and reports it, the report is in the admin's queue with the message as
written, a moderator mutes bob for it, and bob's next message is refused with `muted` on
both processes at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import global_settings
from django.test import Client
from django.urls import reverse

from accounts.models import User
from chat.models import ChatMessage
from moderation.services import PERIODS, report_create, sanction_apply, sanction_lift
from tables import services
from tables.models import Table
from tests.integration.live_stack import (
    PASSWORD,
    Conn,
    Stack,
    close_all,
    make_stack,
    open_retrying,
    require_redis_server,
    run_scenario,
    sign_in_async,
    stack_env,
    start_stack,
)

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.asyncio]

SCENARIO_TIMEOUT = 60.0


@pytest.fixture
def stack(postgres: None, transactional_db: None, tmp_path: Path) -> Iterator[Stack]:
    require_redis_server()
    # Two web processes, nothing else: no game is played, so no worker or beat is needed.
    processes = start_stack(
        make_stack(stack_env(""), tmp_path, webs=2, workers=0, beat=False, private_redis=True)
    )
    try:
        yield processes
    finally:
        processes.stop()


@pytest.fixture
def table(transactional_db: None, settings: Any) -> Table:
    # Passwords hashed as daphne checks them (the suite's fast MD5 hasher is test-only).
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    for name in ("ann", "bob", "moder"):
        User.objects.create_user(name, email=f"{name}@example.com", password=PASSWORD)
    User.objects.filter(username="moder").update(is_staff=True, is_superuser=True)
    return services.table_create(
        variant="banker36", name="Two processes", stake=10, entry_limit=100
    )


async def test_a_ban_and_its_lifting_hold_on_both_web_processes_at_once(
    stack: Stack, table: Table
) -> None:
    conns: list[Conn] = []
    await run_scenario(
        stack,
        _scenario(stack, table.pk, conns),
        timeout=SCENARIO_TIMEOUT,
        cleanup=lambda: close_all(conns),
    )


async def _scenario(stack: Stack, table_id: int, conns: list[Conn]) -> None:
    sink: list[str] = []
    first, second = stack.ports
    cookies = [await sign_in_async(port, "bob") for port in (first, second)]
    via_first = await open_retrying("bob@1", first, table_id, sink, cookies[0])
    conns.append(via_first)
    via_second = await open_retrying("bob@2", second, table_id, sink, cookies[1])
    conns.append(via_second)

    bob = await database_sync_to_async(User.objects.get)(username="bob")
    moder = await database_sync_to_async(User.objects.get)(username="moder")
    ban = await database_sync_to_async(sanction_apply)(
        kind="ban", player=bob, by=moder, reason="Сговор", period=PERIODS["1d"]
    )

    for conn in (via_first, via_second):
        refused = await conn.request("sit")
        assert refused["type"] == "error" and refused["code"] == "banned", refused
        assert "Сговор" in refused["message"]
        # Still watching: a snapshot asked for is answered.
        await conn.ws.send(json.dumps({"type": "snapshot"}))
        await conn.expect(lambda f: f["type"] == "snapshot", what="a snapshot while banned")

    await database_sync_to_async(sanction_lift)(sanction=ban, by=moder, reason="Ошибка")
    await via_second.command("sit")


async def test_report_queue_mute_refuses_the_next_chat_message_on_both_web_processes(
    stack: Stack, table: Table
) -> None:
    conns: list[Conn] = []
    await run_scenario(
        stack,
        _mute_scenario(stack, table.pk, conns),
        timeout=SCENARIO_TIMEOUT,
        cleanup=lambda: close_all(conns),
    )


async def _mute_scenario(stack: Stack, table_id: int, conns: list[Conn]) -> None:
    sink: list[str] = []
    first, second = stack.ports
    bob_cookies = [await sign_in_async(port, "bob") for port in (first, second)]
    bob_first = await open_retrying("bob@1", first, table_id, sink, bob_cookies[0])
    conns.append(bob_first)
    bob_second = await open_retrying("bob@2", second, table_id, sink, bob_cookies[1])
    conns.append(bob_second)
    ann = await open_retrying("ann@2", second, table_id, sink, await sign_in_async(second, "ann"))
    conns.append(ann)

    # bob insults the table through one process; ann, on the other, reads it at once.
    said = await bob_first.command("chat", text="Все вы тут дураки")
    line = await ann.expect(
        lambda f: f["type"] == "chat" and f["message"]["id"] == said["chat"],
        what="bob's message on the other process",
    )
    assert line["message"]["author"] == "bob"

    # ann reports it; the report is in the moderators' queue with the message as written.
    ann_user, bob, moder = await database_sync_to_async(_users)("ann", "bob", "moder")
    report = await database_sync_to_async(report_create)(
        reporter=ann_user, reason="insult", message_id=said["chat"]
    )
    queue = await database_sync_to_async(_admin_page)(moder, "admin:moderation_report_changelist")
    assert f"/admin/moderation/report/{report.pk}/" in queue
    evidence = await database_sync_to_async(_admin_page)(
        moder, "admin:moderation_report_change", report.pk
    )
    assert "Все вы тут дураки" in evidence

    # The moderator mutes bob for it: the next message is refused on both processes.
    await database_sync_to_async(sanction_apply)(
        kind="mute", player=bob, by=moder, reason="Оскорбления", period=PERIODS["1h"], report=report
    )
    for conn in (bob_first, bob_second):
        refused = await conn.request("chat", text="Ну и ладно")
        assert refused["type"] == "error" and refused["code"] == "muted", refused
        assert "Оскорбления" in refused["message"]
    assert not await database_sync_to_async(
        ChatMessage.objects.filter(author=bob, text="Ну и ладно").exists
    )()
    # ann may still talk.
    await ann.command("chat", text="Спасибо, модератор")


def _users(*names: str) -> list[User]:
    return [User.objects.get(username=name) for name in names]


def _admin_page(user: User, name: str, *args: Any) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200, response.status_code
    return response.content.decode()
