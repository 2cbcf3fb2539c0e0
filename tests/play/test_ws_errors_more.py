"""The error codes of docs/protocol.md §13 that test_ws_errors.py does not reach, over
the sockets (Channels' WebsocketCommunicator): the lobby's `open_table` (`bad_table`,
`bad_message`, and `table_opened` when it succeeds), the client seeds (`no_shuffle`,
`bad_client_seed`, `seed_given`), `leaving`, `insufficient_chips` — and errors in the
connection's language (§2.5): the language cookie, then Accept-Language, then Russian."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import Account
from accounts.services import chips_adjust
from config.asgi import application
from tables.models import Seat, Table
from tests.contract.frames import assert_table_frame
from tests.play.live_helpers import conservation_holds
from tests.play.test_ws_errors import banker36_duel, connect, refused, table_with
from tests.play.ws_helpers import lobby, lobby_answer, session_cookie
from tests.play.ws_play import make_users, playing_game

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

HEADERS = [(b"origin", b"http://localhost"), (b"host", b"localhost")]


async def next_push(comm: Any, table_id: int) -> list[dict[str, Any]]:
    """The tables of the lobby's push that names `table_id` (it comes up to a quarter
    second after the change). A push about another table is passed over: on the Redis
    channel layer a table an earlier test changed may still be announced to the lobby's
    group after that test ended."""
    while True:
        message = await comm.receive_json_from(timeout=5)
        if (
            message["type"] in ("table_added", "table_changed")
            and message["table"]["id"] == table_id
        ):
            return [message["table"]]


@database_sync_to_async
def table_count() -> int:
    return Table.objects.count()


# --- the lobby's open_table --------------------------------------------------------------


async def test_open_table_refused_by_the_model_is_bad_table_naming_the_field_and_opens_nothing(
    make_user,
):
    (ann,) = await make_users(make_user, "ann")
    comm = await lobby(ann)
    cases = [
        # (fields, a field the message names)
        ({"variant": "banker36", "stake": 10, "entry_limit": 5}, "entry_limit"),
        ({"variant": "salon", "min_bet": 50, "max_bet": 10}, "max_bet"),
        ({"variant": "classic", "seat_count": 12}, "seat_count"),
        ({"variant": "classic", "match_length": 6}, "match_length"),
        ({"variant": "poker"}, "variant"),
    ]
    for fields, named in cases:
        answer = await lobby_answer(comm, {"type": "open_table", **fields})
        assert answer["type"] == "error" and answer["code"] == "bad_table", (fields, answer)
        assert named in answer["message"], (fields, answer)
        assert "id" not in answer and "version" not in answer
    assert await table_count() == 0
    await comm.disconnect()


async def test_open_table_with_unknown_or_mistyped_fields_is_bad_message(make_user):
    (ann,) = await make_users(make_user, "ann")
    comm = await lobby(ann)
    for fields in (
        {"variant": "banker36", "colour": "red"},
        {"variant": "banker36", "stake": "10"},
        {"variant": "banker36", "stake": 10.5},
        {"variant": "salon", "private": "yes"},
    ):
        answer = await lobby_answer(comm, {"type": "open_table", **fields})
        assert answer["type"] == "error" and answer["code"] == "bad_message", (fields, answer)
    assert await table_count() == 0
    await comm.disconnect()


async def test_open_table_answers_table_opened_with_the_opener_as_host_and_an_invite_if_private(
    make_user,
):
    (ann,) = await make_users(make_user, "ann")
    comm = await lobby(ann)
    opened = await lobby_answer(
        comm,
        {
            "type": "open_table",
            "variant": "banker36",
            "name": "Банк",
            "stake": 20,
            "entry_limit": 200,
        },
    )
    assert opened == {"type": "table_opened", "table": opened["table"], "invite": None}, opened
    assert opened["table"] in [t["id"] for t in await next_push(comm, opened["table"])]
    table = await database_sync_to_async(Table.objects.get)(pk=opened["table"])
    assert (table.name, table.variant, table.stake, table.entry_limit) == (
        "Банк",
        "banker36",
        20,
        200,
    )
    assert table.created_by_id == ann.pk and not table.private and table.is_open
    # The opener is the host, not seated (docs/protocol.md §14).
    assert not await database_sync_to_async(Seat.objects.filter(table=table).exists)()

    private = await lobby_answer(comm, {"type": "open_table", "variant": "salon", "private": True})
    assert private["type"] == "table_opened" and private["invite"], private
    # Never listed: no diff names it (tests/lobby/test_lobby.py checks that).
    table = await database_sync_to_async(Table.objects.get)(pk=private["table"])
    assert table.private and table.invite_code == private["invite"]
    assert table.name == "Стол ann" and table.created_by_id == ann.pk
    await comm.disconnect()


# --- client seeds ------------------------------------------------------------------------


@database_sync_to_async
def pending_of(table_id: int) -> dict[str, Any] | None:
    return Table.objects.values_list("pending", flat=True).get(pk=table_id)


async def test_client_seed_refusals_no_shuffle_bad_client_seed_and_seed_given(make_user, settings):
    settings.CLIENT_SEED_SECONDS = 30  # the game waits for the players' seeds
    one, two = await make_users(make_user, "ann", "bob")
    table = await table_with("banker36", host=one, seated=(one, two), stake=10, entry_limit=100)
    ann, bob = await connect(table, one), await connect(table, two)
    # Nothing announced yet: no shuffle to give a seed to.
    answer = await refused(ann, "no_shuffle", "client_seed", seed="early")
    assert answer["message"] == "Сейчас колода не тасуется: ключ не нужен."
    assert (await ann.command("start"))["type"] == "ack"
    assert (await pending_of(table.pk))["client_seeds"] == {}
    for seed in ("bad seed!", "", "x" * 65, "ключ"):
        await refused(ann, "bad_client_seed", "client_seed", seed=seed)
    assert (await pending_of(table.pk))["client_seeds"] == {}
    assert (await ann.command("client_seed", seed="good-1"))["type"] == "ack"
    await refused(ann, "seed_given", "client_seed", seed="good-2")
    assert (await pending_of(table.pk))["client_seeds"] == {"ann": "good-1"}
    assert await playing_game(table.pk) is None  # still waiting for bob's
    # The last seed deals; after the deal there is no shuffle to give one to.
    assert (await bob.command("client_seed", seed="good-3"))["type"] == "ack"
    game = await playing_game(table.pk)
    assert game is not None
    assert game.client_seeds == [
        {"seat": "ann", "seed": "good-1"},
        {"seat": "bob", "seed": "good-3"},
    ]
    await refused(bob, "no_shuffle", "client_seed", seed="late")
    await ann.close()
    await bob.close()


# --- leaving -------------------------------------------------------------------------------


async def test_a_player_who_stood_up_mid_game_is_refused_as_leaving_until_the_game_ends(make_user):
    table, clients = await banker36_duel(make_user)
    banker, ponter = clients["banker"], clients["ponter"]
    assert (await banker.command("stand"))["type"] == "ack"
    answer = await refused(banker, "leaving", "sit")
    assert (
        answer["message"] == "Вы встали из-за стола: место освободится, когда закончится эта игра."
    )
    leaving = database_sync_to_async(Seat.objects.filter(table=table, leaving=True).count)
    assert await leaving() == 1  # kept until the game ends
    # The duel is played out; the bank ends and the seat is freed: sitting is allowed again.
    assert (await ponter.command("action", action="bet", amount=10))["type"] == "ack"
    assert (await ponter.command("action", action="stand"))["type"] == "ack"
    assert await playing_game(table.pk) is None
    assert (await banker.command("sit"))["type"] == "ack"
    for client in clients.values():
        await client.close()


# --- insufficient chips --------------------------------------------------------------------


async def test_a_stake_the_wallet_no_longer_holds_is_insufficient_chips_and_nothing_moves(
    make_user,
):
    table, clients = await banker36_duel(make_user)
    ponter = clients["ponter"]
    game = await playing_game(table.pk)
    ponter_user = next(p["user"] for p in game.players if p["id"] != game.state["banker"])

    @database_sync_to_async
    def take_all_but(keep: int) -> None:
        wallet = Account.objects.get(owner_id=ponter_user, kind=Account.Kind.PLAYER)
        chips_adjust(
            wallet=wallet,
            amount=keep - wallet.balance,
            memo="a fine",
            by=None,
            idempotency_key="fine",
        )

    @database_sync_to_async
    def chips_of() -> tuple[int, int]:
        wallet = Account.objects.get(owner_id=ponter_user, kind=Account.Kind.PLAYER).balance
        escrow = Account.objects.filter(code=f"escrow:game:{game.pk}").values_list(
            "balance", flat=True
        )
        return wallet, sum(escrow)

    # An admin takes the ponter's chips outside the game: the game still counts on them.
    await take_all_but(5)
    before = await chips_of()
    answer = await refused(ponter, "insufficient_chips", "action", action="bet", amount=10)
    assert answer["message"] == "Не хватает фишек для этого хода."  # no balance named
    assert await chips_of() == before == (5, 10)  # only the banker's stake is in escrow
    after = await playing_game(table.pk)
    assert after.actions == [] and after.state == game.state
    assert await database_sync_to_async(conservation_holds)()
    for client in clients.values():
        await client.close()


# --- the connection's language -------------------------------------------------------------

ENGLISH = ("The message is not JSON.", "There is no game at this table now.")
RUSSIAN = ("Сообщение не в формате JSON.", "Сейчас за столом нет игры.")


async def errors_seen(table: Table, user: Any, headers: list[tuple[bytes, bytes]], cookie: str):
    """The messages of a bad-JSON error (the consumer's) and of a `no_game` refusal (a
    service's) on a connection with these headers and extra cookies."""
    session = await database_sync_to_async(session_cookie)(user)
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.pk}/",
        headers=[*HEADERS, (b"cookie", session + cookie.encode()), *headers],
    )
    assert (await comm.connect())[0]
    assert assert_table_frame(await comm.receive_from(timeout=5))["type"] == "snapshot"
    await comm.send_to(text_data="{nope")
    bad = assert_table_frame(await comm.receive_from(timeout=5))
    await comm.send_json_to({"type": "action", "id": "x1", "action": "hit"})
    no_game = assert_table_frame(await comm.receive_from(timeout=5))
    await comm.disconnect()
    assert (bad["code"], no_game["code"]) == ("bad_json", "no_game")
    return bad["message"], no_game["message"]


