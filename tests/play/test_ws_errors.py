"""Every error the table WebSocket sends, and its close codes: each refusal names its code,
carries the table's version (and the command's id where the message had a valid one),
changes nothing, and leaves the connection working."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from play.edge import sockets as play_sockets
from play.models import Game
from play.services import moves, seating
from tables import services
from tables.models import Table
from tests.play.ws_helpers import frames_until_quiet, session_cookie
from tests.play.ws_play import Viewer, card_tokens, make_users, playing_game, table_version

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


# --- setting up ------------------------------------------------------------------------


@database_sync_to_async
def table_with(
    variant: str,
    *,
    host: Any = None,
    seated: tuple[Any, ...] = (),
    start: bool = False,
    **fields: Any,
) -> Table:
    """A table with `seated` players (services, not the socket: the errors are the test)."""
    table = services.table_create(variant=variant, name=variant, created_by=host, **fields)
    for user in seated:
        seating.seat_take(table=table, player=user)
    if start:
        moves.game_start(table=table, by=host)
    return Table.objects.get(pk=table.pk)


async def connect(table: Table, user: Any = None, query: str = "") -> Viewer:
    client = await Viewer.open(table.pk, user, query)
    snapshot = await client.recv()
    assert snapshot["type"] == "snapshot"
    return client


async def refused(client: Viewer, code: str, kind: str, **fields: Any) -> dict[str, Any]:
    """Send a command; it must be refused with `code`, with the id and the table's
    version, changing nothing."""
    before = await table_version(client_table(client))
    answer = await client.command(kind, **fields)
    assert answer["type"] == "error" and answer["code"] == code, answer
    assert answer["id"] == f"c{client.counter}" and answer["message"]
    assert answer["version"] == before == await table_version(client_table(client))
    return answer


def client_table(client: Viewer) -> int:
    return int(client.comm.scope["path"].split("/")[3])


async def error_for(client: Viewer, text: str) -> dict[str, Any]:
    """Send a raw text frame; the error it gets."""
    await client.comm.send_to(text_data=text)
    answer = await client.recv_until(lambda m: m["type"] == "error")
    assert isinstance(answer["version"], int)
    return answer


async def still_works(client: Viewer) -> None:
    await client.send({"type": "ping"})
    pong = await client.recv_until(lambda m: m["type"] in ("pong", "error"))
    assert pong["type"] == "pong", pong


async def banker36_duel(make_user: Any, **fields: Any) -> tuple[Table, dict[str, Viewer]]:
    """A banker36 bank in play: 'banker' holds it and hosts the table, 'ponter' is to bet."""
    one, two = await make_users(make_user, "bo", "pia")
    table = await table_with(
        "banker36", host=one, seated=(one, two), start=True, stake=10, entry_limit=100, **fields
    )
    game = await playing_game(table.pk)
    banker = one if game.state["banker"] == "bo" else two
    ponter = two if banker is one else one
    # The banker (never on turn in a duel) hosts the table.
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(created_by=banker)
    clients = {"banker": await connect(table, banker), "ponter": await connect(table, ponter)}
    return table, clients


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lift the rate limit for tests that send many messages quickly."""
    monkeypatch.setattr(play_sockets, "RATE_PER_SECOND", 10_000.0)


# --- malformed frames --------------------------------------------------------------------


async def test_bad_json_is_refused_and_the_connection_still_works(make_user):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("classic")
    for user in (None, ann):
        client = await connect(table, user)
        for text in ("{not json", "{'type': 'ping'}", '{"type": "ping"', "NaN]"):
            answer = await error_for(client, text)
            assert answer["code"] == "bad_json" and "id" not in answer
        await client.comm.send_to(bytes_data=b"\xc3\x28")  # not UTF-8
        assert (await client.recv_until(lambda m: m["type"] == "error"))["code"] == "bad_json"
        await still_works(client)
        await client.close()


async def test_json_nested_too_deep_is_bad_json_not_a_dropped_connection(make_user):
    table = await table_with("classic")
    client = await connect(table)
    text = "[" * 1500 + "]" * 1500  # valid JSON under the size limit, too deep to parse
    assert len(text) < play_sockets.MAX_FRAME_BYTES
    assert (await error_for(client, text))["code"] == "bad_json"
    await still_works(client)
    await client.close()


