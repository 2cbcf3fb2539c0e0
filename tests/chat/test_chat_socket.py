"""The table chat over real sockets (docs/protocol.md §17): players and spectators talk,
a spectator cannot coach a seated player mid-deal, limits, the word filter, blocks, the
history a reconnect restores."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.test import override_settings

from chat.models import ChatMessage
from games import engine
from people.models import Block
from people.signals import blocks_changed
from play.models import Game
from play.services import moves
from tests.play.live_helpers import classic_started
from tests.play.ws_helpers import TableClient

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def _is_chat(text: str) -> Any:
    return lambda m: m["type"] == "chat" and m["message"]["text"] == text


async def _opened(table_id: int, user: Any = None) -> TableClient:
    """A table socket with its snapshot read, and its chat history if one came (a table
    with no message the viewer may see sends none): `client.history`."""
    client = await TableClient.open(table_id, user)
    assert (await client.recv())["type"] == "snapshot"
    client.history = {"messages": []}  # type: ignore[attr-defined]
    while not await client.comm.receive_nothing(timeout=0.3):
        frame = await client.recv()
        if frame["type"] == "chat_history":
            client.history = frame  # type: ignore[attr-defined]
    return client


async def _say(client: TableClient, **fields: Any) -> dict[str, Any]:
    return await client.command("chat", **fields)


async def _frames_until_quiet(client: TableClient, quiet: float = 0.3) -> list[dict[str, Any]]:
    """What the socket receives until it is quiet (receive_nothing: a receive that times
    out would cancel the application)."""
    frames = []
    while not await client.comm.receive_nothing(timeout=quiet):
        frames.append(await client.recv())
    return frames


async def _nothing_said(client: TableClient, text: str) -> bool:
    frames = await _frames_until_quiet(client)
    return not any(f["type"] == "chat" and f["message"]["text"] == text for f in frames)


def _end_the_deal(table_id: int) -> None:
    """Play the seats on turn (each stands) until a round of the match settles."""
    game = Game.objects.get(table_id=table_id, status=Game.Status.PLAYING)
    settled = len(game.state["rounds"])
    for _ in range(50):
        game = Game.objects.filter(table_id=table_id, number=game.number).first()
        if game.status != Game.Status.PLAYING or len(game.state["rounds"]) > settled:
            return
        turn = engine.legal_actions(game.state)
        entry = game.player_entry(turn["seat"])
        from accounts.models import User

        moves.game_act(
            table=game.table,
            player=User.objects.get(pk=entry["user"]),
            action={"action": "stand"},
            version=None,
        )
    raise AssertionError("the deal did not end")


@pytest.fixture
def classic(make_user: Any) -> Any:
    async def make() -> tuple[Any, Any, Any, Any, Any]:
        table, users = await database_sync_to_async(classic_started)(make_user)
        ann, bob = users.values()
        carol = await database_sync_to_async(make_user)("carol")
        dave = await database_sync_to_async(make_user)("dave")
        return table, ann, bob, carol, dave

    return make


async def test_two_players_and_a_spectator_chat(classic):
    table, ann, bob, carol, _dave = await classic()
    a, b, c = [await _opened(table.pk, u) for u in (ann, bob, carol)]
    answer = await _say(a, text="Привет всем")
    assert answer["type"] == "ack" and isinstance(answer["chat"], int)
    for client in (a, b, c):
        frame = await client.recv_until(_is_chat("Привет всем"))
        message = frame["message"]
        assert message["author"] == "ann" and message["role"] == "player"
        assert message["held"] is False and "version" in frame
    assert (await _say(b, text="И тебе"))["type"] == "ack"
    for client in (a, b, c):
        await client.recv_until(_is_chat("И тебе"))
    for client in (a, b, c):
        await client.close()


async def test_a_spectator_mid_deal_reaches_spectators_at_once_and_players_after_the_deal(
    classic,
):
    table, ann, bob, carol, dave = await classic()
    a, b, c, d = [await _opened(table.pk, u) for u in (ann, bob, carol, dave)]
    assert (await _say(c, text="Бери ещё!"))["type"] == "ack"
    # The other spectator has it at once, and so does its author.
    frame = await d.recv_until(_is_chat("Бери ещё!"))
    assert frame["message"]["role"] == "spectator" and frame["message"]["held"] is False
    await c.recv_until(_is_chat("Бери ещё!"))
    # The seated players do not, while the deal is in play.
    assert await _nothing_said(a, "Бери ещё!")
    assert await _nothing_said(b, "Бери ещё!")
    # Nor does a reconnect of a seated player restore it.
    again = await _opened(table.pk, ann)
    assert all(m["text"] != "Бери ещё!" for m in again.history["messages"])
    await again.close()
    # The deal ends: now they get it, marked as held.
    await database_sync_to_async(_end_the_deal)(table.pk)
    for client in (a, b):
        frame = await client.recv_until(_is_chat("Бери ещё!"))
        assert frame["message"]["held"] is True
    # The spectators are not sent it twice.
    assert await _nothing_said(d, "Бери ещё!")
    # Restored after the deal, to a player it was held from: marked, the author a spectator.
    again = await _opened(table.pk, bob)
    (restored,) = [m for m in again.history["messages"] if m["text"] == "Бери ещё!"]
    assert restored["held"] is True and restored["role"] == "spectator"
    await again.close()
    for client in (a, b, c, d):
        await client.close()


async def test_an_anonymous_watcher_reads_but_cannot_write(classic):
    table, ann, *_ = await classic()
    a = await _opened(table.pk, ann)
    await _say(a, text="Смотрите")
    watcher = await _opened(table.pk)
    assert watcher.history["can_write"] is False
    assert [m["text"] for m in watcher.history["messages"]] == ["Смотрите"]
    refused = await _say(watcher, text="Привет")
    assert refused["type"] == "error" and refused["code"] == "not_signed_in"
    await _say(a, text="Ещё")
    await watcher.recv_until(_is_chat("Ещё"))
    for client in (a, watcher):
        await client.close()


@override_settings(CHAT_RATE_MESSAGES=3, CHAT_RATE_WINDOW_SECONDS=3600)
async def test_messages_over_the_rate_budget_are_refused_saying_when_to_retry(classic):
    table, ann, *_ = await classic()
    a = await _opened(table.pk, ann)
    # Windows of an hour are clock hours: at 12:59:10 this one ends in 50 s.
    at = datetime.datetime(2026, 3, 2, 12, 59, 10, tzinfo=datetime.UTC)
    with time_machine.travel(at, tick=False) as clock:
        for n in range(3):
            assert (await _say(a, text=f"раз {n}"))["type"] == "ack"
        refused = await _say(a, text="ещё")
        assert refused["code"] == "rate_limited"
        assert (refused["limit"], refused["retry_after"]) == ("chat_messages", 50)
        assert "50 с." in refused["message"]
        assert await database_sync_to_async(ChatMessage.objects.count)() == 3
        clock.shift(50)
        assert (await _say(a, text="ещё"))["type"] == "ack"
    await a.close()


async def test_the_length_limit_is_200_characters_after_trimming_and_empty_is_refused(classic):
    table, ann, *_ = await classic()
    a = await _opened(table.pk, ann)
    assert (await _say(a, text="  " + "я" * 200 + "  \n"))["type"] == "ack"
    too_long = await _say(a, text="я" * 201)
    assert too_long["code"] == "chat_too_long"
    empty = await _say(a, text=" \u200b\t ")
    assert empty["code"] == "chat_empty"
    bad = await _say(a, text=5)
    assert bad["code"] == "bad_message"
    await a.close()


async def test_control_characters_are_dropped_and_markup_stays_text(classic):
    table, ann, bob, *_ = await classic()
    a, b = await _opened(table.pk, ann), await _opened(table.pk, bob)
    await _say(a, text="<script>alert(1)</script>\u202e\x07 ok")
    frame = await b.recv_until(lambda m: m["type"] == "chat")
    assert frame["message"]["text"] == "<script>alert(1)</script> ok"
    for client in (a, b):
        await client.close()


async def test_the_word_filter_masks_for_players_and_keeps_the_original_for_moderators(
    classic,
):
    table, ann, bob, *_ = await classic()
    a, b = await _opened(table.pk, ann), await _opened(table.pk, bob)
    await _say(a, text="ну ты и мудак, блять")
    frame = await b.recv_until(lambda m: m["type"] == "chat")
    assert frame["message"]["text"] == "ну ты и м****, б****"
    stored = await database_sync_to_async(ChatMessage.objects.get)()
    assert stored.text == "ну ты и мудак, блять" and stored.shown == "ну ты и м****, б****"
    for client in (a, b):
        await client.close()


async def test_quick_phrases_reach_each_viewer_in_their_own_language(classic):
    table, ann, bob, *_ = await classic()
    a = await _opened(table.pk, ann)
    english = TableClient(table.pk, await database_sync_to_async(_cookie)(bob, "en"))
    assert (await english.comm.connect())[0]
    await english.recv_until(lambda m: m["type"] == "snapshot")
    assert (await _say(a, phrase="good_luck"))["type"] == "ack"
    ru = await a.recv_until(lambda m: m["type"] == "chat")
    en = await english.recv_until(lambda m: m["type"] == "chat")
    assert ru["message"]["text"] == "Удачи!" and ru["message"]["phrase"] == "good_luck"
    assert en["message"]["text"] == "Good luck!"
    assert (await _say(a, reaction="thumbs_up"))["type"] == "ack"
    frame = await english.recv_until(lambda m: m["type"] == "chat")
    assert frame["message"]["reaction"] == "thumbs_up" and frame["message"]["text"] == "👍"
    unknown = await _say(a, phrase="nope")
    assert unknown["code"] == "bad_message"
    assert unknown["message"] == "Такой быстрой фразы нет."
    english.counter = 0
    refused = await _say(english, text="   ")
    assert refused["code"] == "chat_empty"
    assert refused["message"] == "An empty message is not sent."
    for client in (a, english):
        await client.close()


def _cookie(user: Any, language: str) -> bytes:
    from tests.play.ws_helpers import session_cookie

    return session_cookie(user) + f"; django_language={language}".encode()


def _block(blocker: Any, blocked: Any) -> None:
    Block.objects.create(blocker=blocker, blocked=blocked)
    blocks_changed.send(sender=Block, user_id=blocker.pk)


async def test_a_blocked_author_is_hidden_live_and_in_history(classic):
    table, ann, bob, carol, _ = await classic()
    a, b, c = [await _opened(table.pk, u) for u in (ann, bob, carol)]
    await _say(b, text="до блока")
    await a.recv_until(_is_chat("до блока"))
    await database_sync_to_async(_block)(ann, bob)
    await _frames_until_quiet(a)
    await _say(b, text="после блока")
    await c.recv_until(_is_chat("после блока"))  # carol has not blocked bob
    assert await _nothing_said(a, "после блока")
    again = await _opened(table.pk, ann)
    assert again.history["messages"] == []
    for client in (a, b, c, again):
        await client.close()


async def test_a_reconnect_restores_the_latest_messages(classic):
    table, ann, bob, *_ = await classic()
    a = await _opened(table.pk, ann)
    for text in ("первое", "второе"):
        await _say(a, text=text)
    await a.close()
    b = await _opened(table.pk, bob)
    texts = [m["text"] for m in b.history["messages"]]
    assert texts == ["первое", "второе"]
    assert {m["role"] for m in b.history["messages"]} == {"player"}
    assert b.history["can_write"] is True
    await b.close()


async def test_a_refusal_from_moderation_is_answered_with_its_code(classic):
    from chat.errors import ChatRefused
    from chat.signals import message_posting

    def muted(sender: Any, author: Any, table: Any, **kwargs: Any) -> None:
        raise ChatRefused("muted", "Вы не можете писать в чат до 12:00.")

    message_posting.connect(muted, dispatch_uid="test_muted")
    try:
        table, ann, *_ = await classic()
        a = await _opened(table.pk, ann)
        refused = await _say(a, text="Привет")
        assert refused["code"] == "muted" and "12:00" in refused["message"]
        assert await database_sync_to_async(ChatMessage.objects.count)() == 0
        await a.close()
    finally:
        message_posting.disconnect(dispatch_uid="test_muted")


async def test_a_resent_message_id_posts_once_and_answers_as_the_first_time(classic):
    table, ann, *_ = await classic()
    a = await _opened(table.pk, ann)
    await a.send({"type": "chat", "id": "same", "text": "один раз"})
    first = await a.recv_until(lambda m: m.get("id") == "same")
    await a.send({"type": "chat", "id": "same", "text": "один раз"})
    second = await a.recv_until(lambda m: m.get("id") == "same")
    assert first["type"] == second["type"] == "ack" and first["chat"] == second["chat"]
    assert "repeat" not in first and second["repeat"] is True
    assert await database_sync_to_async(ChatMessage.objects.count)() == 1
    await a.close()


def _close_table(table_id: int) -> None:
    from play.services import closing
    from tables.models import Table

    table = Table.objects.get(pk=table_id)
    closing.table_close_by_host(table=table, by=table.created_by)


async def test_a_held_message_reaches_the_players_when_the_game_is_voided(classic):
    table, ann, _bob, carol, _ = await classic()
    a, c = await _opened(table.pk, ann), await _opened(table.pk, carol)
    await _say(c, text="держу")
    assert await _nothing_said(a, "держу")
    await database_sync_to_async(_close_table)(table.pk)
    frame = await a.recv_until(_is_chat("держу"))
    assert frame["message"]["held"] is True
    for client in (a, c):
        await client.close()


# --- a seated player's shared screen (?view=spectator) ----------------------------------------


async def _screen(table_id: int, user: Any) -> TableClient:
    """`user`'s view-only socket (classic's shared screen): anonymous, on their session."""
    screen = await TableClient.open(table_id, user, query="view=spectator")
    screen.history = {"messages": []}  # type: ignore[attr-defined]
    for frame in await _frames_until_quiet(screen):
        if frame["type"] == "chat_history":
            screen.history = frame  # type: ignore[attr-defined]
    return screen


async def test_a_seated_players_shared_screen_is_held_from_like_the_player(classic):
    # §17.3: the screen watches anonymously, but its session is ann's, who is seated:
    # carol's coaching mid-deal must not reach it, live or in the history of a reopened
    # one; it comes when the deal ends, marked held.
    table, ann, _bob, carol, _dave = await classic()
    screen = await _screen(table.pk, ann)
    c = await _opened(table.pk, carol)
    assert (await _say(c, text="Бери ещё!"))["type"] == "ack"
    assert await _nothing_said(screen, "Бери ещё!")
    reopened = await _screen(table.pk, ann)
    assert all(m["text"] != "Бери ещё!" for m in reopened.history["messages"])
    await database_sync_to_async(_end_the_deal)(table.pk)
    frame = await screen.recv_until(_is_chat("Бери ещё!"))
    assert frame["message"]["held"] is True
    for client in (screen, reopened, c):
        await client.close()


async def test_a_blockers_shared_screen_hides_whom_they_blocked_live_and_in_history(classic):
    table, ann, bob, *_ = await classic()
    b = await _opened(table.pk, bob)
    await _say(b, text="до блока")
    await database_sync_to_async(_block)(ann, bob)
    screen = await _screen(table.pk, ann)
    assert screen.history["messages"] == []
    await _say(b, text="после блока")
    assert await _nothing_said(screen, "после блока")
    for client in (screen, b):
        await client.close()


async def test_a_truly_anonymous_watcher_gets_a_spectators_message_at_once(classic):
    # §17.3: an anonymous watcher (no session user) is a spectator.
    table, _ann, _bob, carol, _dave = await classic()
    watcher = await _opened(table.pk)
    c = await _opened(table.pk, carol)
    assert (await _say(c, text="Бери ещё!"))["type"] == "ack"
    frame = await watcher.recv_until(_is_chat("Бери ещё!"))
    assert frame["message"]["held"] is False
    for client in (watcher, c):
        await client.close()


# --- the fields of `chat` (§17.1) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"reaction": "good_luck"}, "Такой реакции нет."),
        ({"phrase": "thumbs_up"}, "Такой быстрой фразы нет."),
        (
            {"text": "привет", "phrase": "thanks"},
            'Сообщение чата несёт ровно одно из полей "text", "phrase" и "reaction".',
        ),
        (
            {"phrase": "thanks", "reaction": "clap"},
            'Сообщение чата несёт ровно одно из полей "text", "phrase" и "reaction".',
        ),
        ({}, 'Сообщение чата несёт ровно одно из полей "text", "phrase" и "reaction".'),
        ({"text": 5}, "Поле 'text' неверного типа: нужен str, а не int."),
        ({"text": None}, "Поле 'text' неверного типа: нужен str, а не null."),
    ],
)
async def test_a_chat_message_carries_exactly_one_known_field(classic, fields, message):
    table, ann, *_ = await classic()
    a = await _opened(table.pk, ann)
    answer = await _say(a, **fields)
    assert answer["type"] == "error" and answer["code"] == "bad_message"
    assert answer["message"] == message
    assert not await database_sync_to_async(ChatMessage.objects.exists)()
    await a.close()


@override_settings(CHAT_RATE_MESSAGES=2, CHAT_RATE_WINDOW_SECONDS=3600)
async def test_refused_messages_count_against_the_rate_budget(classic):
    # §17.1: "Refused messages count too": a flood of bad messages is limited as well.
    table, ann, *_ = await classic()
    a = await _opened(table.pk, ann)
    assert (await _say(a, text="x" * 201))["code"] == "chat_too_long"
    assert (await _say(a, phrase="nope"))["code"] == "bad_message"
    answer = await _say(a, text="ok")
    assert answer["type"] == "error" and answer["code"] == "rate_limited"
    await a.close()
