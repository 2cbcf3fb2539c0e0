"""The lobby socket's messages as contract.lobby defines them (docs/protocol.md §14): an
`open_table` that does not fit is refused with the documented code and the `field` it
got wrong, the socket answering on; and a frame the server sends with a key §14 does not
document fails the check every lobby test client makes."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from channels.db import database_sync_to_async

from contract import lobby as contract_lobby
from contract.reading import Problem, read
from lobby import consumers as lobby_consumers
from tables.models import Table
from tests.contract.lobby_frames import assert_lobby_frame
from tests.play.ws_helpers import lobby, lobby_answer


def over_a_socket(test: Any) -> Any:
    return pytest.mark.asyncio(pytest.mark.django_db(transaction=True)(test))


# (the message's fields besides `type`, the code, the field named)
MALFORMED = [
    pytest.param({"variant": "classic", "seat_count": "6"}, "bad_message", "seat_count", id="str"),
    pytest.param({"variant": "banker36", "stake": 10.5}, "bad_message", "stake", id="float"),
    pytest.param(
        {"variant": "classic", "seat_count": True}, "bad_message", "seat_count", id="bool"
    ),
    pytest.param({"variant": "salon", "private": "yes"}, "bad_message", "private", id="private"),
    pytest.param({"variant": 7}, "bad_message", "variant", id="variant-type"),
    pytest.param({"private": True}, "bad_message", "variant", id="missing"),
    pytest.param({"variant": "classic", "colour": "red"}, "bad_message", "colour", id="unknown"),
    pytest.param({"variant": "classic", "by": 1}, "bad_message", "by", id="an-argument"),
    pytest.param({"variant": "classic", "name": "a\x00b"}, "bad_message", "name", id="nul"),
    pytest.param({"variant": "classic", "k\x00": 1}, "bad_message", "k\\0", id="nul-key"),
    pytest.param({"variant": "classic", "name": "x" * 81}, "bad_table", "name", id="too-long"),
    pytest.param({"variant": "poker"}, "bad_table", "variant", id="no-such-variant"),
    pytest.param({"variant": "classic", "seat_count": 11}, "bad_table", "seat_count", id="range"),
    pytest.param({"variant": "classic", "match_length": 6}, "bad_table", "match_length", id="enum"),
    pytest.param(
        {"variant": "banker36", "stake": 10, "entry_limit": 5},
        "bad_table",
        "entry_limit",
        id="the-model",
    ),
]


@pytest.mark.parametrize(("fields", "code", "field"), MALFORMED)
@over_a_socket
async def test_a_malformed_open_table_is_refused_naming_its_field_and_the_socket_answers_on(
    make_user: Any, fields: dict[str, Any], code: str, field: str
) -> None:
    user = await database_sync_to_async(make_user)()
    comm = await lobby(user, cookie_extra="; django_language=en")
    refused = await lobby_answer(comm, {"type": "open_table", "id": "m-1", **fields})
    assert (refused["type"], refused["code"], refused["field"]) == ("error", code, field)
    assert refused["id"] == "m-1"
    # (a NUL-holding key is named by its repr, its NUL written `\0`)
    assert field in refused["message"] or repr(field) in refused["message"]
    assert not await database_sync_to_async(Table.objects.exists)()
    opened = await lobby_answer(comm, {"type": "open_table", "variant": "classic"})
    assert opened["type"] == "table_opened"
    await comm.disconnect()


@over_a_socket
async def test_an_unusable_id_is_refused_as_the_field_id_without_an_id(make_user: Any) -> None:
    user = await database_sync_to_async(make_user)()
    comm = await lobby(user)
    for wrong in ("", "x" * 65, 5):
        refused = await lobby_answer(comm, {"type": "open_table", "id": wrong, "variant": "solo"})
        assert (refused["code"], refused["field"]) == ("bad_message", "id"), refused
        assert "id" not in refused
    assert not await database_sync_to_async(Table.objects.exists)()
    await comm.disconnect()


@over_a_socket
async def test_a_refused_field_is_named_in_the_connections_language(make_user: Any) -> None:
    user = await database_sync_to_async(make_user)()
    english = await lobby(user, cookie_extra="; django_language=en")
    russian = await lobby(user)
    for comm, missing, mistyped in (
        (
            english,
            "The field 'variant' is required.",
            "The field 'seat_count' has the wrong type: int | null is needed, not str.",
        ),
        (
            russian,
            "Поле 'variant' обязательно.",
            "Поле 'seat_count' неверного типа: нужен int | null, а не str.",
        ),
    ):
        answer = await lobby_answer(comm, {"type": "open_table"})
        assert answer["message"] == missing
        answer = await lobby_answer(
            comm, {"type": "open_table", "variant": "salon", "seat_count": "6"}
        )
        assert answer["message"] == mistyped
    await english.disconnect()
    await russian.disconnect()


@over_a_socket
async def test_a_null_field_takes_its_default(make_user: Any) -> None:
    user = await database_sync_to_async(make_user)()
    comm = await lobby(user)
    opened = await lobby_answer(
        comm, {"type": "open_table", "variant": "classic", "name": None, "stake": None}
    )
    table = await database_sync_to_async(Table.objects.get)(pk=opened["table"])
    assert (table.name, table.stake) == (f"Стол {user.username}", None)
    await comm.disconnect()


ROW = {
    "id": 1,
    "name": "B",
    "variant": "banker36",
    "variant_name": "Banker (36 cards)",
    "seats_taken": 1,
    "seat_count": 4,
    "stakes": "stake 10",
    "options": {"stake": 10, "entry_limit": 100},
    "entry_limit": 100,
    "playing": False,
    "bots": False,
    "join": {"state": "join", "code": "", "message": ""},
}
COUNTS = {"classic": 0, "salon": 0, "solo": 0, "banker36": 1, "blackjack": 0}
DOCUMENTED = [
    {"type": "lobby", "tables": [ROW], "page": 1, "pages": 1, "total": 1, "counts": COUNTS}
    | {"counts_total": 1},
    {"type": "table_changed", "table": {**ROW, "html": "<tr></tr>"}, "yours": True},
    {"type": "table_removed", "table": 1},
    {"type": "lobby_counts", "counts": COUNTS, "counts_total": 1},
    {"type": "table_opened", "table": 3, "invite": None, "id": "o-1"},
    {"type": "error", "code": "bad_table", "message": "…", "field": "seat_count"},
]


@pytest.mark.parametrize("frame", DOCUMENTED, ids=lambda f: f["type"])
def test_a_documented_lobby_frame_passes_the_check(frame: dict[str, Any]) -> None:
    assert_lobby_frame(frame)


UNDOCUMENTED = [
    pytest.param({**DOCUMENTED[3], "extra": 1}, id="a-key-of-the-message"),
    pytest.param({**DOCUMENTED[1], "table": {**ROW, "owner": "ann"}}, id="a-key-of-a-row"),
    pytest.param({**DOCUMENTED[5], "version": 7}, id="a-version"),
    pytest.param({**DOCUMENTED[1], "yours": False}, id="yours-false"),
    pytest.param({**DOCUMENTED[5], "code": "not_host"}, id="a-table-only-code"),
    pytest.param({"type": "snapshot"}, id="a-table-message"),
]


@pytest.mark.parametrize("frame", UNDOCUMENTED)
def test_a_lobby_frame_out_of_the_protocol_fails_the_check(frame: dict[str, Any]) -> None:
    with pytest.raises(pytest.fail.Exception):
        assert_lobby_frame(frame)


def test_every_lobby_message_is_registered_under_its_type_and_has_a_schema() -> None:
    for message in contract_lobby.MESSAGES:
        assert message.socket == "lobby" and message.summary
        assert message.type.__struct_config__.tag == message.name
    names = [m.name for m in contract_lobby.MESSAGES if m.direction == "receive"]
    assert set(names) == {
        "lobby",
        "table_added",
        "table_changed",
        "table_removed",
        "lobby_counts",
        "table_opened",
        "error",
    }
    _, components = msgspec.json.schema_components([m.type for m in contract_lobby.MESSAGES])
    assert components["OpenTable"]["additionalProperties"] is False


@over_a_socket
async def test_a_lobby_test_client_fails_on_a_frame_with_an_undocumented_key(
    make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inside the frame: its own fields are built as the definition on the server (below).
    real = lobby_consumers.lobby_listing

    def listing(**filters: Any) -> dict[str, Any]:
        shown = real(**filters)
        return {**shown, "counts": {**shown["counts"], "extra": 1}}

    monkeypatch.setattr(lobby_consumers, "lobby_listing", listing)
    user = await database_sync_to_async(make_user)()
    with pytest.raises(pytest.fail.Exception, match="extra"):
        await lobby(user)


@pytest.mark.asyncio
async def test_the_server_cannot_build_a_lobby_frame_with_a_field_its_definition_lacks() -> None:
    consumer = lobby_consumers.LobbyConsumer()
    with pytest.raises(TypeError, match="extra"):
        await consumer.send_json({"type": "table_removed", "table": 1, "extra": 1})
    with pytest.raises(TypeError, match="table"):
        await consumer.send_json({"type": "table_removed"})


def test_only_a_row_of_lobby_json_may_come_without_its_join_verdict() -> None:
    row = {k: v for k, v in ROW.items() if k != "join"}
    assert isinstance(read(row, contract_lobby.ListedRow), contract_lobby.ListedRow)
    assert read(row, contract_lobby.LobbyRow) == Problem(
        "join", "missing", "Object missing required field `join`"
    )