BAD_MESSAGES = [
    # (signed in?, the raw frame, the error carries this id)
    (False, "[1, 2]", None),
    (False, '"ping"', None),
    (False, "17", None),
    (False, "null", None),
    (False, '{"id": "x"}', "x"),
    (False, '{"type": 7}', None),
    (False, '{"type": null, "id": "x"}', "x"),
    (False, '{"type": null, "id": 5}', None),
    (True, '{"type": "sit"}', None),
    (True, '{"type": "sit", "id": ""}', None),
    (True, '{"type": "sit", "id": 5}', None),
    (True, '{"type": "sit", "id": "' + "x" * 65 + '"}', None),
    (True, '{"type": "sit", "id": "s", "invite": 5}', "s"),
    (True, '{"type": "ready", "id": "r", "ready": "yes"}', "r"),
    (True, '{"type": "action", "id": "a"}', "a"),
    (True, '{"type": "action", "id": "a", "action": 5}', "a"),
    (True, '{"type": "action", "id": "a", "action": ["hit"]}', "a"),
    (True, '{"type": "action", "id": "a", "action": "bet", "amount": "10"}', "a"),
    (True, '{"type": "action", "id": "a", "action": "bet", "amount": 10.5}', "a"),
    (True, '{"type": "action", "id": "a", "action": "bet", "amount": true}', "a"),
    (True, '{"type": "action", "id": "a", "action": "cut", "position": null}', "a"),
    (True, '{"type": "action", "id": "a", "action": "hit", "version": "3"}', "a"),
    (True, '{"type": "add_ai", "id": "i", "level": 3}', "i"),
    (True, '{"type": "add_ai", "id": "i"}', "i"),
    (True, '{"type": "remove_ai", "id": "i", "number": "2"}', "i"),
    (True, '{"type": "remove_ai", "id": "i", "number": true}', "i"),
    (True, '{"type": "remove", "id": "i", "seat": 1}', "i"),
]


async def test_bad_message(make_user, fast):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("classic", host=ann)
    clients = {False: await connect(table), True: await connect(table, ann)}
    before = await table_version(table.pk)
    for signed_in, text, echo in BAD_MESSAGES:
        answer = await error_for(clients[signed_in], text)
        assert answer["code"] == "bad_message", (text, answer)
        assert answer.get("id") == echo, (text, answer)
        assert answer["version"] == before, text
    assert await table_version(table.pk) == before
    for client in clients.values():
        await still_works(client)
        await client.close()


# Every command and request with a field out of its definition (contract.table_in):
# wrong type, missing, unknown, null for an optional one, a NUL — refused, naming it.
FIELD_REFUSALS = [
    ({"type": "sit", "id": "f", "invite": 5}, "invite"),
    ({"type": "sit", "id": "f", "invite": None}, "invite"),
    ({"type": "sit", "id": "f", "colour": "red"}, "colour"),
    ({"type": "stand", "id": "f", "now": True}, "now"),
    ({"type": "ready", "id": "f", "ready": "yes"}, "ready"),
    ({"type": "start", "id": "f", "match_length": "5"}, "match_length"),
    ({"type": "client_seed", "id": "f"}, "seed"),
    ({"type": "client_seed", "id": "f", "seed": 42}, "seed"),
    ({"type": "action", "id": "f"}, "action"),
    ({"type": "action", "id": "f", "action": "hit", "amount": 10, "speed": 1}, "speed"),
    ({"type": "action", "id": "f", "action": "hit", "version": -1}, "version"),
    ({"type": "pause", "id": "f", "for": 10}, "for"),
    ({"type": "remove", "id": "f"}, "seat"),
    ({"type": "add_ai", "id": "f", "level": None}, "level"),
    ({"type": "remove_ai", "id": "f", "number": 2.0}, "number"),
    ({"type": "new_game", "id": "f", "bet": 10}, "bet"),
    ({"type": "end_session", "id": "f", "now": 1}, "now"),
    ({"type": "close", "id": "f", "force": True}, "force"),
    ({"type": "chat", "id": "f", "text": 5}, "text"),
    ({"type": "chat", "id": "f", "text": "hi", "to": "ann"}, "to"),
    ({"type": "ping", "id": 5}, "id"),
    ({"type": "ping", "extra": 1}, "extra"),
    ({"type": "snapshot", "full": True}, "full"),
    ({"type": "record", "id": "f"}, "game"),
    ({"type": "sit", "id": "f", "invite": "a\u0000b"}, "invite"),
]