@pytest.mark.parametrize(
    ("headers", "cookie", "expected"),
    [
        ([], "", RUSSIAN),
        ([(b"accept-language", b"en-US,en;q=0.9")], "", ENGLISH),
        ([(b"accept-language", b"de-DE, en;q=0.5")], "", ENGLISH),
        ([(b"accept-language", b"de-DE, fr;q=0.5")], "", RUSSIAN),
        ([], "; django_language=en", ENGLISH),
        ([(b"accept-language", b"en")], "; django_language=ru", RUSSIAN),
        ([(b"accept-language", b"en")], "; django_language=xx", ENGLISH),
    ],
    ids=[
        "default-russian",
        "accept-language-en",
        "accept-language-first-supported",
        "accept-language-unsupported",
        "cookie-en",
        "cookie-beats-accept-language",
        "unknown-cookie-ignored",
    ],
)
async def test_errors_come_in_the_connections_language(make_user, headers, cookie, expected):
    (ann,) = await make_users(make_user, "ann")
    table = await table_with("banker36", stake=10, entry_limit=100)
    assert await errors_seen(table, ann, headers, cookie) == expected


async def test_a_refusal_in_english_on_one_connection_leaves_another_in_russian(make_user):
    """The language is the connection's own: two players at one table, one in English,
    get the same refusal each in their language."""
    one, two = await make_users(make_user, "ann", "bob")
    table = await table_with("banker36", host=one, seated=(one, two), stake=10, entry_limit=100)
    english = await database_sync_to_async(session_cookie)(one)
    comm = WebsocketCommunicator(
        application,
        f"/ws/tables/{table.pk}/",
        headers=[*HEADERS, (b"cookie", english + b"; django_language=en")],
    )
    assert (await comm.connect())[0]
    russian = await connect(table, two)
    assert_table_frame(await comm.receive_from(timeout=5))
    await comm.send_json_to({"type": "pause", "id": "p1"})
    answer = assert_table_frame(await comm.receive_from(timeout=5))
    while answer.get("id") != "p1":
        answer = assert_table_frame(await comm.receive_from(timeout=5))
    assert (answer["code"], answer["message"]) == ("no_game", ENGLISH[1])
    # bob is not the host: not_host, in Russian.
    answer = await refused(russian, "not_host", "pause")
    assert answer["message"] == "Это может только ведущий стола или администратор."
    await comm.disconnect()
    await russian.close()


async def test_lobby_errors_come_in_the_connections_language(make_user):
    (ann,) = await make_users(make_user, "ann")
    english = await lobby(ann, cookie_extra="; django_language=en")
    russian = await lobby(ann)
    for comm, text in (
        (english, "The lobby takes one message: open_table (docs/protocol.md)."),
        (russian, "Сообщение лобби одно: open_table (docs/protocol.md)."),
    ):
        answer = await lobby_answer(comm, {"type": "hello"})
        assert (answer["code"], answer["message"]) == ("unknown_type", text)
    answer = await lobby_answer(english, {"type": "open_table", "variant": "classic", "foo": 1})
    assert answer["code"] == "bad_message"
    assert answer["message"] == "The protocol has no field 'foo'."
    opened = await lobby_answer(english, {"type": "open_table", "variant": "classic"})
    for comm in (english, russian):
        assert [t["id"] for t in await next_push(comm, opened["table"])] == [opened["table"]]
    table = await database_sync_to_async(Table.objects.get)(pk=opened["table"])
    assert table.name == "ann's table"  # the default name, in the opener's language
    await english.disconnect()
    await russian.disconnect()
