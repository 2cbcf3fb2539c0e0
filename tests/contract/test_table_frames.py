"""The frame check every table-socket test client makes (tests/contract/frames.py)
refuses what docs/protocol.md does not describe, and passes what it does."""

from __future__ import annotations

import json

import pytest

from contract.table_out import MESSAGES, TableFrame, Update
from play.edge.consumers import TableConsumer
from tests.contract.frames import assert_table_frame, table_frame_problem

SEAT = {
    "number": 1,
    "id": "ann",
    "name": "ann",
    "ai": None,
    "bot": False,
    "ready": False,
    "leaving": False,
    "connected": True,
    "away_since": None,
}
TABLE = {
    "id": 1,
    "name": "Стол",
    "variant": "classic",
    "status": "open",
    "closing": False,
    "private": False,
    "seat_count": 6,
    "options": {"rounds": 5},
    "entry_limit": 0,
    "decision_seconds": 30,
    "reconnect_grace_seconds": 30,
    "host": "ann",
    "bots": True,
    "next_game_at": None,
    "pending": None,
    "seats": [SEAT],
}
UPDATE = {
    "type": "update",
    "version": 4,
    "server_time": 1796054367466,
    "table": TABLE,
    "you": {"seat": "ann", "in_game": False},
    "game": None,
    "events": [{"type": "sat_down", "seat": "ann"}],
}
SNAPSHOT = {
    **{k: v for k, v in UPDATE.items() if k != "events"},
    "type": "snapshot",
    "history": [{"version": 0, "at": 1796054367000, "events": [{"type": "paused"}]}],
}


def text(frame: object) -> str:
    return json.dumps(frame, ensure_ascii=False)


@pytest.mark.parametrize(
    "frame",
    [
        UPDATE,
        SNAPSHOT,
        {"type": "ack", "id": "c1", "seat": "ann", "version": 3},
        {"type": "ack", "id": "c1", "closing": True, "repeat": True, "version": 3},
        {"type": "error", "code": "not_signed_in", "message": "…", "id": None, "version": 3},
        {"type": "error", "code": "unavailable", "message": "…", "version": None},
        {"type": "error", "code": "bad_message", "message": "…", "field": "seat", "version": 3},
        {"type": "presence", "seat": "bob", "connected": False, "version": 2},
    ],
    ids=[
        "update",
        "snapshot",
        "ack",
        "ack-repeat",
        "error-null-id",
        "error-null-version",
        "error-field",
        "presence",
    ],
)
def test_a_documented_frame_passes(frame):
    assert assert_table_frame(text(frame)) == frame


def test_an_ack_with_an_undocumented_field_is_refused():
    problem = table_frame_problem(text({"type": "ack", "id": "c1", "turn": "ann", "version": 3}))
    assert problem is not None and "unknown at turn" in problem
    with pytest.raises(AssertionError, match="does not describe"):
        assert_table_frame(text({"type": "ack", "id": "c1", "turn": "ann", "version": 3}))


def test_an_update_without_its_version_is_refused():
    unversioned = {k: v for k, v in UPDATE.items() if k != "version"}
    assert table_frame_problem(text(unversioned)) == (
        "missing at version: Object missing required field `version`"
    )


def test_a_presence_whose_connected_is_a_string_is_refused():
    problem = table_frame_problem(
        text({"type": "presence", "seat": "bob", "connected": "false", "version": 2})
    )
    assert problem is not None and problem.startswith("type at connected")


def test_an_ack_whose_closing_is_false_is_refused():
    """`closing` is sent only when the close waits: `true` or absent, never `false`."""
    problem = table_frame_problem(text({"type": "ack", "id": "c1", "closing": False, "version": 3}))
    assert problem is not None and "closing" in problem


def test_an_error_code_the_protocol_does_not_list_is_refused():
    problem = table_frame_problem(
        text({"type": "error", "code": "oops", "message": "…", "version": 1})
    )
    assert problem is not None and problem.startswith("value at code")


@pytest.mark.parametrize("raw", ["{nope", "[1, 2]", '"pong"'])
def test_a_frame_that_is_not_one_json_object_is_refused(raw):
    assert table_frame_problem(raw) is not None


def test_an_unknown_frame_type_is_refused():
    assert table_frame_problem(text({"type": "hello", "version": 1})) is not None


def test_every_frame_of_the_union_is_registered_once_by_its_type():
    names = [m.name for m in MESSAGES]
    assert len(names) == len(set(names))
    assert {m.type for m in MESSAGES} == set(TableFrame.__args__)
    for message in MESSAGES:
        assert message.type.__struct_config__.tag == message.name
        assert (message.socket, message.direction) == ("table", "receive")


class _Frames:
    """A socket that has sent these texts and closed: what `Conn`'s reader iterates."""

    def __init__(self, *texts: str) -> None:
        self.texts = texts

    async def __aiter__(self):
        for text in self.texts:
            yield text


@pytest.mark.asyncio
async def test_the_live_stacks_client_fails_its_next_expect_on_an_undescribed_frame():
    from tests.integration.live_stack import Conn

    conn = Conn("ann", _Frames(text({"type": "pong", "version": 1, "extra": 1})), [])  # type: ignore[arg-type]
    await conn.closed.wait()
    with pytest.raises(AssertionError, match="unknown at extra"):
        await conn.expect(lambda f: True, what="any frame")


def test_an_event_is_read_by_its_tables_variant():
    # `hand_over` is classic's; at a salon table no such event is defined.
    event = {"type": "hand_over", "seat": "ann"}
    classic = {**UPDATE, "events": [event]}
    assert table_frame_problem(text(classic)) is None
    salon = {**UPDATE, "table": {**TABLE, "variant": "salon"}, "events": [event]}
    assert "events[0]" in (table_frame_problem(text(salon)) or "")


def test_an_event_with_an_undocumented_field_fails_in_an_update_and_in_a_history():
    odd = {"type": "sat_down", "seat": "ann", "colour": "red"}
    assert "events[0].colour" in (table_frame_problem(text({**UPDATE, "events": [odd]})) or "")
    history = [{"version": 0, "at": 1796054367000, "events": [odd]}]
    problem = table_frame_problem(text({**SNAPSHOT, "history": history}))
    assert "history[0].events[0].colour" in (problem or "")


@pytest.mark.asyncio
async def test_the_table_socket_cannot_build_a_frame_with_a_field_its_definition_lacks():
    """The server's side of the contract: answers given as fields are built as their
    definition before they are sent (play.edge.consumers), snapshots and updates are built
    as theirs (play.frames.build)."""
    consumer = TableConsumer()
    sent: list[str] = []

    async def send(text_data: str) -> None:
        sent.append(text_data)

    consumer.send = send  # type: ignore[method-assign]
    with pytest.raises(TypeError, match="extra"):
        await consumer._send({"type": "pong", "version": 3, "extra": 1})
    with pytest.raises(TypeError, match="code"):
        await consumer._send({"type": "error", "message": "?", "version": 3})
    await consumer._send({"type": "pong", "version": 3})
    assert [json.loads(text) for text in sent] == [{"type": "pong", "version": 3}]
    with pytest.raises(TypeError, match="extra"):
        Update(extra=1)  # type: ignore[call-arg]