async def test_every_message_with_a_field_out_of_its_definition_is_refused_naming_it(
    make_user, fast
):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("classic", host=ann)
    client = await connect(table, ann)
    before = await table_version(table.pk)
    for message, field in FIELD_REFUSALS:
        answer = await error_for(client, json.dumps(message))
        assert (answer["code"], answer.get("field")) == ("bad_message", field), (message, answer)
        usable = isinstance(message.get("id"), str)
        assert answer.get("id") == (message["id"] if usable else None), (message, answer)
        assert field in answer["message"], answer
    # A command id of 65 characters is no id: refused, without an id to answer to.
    answer = await error_for(client, json.dumps({"type": "stand", "id": "x" * 65}))
    assert answer["code"] == "bad_message" and "id" not in answer
    assert await table_version(table.pk) == before
    await still_works(client)
    await client.close()


async def test_unknown_type_is_named_back_shortened_with_the_messages_id(make_user):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("classic")
    for user in (None, ann):
        client = await connect(table, user)
        answer = await error_for(client, json.dumps({"type": "dance", "id": "d"}))
        assert answer["code"] == "unknown_type" and "dance" in answer["message"]
        assert answer["id"] == "d", answer
        answer = await error_for(client, json.dumps({"type": "Z" * 500}))
        assert answer["code"] == "unknown_type" and "Z" * 41 not in answer["message"]
        assert "id" not in answer, answer
        await still_works(client)
        await client.close()


async def test_too_large_frame_is_refused_unread_and_the_connection_stays_open(make_user):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("banker36", seated=(ann,))
    client = await connect(table, ann)
    limit = play_sockets.MAX_FRAME_BYTES
    big = json.dumps({"type": "stand", "id": "big", "pad": "x" * limit})
    answer = await error_for(client, big)
    assert answer["code"] == "too_large" and "id" not in answer
    # Bytes count, not characters: 2,100 Cyrillic letters are 4,200 bytes.
    wide = json.dumps({"type": "ping", "pad": "я" * 2100}, ensure_ascii=False)
    assert len(wide) < limit < len(wide.encode())
    assert (await error_for(client, wide))["code"] == "too_large"
    # Still seated (the refused «stand» was never read), and the socket still works.
    assert await database_sync_to_async(table.seats.filter(player=ann).exists)()
    # A ping with no field to spare: JSON's whitespace fills it to the limit.
    head = '{"type": "ping"'
    exact = head + " " * (limit - len(head) - 1) + "}"
    assert len(exact.encode()) == limit
    await client.comm.send_to(text_data=exact)
    assert (await client.recv_until(lambda m: m["type"] in ("pong", "error")))["type"] == "pong"
    await client.close()


# --- the rate limit ----------------------------------------------------------------------


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The consumers' monotonic clock, moved only by the test."""
    now = [1000.0]
    clock = SimpleNamespace(monotonic=lambda: now[0], time=lambda: now[0])
    monkeypatch.setattr(play_sockets, "time", clock)
    return now


