"""«Ваш ход» by Web Push, decided on the server: a real table socket reports its page
visible (no push) or hidden (one push, its TTL the clock left); one per table per
decision; a page hidden while the decision runs sends it then."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from play.models import Game
from play.services import moves
from push.models import Notice, PageView, Subscription
from tests.play.live_helpers import classic_started
from tests.play.ws_helpers import TableClient

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def _subscribed(user: Any, endpoint: str, keys: dict[str, str]) -> None:
    Subscription.objects.create(user=user, endpoint=endpoint, **keys)


def _on_turn(table_id: int) -> tuple[Game, Any]:
    from accounts.models import User

    game = Game.objects.get(table_id=table_id, status=Game.Status.PLAYING)
    entry = game.player_entry(game.deadline_seat)
    return game, User.objects.get(pk=entry["user"])


def _the_other_plays(table_id: int, user: Any) -> Game:
    """Whoever is on turn stands until it is `user`'s turn again (a new decision)."""
    for _ in range(20):
        game, on_turn = _on_turn(table_id)
        if on_turn == user and _ > 0:
            return game
        moves.game_act(table=game.table, player=on_turn, action={"action": "stand"}, version=None)
    raise AssertionError("never their turn again")


def _stands_until_turn_of(table_id: int, user: Any) -> None:
    """Whoever is on turn stands until it is `user`'s turn."""
    for _ in range(20):
        game, on_turn = _on_turn(table_id)
        if on_turn == user:
            return
        moves.game_act(table=game.table, player=on_turn, action={"action": "stand"}, version=None)
    raise AssertionError("never their turn")


async def _opened(table_id: int, user: Any) -> TableClient:
    client = await TableClient.open(table_id, user)
    assert (await client.recv())["type"] == "snapshot"
    # (receive_nothing: a receive that times out would cancel the application)
    while not await client.comm.receive_nothing(timeout=0.3):
        await client.recv()
    return client


async def _pushes_to(service: Any, name: str, count: int) -> list[Any]:
    """The pushes `name` got, once there are `count` of them (delivered after commit)."""
    for _ in range(300):  # up to 15 s, returning as soon as they are there
        pushes = [r for r in service.received if r.path.endswith(f"/{name}")]
        if len(pushes) >= count:
            return pushes
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} got {len(pushes)} pushes, not {count}")


async def _left(table_id: int, user: Any) -> None:
    """Wait until the server has handled the socket's close (its presence row gone): until
    then the page still counts as looking, and a busy machine can take a moment."""
    from play.models import Presence

    for _ in range(200):  # up to 10 s
        gone = not await database_sync_to_async(
            Presence.objects.filter(table_id=table_id, user=user).exists
        )()
        if gone:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the closed socket still counts as present")


async def _say_visible(client: TableClient, visible: bool) -> None:
    await client.send({"type": "visibility", "visible": visible})
    # No answer: wait until the server has written what it heard (up to 10 s: a loaded
    # CI machine runs a browser beside it).
    for _ in range(200):
        if await database_sync_to_async(PageView.objects.filter(visible=visible).exists)():
            return
        await client.comm.receive_nothing(timeout=0.05)
    raise AssertionError("the visibility was not kept")


async def test_no_turn_push_while_the_table_page_is_visible_one_when_it_is_hidden(
    make_user, vapid, browser, push_service
):
    table, users = await database_sync_to_async(classic_started)(make_user)
    game, on_turn = await database_sync_to_async(_on_turn)(table.pk)
    other = next(u for u in users.values() if u != on_turn)
    for user in users.values():
        await database_sync_to_async(_subscribed)(
            user, push_service.endpoint(user.username), browser.keys
        )
    watching = await _opened(table.pk, on_turn)
    await _say_visible(watching, True)
    # The other player's decisions while `on_turn` looks: none of theirs reaches anyone
    # looking; `other` has no page open, so theirs is pushed. (`on_turn` stands until it
    # is `other`'s turn: a natural dealt to `other` passes the round over them.)
    await database_sync_to_async(_stands_until_turn_of)(table.pk, other)
    sent_to = {r.path.rsplit("/", 1)[1] for r in push_service.received}
    assert on_turn.username not in sent_to
    assert sent_to == {other.username}
    await database_sync_to_async(_the_other_plays)(table.pk, on_turn)
    assert on_turn.username not in {r.path.rsplit("/", 1)[1] for r in push_service.received}

    # Hidden while the decision runs: one push, its TTL what is left of the clock.
    await _say_visible(watching, False)
    game, _ = await database_sync_to_async(_on_turn)(table.pk)
    pushes = await _pushes_to(push_service, on_turn.username, 1)
    left = (game.deadline - timezone.now()).total_seconds()
    assert left - 3 <= int(pushes[0].headers["ttl"]) <= left + 1
    assert pushes[0].headers["topic"] == f"table-{table.pk}"
    payload = json.loads(browser.decrypt(pushes[0].body))
    assert payload == {
        "title": "Ваш ход",
        "body": f"Стол «{table.name}» ждёт вашего решения.",
        "url": f"/tables/{table.pk}/",
        "tag": f"table-{table.pk}",
    }
    # Hidden again, and the socket gone: nothing more for the same decision.
    await _say_visible(watching, True)
    await _say_visible(watching, False)
    await watching.close()
    await asyncio.sleep(0.3)
    assert len([r for r in push_service.received if r.path.endswith(on_turn.username)]) == 1
    kinds = await database_sync_to_async(
        lambda: list(Notice.objects.filter(user=on_turn).values_list("kind", "key"))
    )()
    assert kinds == [("turn", f"{game.pk}:{game.state['version']}")]