async def test_rate_limited_flood_gets_errors_and_the_table_plays_on(make_user, frozen_clock):
    table, clients = await banker36_duel(make_user)
    flooder, ponter = clients["banker"], clients["ponter"]
    flood = 3 * play_sockets.BURST
    for n in range(flood):  # far more than a burst, all at once
        await flooder.send({"type": "action", "id": f"f{n}", "action": "hit"})
    answers: list[dict[str, Any]] = []
    while len(answers) < play_sockets.BURST:  # (a presence note may come in between)
        message = await flooder.recv()
        if message["type"] == "error":
            answers.append(message)
    # The first BURST are read (and refused by the rules: not the banker's turn) ...
    assert [a["code"] for a in answers] == ["not_your_turn"] * play_sockets.BURST
    assert [a["id"] for a in answers] == [f"f{n}" for n in range(play_sockets.BURST)]
    # ... the rest are refused unread: an error on the first and on every tenth.
    refused_count = flood - play_sockets.BURST
    expected = len([k for k in range(1, refused_count + 1) if k == 1 or k % 10 == 0])
    limited = [await flooder.recv() for _ in range(expected)]
    assert [m["code"] for m in limited] == ["rate_limited"] * expected
    assert all("id" not in m and "10" in m["message"] for m in limited)
    # Each names the connection's bucket and the whole seconds until it holds a token:
    # at 10 a second, a tenth of a second, rounded up.
    assert {(m["limit"], m["retry_after"]) for m in limited} == {("socket_messages", 1)}
    assert await flooder.comm.receive_nothing(timeout=0.2)
    # The table is unharmed: the other player bets and everyone sees it.
    version = await table_version(table.pk)
    answer = await ponter.command("action", action="bet", amount=10, version=version)
    assert answer["type"] == "ack" and answer["version"] == version + 1
    frame = await flooder.recv_until(lambda m: m["type"] == "update")
    assert frame["version"] == version + 1 and frame["game"]["view"]["circle"]["duel"]["bet"] == 10
    # After the wait it named, the flooder's connection works again.
    frozen_clock[0] += limited[-1]["retry_after"]
    await still_works(flooder)
    for client in clients.values():
        await client.close()


async def test_a_flood_that_goes_on_is_closed_with_4429(frozen_clock):
    table = await table_with("classic")
    client = await connect(table)
    for _ in range(play_sockets.BURST + play_sockets.FLOOD_CLOSE_AFTER):
        await client.send({"type": "ping"})
    kinds = []
    while True:
        output = await client.comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            assert output["code"] == play_sockets.CLOSE_FLOODING
            break
        kinds.append(json.loads(output["text"])["type"])
    assert kinds.count("pong") == play_sockets.BURST and "error" in kinds


async def test_a_users_sockets_share_one_budget_across_connections(make_user, frozen_clock):
    """Four sockets of one user, each within its own burst, together exceed the user's
    budget: only USER_RATE_PER_SECOND messages in the second are read."""
    table = await table_with("classic")
    user = await database_sync_to_async(make_user)("many")
    sockets = [await connect(table, user) for _ in range(4)]
    for socket in sockets:
        for _ in range(play_sockets.BURST):
            await socket.send({"type": "ping"})
    kinds, limited = await frames_until_quiet(sockets)
    assert kinds["pong"] == play_sockets.USER_RATE_PER_SECOND
    assert limited and {m["code"] for m in limited} == {"rate_limited"}
    assert all("всех ваших подключений" in m["message"] for m in limited)
    # Counted in whole UTC seconds: the clock stands at one's start, so the next is 1 s off.
    assert {(m["limit"], m["retry_after"]) for m in limited} == {("user_messages", 1)}
    # Another user is not affected, and after the wait named the budget is back.
    other = await connect(table, await database_sync_to_async(make_user)("other"))
    await still_works(other)
    frozen_clock[0] += limited[0]["retry_after"]
    await still_works(sockets[0])
    for socket in [*sockets, other]:
        await socket.close()


# --- who may do what ---------------------------------------------------------------------


async def test_not_signed_in_spectator_may_not_sit_or_play(make_user):
    table, clients = await banker36_duel(make_user)
    anonymous = await connect(table)
    for kind, fields in [
        ("sit", {}),
        ("ready", {}),
        ("start", {}),
        ("action", {"action": "bet", "amount": 10}),
        ("pause", {}),
        ("add_ai", {"level": "easy"}),
        ("new_game", {}),
        ("close", {}),
    ]:
        await refused(anonymous, "not_signed_in", kind, **fields)
    # An id that is not valid is not echoed back.
    answer = await error_for(anonymous, json.dumps({"type": "sit", "id": "x" * 65}))
    assert answer["code"] == "not_signed_in" and answer["id"] is None
    await still_works(anonymous)
    for client in (anonymous, *clients.values()):
        await client.close()


async def test_not_seated(make_user):
    (kim,) = await make_users(make_user, "kim")
    table, clients = await banker36_duel(make_user)
    watcher = await connect(table, kim)
    await refused(watcher, "not_seated", "ready")
    await refused(watcher, "not_seated", "action", action="bet", amount=10)
    # Seated after the bank began: not in this game.
    assert (await watcher.command("sit"))["type"] == "ack"
    await refused(watcher, "not_seated", "action", action="bet", amount=10)
    solo = await table_with("solo")
    solo_watcher = await connect(solo, kim)
    await refused(solo_watcher, "not_seated", "new_game")
    await solo_watcher.close()
    blackjack = await table_with("blackjack")
    trainee = await connect(blackjack, kim)
    await refused(trainee, "no_game", "end_session")  # no session yet: checked first
    for client in (watcher, trainee, *clients.values()):
        await client.close()


async def test_not_your_turn_changes_nothing_and_shows_no_cards(make_user):
    table, clients = await banker36_duel(make_user)
    banker = clients["banker"]
    for fields in ({"action": "hit"}, {"action": "stand"}, {"action": "bet", "amount": 10}):
        answer = await refused(banker, "not_your_turn", "action", **fields)
        assert card_tokens(answer) == []
    game = await playing_game(table.pk)
    assert game.actions == []
    for client in clients.values():
        await client.close()


async def test_illegal_action(make_user):
    table, clients = await banker36_duel(make_user)
    ponter = clients["ponter"]
    await refused(ponter, "illegal_action", "action", action="hit")  # a bet comes first
    await refused(ponter, "illegal_action", "action", action="double")  # not in banker36
    await refused(ponter, "illegal_action", "action", action="timeout")  # the clock's own
    await refused(ponter, "illegal_action", "action", action="remove")  # classic's host move
    await refused(ponter, "illegal_action", "action", action="cut", position=3)  # salon only
    await refused(ponter, "illegal_action", "end_session")  # blackjack only
    assert (await playing_game(table.pk)).actions == []
    for client in clients.values():
        await client.close()


@pytest.mark.parametrize("variant", ["classic", "banker36", "salon"])
async def test_new_game_is_solo_only_and_never_ends_another_variants_game(make_user, variant):
    one, two = await make_users(make_user, "uma", "vic")
    fields = {"banker36": {"stake": 10}, "salon": {"min_bet": 10}}.get(variant, {})
    table = await table_with(variant, host=one, seated=(one, two), start=True, **fields)
    game = await playing_game(table.pk)
    client = await connect(table, two)
    await refused(client, "illegal_action", "new_game")
    still = await playing_game(table.pk)
    assert still is not None and still.pk == game.pk and still.status == Game.Status.PLAYING
    assert await database_sync_to_async(Game.objects.filter(table=table).count)() == 1
    await client.close()


async def test_bad_amount(make_user):
    _table, clients = await banker36_duel(make_user)
    ponter = clients["ponter"]
    for amount in (7, 0, -10, 20, 10**9):  # the bank of 10 offers only 10
        answer = await refused(ponter, "bad_amount", "action", action="bet", amount=amount)
        assert "10" in answer["message"]
    await refused(ponter, "bad_amount", "action", action="bet")  # no amount at all
    for client in clients.values():
        await client.close()

    # Salon's cut takes a position inside the shoe; solo's bet is within coins and bank.
    one, two = await make_users(make_user, "cy", "di")
    salon = await table_with("salon", host=one, seated=(one, two), start=True)
    game = await playing_game(salon.pk)
    cutter = one if game.state["turn"] == "cy" else two
    client = await connect(salon, cutter)
    for position in (0, 104, -1):
        await refused(client, "bad_amount", "action", action="cut", position=position)
    other = await connect(salon, two if cutter is one else one)
    await refused(other, "not_your_turn", "action", action="cut", position=5)
    await client.close()
    await other.close()
    (eve,) = await make_users(make_user, "eve")
    solo = await table_with("solo", seated=(eve,))
    client = await connect(solo, eve)
    for amount in (0, 301):
        await refused(client, "bad_amount", "action", action="bet", amount=amount)
    await client.close()