async def test_without_a_socket_the_turn_is_pushed_once_per_table_until_the_player_looks(
    make_user, vapid, browser, push_service
):
    table, _users = await database_sync_to_async(classic_started)(make_user)
    _game, on_turn = await database_sync_to_async(_on_turn)(table.pk)
    # Subscribed after the first decision started: the next ones count.
    await database_sync_to_async(_subscribed)(on_turn, push_service.endpoint(), browser.keys)
    await database_sync_to_async(_the_other_plays)(table.pk, on_turn)
    assert len(push_service.received) == 1
    # Their next decision while the first notice is still open: none more for this table.
    await database_sync_to_async(_the_other_plays)(table.pk, on_turn)
    assert len(push_service.received) == 1
    # They look at the table (which closes its notices) and leave: the next decision is sent.
    client = await _opened(table.pk, on_turn)
    await _say_visible(client, True)
    await client.close()
    await _left(table.pk, on_turn)
    await database_sync_to_async(_the_other_plays)(table.pk, on_turn)
    assert len(push_service.received) == 2


async def test_push_off_keeps_nothing_and_sends_nothing(make_user, browser, push_service):
    table, _users = await database_sync_to_async(classic_started)(make_user)
    _game, on_turn = await database_sync_to_async(_on_turn)(table.pk)
    await database_sync_to_async(_subscribed)(on_turn, push_service.endpoint(), browser.keys)
    await database_sync_to_async(_the_other_plays)(table.pk, on_turn)
    assert push_service.received == []
    assert not await database_sync_to_async(Notice.objects.exists)()


async def test_a_malformed_visibility_note_is_refused_naming_its_field(make_user, vapid):
    table, users = await database_sync_to_async(classic_started)(make_user)
    client = await _opened(table.pk, next(iter(users.values())))
    await client.send({"type": "visibility", "visible": "yes"})
    refusal = await client.recv_until(lambda m: m["type"] == "error")
    assert (refusal["code"], refusal["field"]) == ("bad_message", "visible")
    await client.close()
    assert not await database_sync_to_async(PageView.objects.exists)()


async def test_a_resumed_clock_announces_the_decision_it_runs_again(
    make_user, vapid, browser, push_service
):
    """A decision that went unannounced (the player was looking, or not yet subscribed)
    is announced when the host's resume starts its clock again: the player may have
    walked away during the pause."""
    table, users = await database_sync_to_async(classic_started)(make_user)
    game, on_turn = await database_sync_to_async(_on_turn)(table.pk)
    host = next(u for u in users.values() if u.username == "ann")
    await database_sync_to_async(_subscribed)(on_turn, push_service.endpoint(), browser.keys)
    await database_sync_to_async(lambda: moves.game_pause(table=table, by=host))()
    await asyncio.sleep(0.3)
    assert push_service.received == []  # subscribed after the clock started: nothing yet
    await database_sync_to_async(lambda: moves.game_resume(table=table, by=host))()
    (push,) = await _pushes_to(push_service, "browser-1", 1)
    game, _ = await database_sync_to_async(_on_turn)(table.pk)
    left = (game.deadline - timezone.now()).total_seconds()
    assert left - 3 <= int(push.headers["ttl"]) <= left + 1
    kinds = await database_sync_to_async(
        lambda: list(Notice.objects.filter(user=on_turn).values_list("kind", "key"))
    )()
    assert kinds == [("turn", f"{game.pk}:{game.state['version']}")]
    # Paused and resumed again: the same decision is not announced twice.
    await database_sync_to_async(lambda: moves.game_pause(table=table, by=host))()
    await database_sync_to_async(lambda: moves.game_resume(table=table, by=host))()
    await asyncio.sleep(0.3)
    assert len(push_service.received) == 1