async def test_stale_version_is_refused_and_followed_by_a_snapshot(make_user):
    table, clients = await banker36_duel(make_user)
    ponter = clients["ponter"]
    current = await table_version(table.pk)
    answer = await refused(
        ponter, "stale_version", "action", action="bet", amount=10, version=current - 1
    )
    assert str(current) in answer["message"]
    snapshot = await ponter.recv()
    assert snapshot["type"] == "snapshot" and snapshot["version"] == current
    assert snapshot["game"]["view"]["actions"] == [{"action": "bet", "amounts": [10]}]
    # With the version it now has, the same move goes through.
    answer = await ponter.command("action", action="bet", amount=10, version=current)
    assert answer["type"] == "ack" and answer["version"] == current + 1
    for client in clients.values():
        await client.close()


async def test_no_game(make_user):
    one, two = await make_users(make_user, "fay", "gus")
    table = await table_with("banker36", host=one, seated=(one, two))
    client = await connect(table, one)
    await refused(client, "no_game", "action", action="bet", amount=10)
    await refused(client, "no_game", "pause")
    blackjack = await table_with("blackjack", seated=(two,))
    trainee = await connect(blackjack, two)
    await refused(trainee, "no_game", "end_session")
    await client.close()
    await trainee.close()


async def test_paused_game_refuses_moves_and_resume_when_not_paused_is_refused(make_user):
    _table, clients = await banker36_duel(make_user)
    host, ponter = clients["banker"], clients["ponter"]
    await refused(host, "not_paused", "resume")
    assert (await host.command("pause"))["type"] == "ack"
    frame = await ponter.recv_until(lambda m: m["type"] == "update")
    assert frame["game"]["paused"] is True and frame["game"]["deadline"] is None
    await refused(ponter, "paused", "action", action="bet", amount=10)
    assert (await host.command("pause"))["type"] == "ack"  # pausing twice is harmless
    assert (await host.command("resume"))["type"] == "ack"
    await refused(host, "not_paused", "resume")
    assert (await ponter.command("action", action="bet", amount=10))["type"] == "ack"
    for client in clients.values():
        await client.close()


async def test_not_host(make_user):
    table, clients = await banker36_duel(make_user)
    ponter = clients["ponter"]
    for kind, fields in [
        ("start", {}),
        ("pause", {}),
        ("resume", {}),
        ("remove", {"seat": "bo"}),
        ("close", {}),
        ("add_ai", {"level": "easy"}),
        ("remove_ai", {"number": 3}),
    ]:
        await refused(ponter, "not_host", kind, **fields)
    assert (await database_sync_to_async(Table.objects.get)(pk=table.pk)).is_open
    for client in clients.values():
        await client.close()


async def test_remove_and_remove_ai_of_nobody_is_not_found(make_user):
    (host,) = await make_users(make_user, "hal")
    table = await table_with("classic", host=host, seated=(host,))
    client = await connect(table, host)
    await refused(client, "not_found", "remove", seat="nobody")
    await refused(client, "not_found", "remove_ai", number=2)
    await client.close()


async def test_table_full(make_user):
    one, two, three = await make_users(make_user, "ida", "jon", "kai")
    table = await table_with("banker36", seated=(one, two), seat_count=2)
    client = await connect(table, three)
    await refused(client, "table_full", "sit")
    classic = await table_with("classic", host=one, seated=(one, two), seat_count=2)
    host = await connect(classic, one)
    await refused(host, "table_full", "add_ai", level="easy")
    await client.close()
    await host.close()


async def test_below_entry_limit(make_user):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("banker36", entry_limit=10_001)
    client = await connect(table, ann)
    answer = await refused(client, "below_entry_limit", "sit")
    # The numbers grouped as everywhere, the noun in the form 10 001 asks for («фишки»).
    assert "не меньше 10\u00a0001 фишки, у вас 10\u00a0000" in answer["message"]
    await client.close()


async def test_seated_elsewhere(make_user):
    (ann,) = await make_users(make_user, "ann")
    await table_with("salon", seated=(ann,))
    table = await table_with("banker36")
    client = await connect(table, ann)
    await refused(client, "seated_elsewhere", "sit")
    await client.close()


async def test_invite_required_at_a_private_table(make_user):
    host, guest, other = await make_users(make_user, "lev", "mia", "ned")
    table = await table_with("classic", host=host, private=True)
    client = await connect(table, guest, query=f"invite={table.invite_code}")
    await refused(client, "invite_required", "sit", invite="wrong")
    # The invite the connection came in with lets its player sit.
    assert (await client.command("sit"))["type"] == "ack"
    await client.close()
    another = await connect(table, other, query=f"invite={table.invite_code}")
    assert (await another.command("sit", invite=table.invite_code))["type"] == "ack"
    await another.close()


async def test_table_closed(make_user):
    host, guest = await make_users(make_user, "ned", "ola")
    table = await table_with("classic", host=host, seated=(host,))
    owner = await connect(table, host)
    assert (await owner.command("close"))["type"] == "ack"
    client = await connect(table, guest)
    await refused(client, "table_closed", "sit")
    await refused(owner, "table_closed", "add_ai", level="easy")
    await refused(owner, "table_closed", "start")
    await client.close()
    await owner.close()


async def test_no_ai_here_and_bad_level(make_user):
    (host,) = await make_users(make_user, "pam")
    for variant in ("salon", "banker36", "solo"):
        table = await table_with(variant, host=host)
        client = await connect(table, host)
        await refused(client, "no_ai_here", "add_ai", level="easy")
        await client.close()
    table = await table_with("classic", host=host)
    client = await connect(table, host)
    answer = await refused(client, "bad_level", "add_ai", level="godlike")
    assert "easy" in answer["message"]
    await client.close()


async def test_not_enough_players_and_game_in_play(make_user):
    host, guest = await make_users(make_user, "quin", "rex")
    table = await table_with("classic", host=host, seated=(host,))
    client = await connect(table, host)
    await refused(client, "not_enough_players", "start")
    other = await connect(table, guest)
    assert (await other.command("sit"))["type"] == "ack"
    assert (await client.command("start"))["type"] == "ack"
    await refused(client, "game_in_play", "start")
    await client.close()
    await other.close()


# --- records -------------------------------------------------------------------------------


async def test_record_is_forbidden_to_spectators_and_unknown_games_are_not_found(make_user):
    (kim,) = await make_users(make_user, "kim")
    table, clients = await banker36_duel(make_user)
    anonymous = await connect(table)
    stranger = await connect(table, kim)
    for client in (anonymous, stranger):
        await client.send({"type": "record", "game": 1})
        answer = await client.recv_until(lambda m: m["type"] in ("record", "error"))
        assert answer["code"] == "forbidden", answer
    player = clients["ponter"]
    for number in (2, 0, -1):
        await player.send({"type": "record", "game": number})
        answer = await player.recv_until(lambda m: m["type"] in ("record", "error"))
        assert answer["code"] == "not_found", (number, answer)
    # `game` is an integer (contract.table_in.RecordRequest): anything else, or none, is a
    # malformed request, named back.
    for number in ("1", "abc", [1], {"n": 1}, None, True, 1.0):
        await player.send({"type": "record", "game": number})
        answer = await player.recv_until(lambda m: m["type"] in ("record", "error"))
        assert (answer["code"], answer["field"]) == ("bad_message", "game"), (number, answer)
    await player.send({"type": "record"})
    answer = await player.recv_until(lambda m: m["type"] == "error")
    assert (answer["code"], answer["field"]) == ("bad_message", "game")
    await still_works(player)
    await player.send({"type": "record", "game": 1})
    answer = await player.recv_until(lambda m: m["type"] in ("record", "error"))
    assert answer["type"] == "record" and "seed" not in answer["record"]
    for client in (anonymous, stranger, *clients.values()):
        await client.close()


async def test_a_record_request_with_an_id_is_answered_with_it_refused_or_not(make_user):
    (kim,) = await make_users(make_user, "kim")
    table, clients = await banker36_duel(make_user)
    stranger = await connect(table, kim)
    player = clients["ponter"]
    for client, number, code in ((stranger, 1, "forbidden"), (player, 2, "not_found")):
        await client.send({"type": "record", "game": number, "id": "r1"})
        answer = await client.recv_until(lambda m: m["type"] in ("record", "error"))
        assert answer["code"] == code and answer["id"] == "r1", answer
    await player.send({"type": "record", "game": 1, "id": "r2"})
    answer = await player.recv_until(lambda m: m["type"] in ("record", "error"))
    assert answer["type"] == "record" and answer["id"] == "r2", answer
    for client in (stranger, *clients.values()):
        await client.close()


# --- close codes -------------------------------------------------------------------------


async def closed_with(path: str, cookie: bytes | None = None) -> int:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if cookie:
        headers.append((b"cookie", cookie))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect()
    if connected:  # accepted, then closed with the reason's code
        output = await comm.receive_output(timeout=5)
        assert output["type"] == "websocket.close", output
        code = output["code"]
    await comm.disconnect()
    return int(code)


async def test_unknown_table_closes_with_4404(make_user):
    (ann,) = await make_users(make_user, "ann")
    assert await closed_with("/ws/tables/987654/") == play_sockets.CLOSE_NOT_FOUND == 4404
    cookie = await database_sync_to_async(session_cookie)(ann)
    assert await closed_with("/ws/tables/987654/", cookie) == 4404


async def test_private_table_without_invite_closes_with_4403(make_user):
    host, guest = await make_users(make_user, "sam", "tia")
    table = await table_with("classic", host=host, private=True)
    path = f"/ws/tables/{table.pk}/"
    cookie = await database_sync_to_async(session_cookie)(guest)
    assert await closed_with(path) == play_sockets.CLOSE_FORBIDDEN == 4403
    assert await closed_with(path, cookie) == 4403
    assert await closed_with(path + "?invite=wrong", cookie) == 4403
    # The invite, the host and a seated player may watch.
    for client in (
        await connect(table, None, query=f"invite={table.invite_code}"),
        await connect(table, host),
    ):
        await client.close()


# --- idempotent commands -----------------------------------------------------------------


async def test_same_action_id_twice_is_applied_once_and_answered_as_a_repeat(make_user):
    table, clients = await banker36_duel(make_user)
    ponter = clients["ponter"]
    version = await table_version(table.pk)
    message = {"type": "action", "id": "bet-1", "action": "bet", "amount": 10, "version": version}
    await ponter.send(message)
    first = await ponter.recv_until(lambda m: m.get("id") == "bet-1")
    assert first["type"] == "ack" and first["version"] == version + 1 and "repeat" not in first
    await ponter.send(message)
    second = await ponter.recv_until(lambda m: m.get("id") == "bet-1")
    assert second == {**first, "repeat": True}
    game = await playing_game(table.pk)
    assert [a["action"] for a in game.actions] == ["bet"]
    assert await table_version(table.pk) == version + 1
    for client in clients.values():
        await client.close()


async def test_a_resend_after_a_refusal_is_evaluated_again(make_user, fast):
    one, two = await make_users(make_user, "uli", "val")
    table = await table_with("classic", host=one, seated=(one, two), start=True)
    clients = {"uli": await connect(table, one), "val": await connect(table, two)}
    game = await playing_game(table.pk)
    waiting = "val" if game.state["order"][game.state["turn"]] == "uli" else "uli"
    message = {"type": "action", "id": "stand-1", "action": "stand"}
    await clients[waiting].send(message)
    answer = await clients[waiting].recv_until(lambda m: m.get("id") == "stand-1")
    assert answer["type"] == "error" and answer["code"] == "not_your_turn"
    for _ in range(50):  # the other player stands until it is this one's turn
        game = await playing_game(table.pk)
        on_turn = game.state["order"][game.state["turn"]]
        if on_turn == waiting:
            break
        assert (await clients[on_turn].command("action", action="stand"))["type"] == "ack"
    else:
        raise AssertionError("never this player's turn")
    await clients[waiting].send(message)
    answer = await clients[waiting].recv_until(lambda m: m.get("id") == "stand-1")
    assert answer["type"] == "ack" and "repeat" not in answer
    after = await playing_game(table.pk)
    assert after.actions[-1] == {"seat": waiting, "action": "stand"}
    for client in clients.values():
        await client.close()
