"""The bot's own check of what it sends and receives, from docs/asyncapi.yaml and
docs/openapi.yaml alone (bot/frames.py)."""

from __future__ import annotations

import json

import pytest

from bot.frames import Spec, SpecRefusal, default_spec
from tests.contract.test_table_frames import SEAT, TABLE


@pytest.fixture(scope="module")
def spec() -> Spec:
    return default_spec()


def update(**changes: object) -> dict[str, object]:
    frame: dict[str, object] = {
        "type": "update",
        "version": 3,
        "server_time": 1,
        "table": TABLE,
        "you": {"seat": "ann", "in_game": False},
        "game": None,
        "events": [{"type": "sat_down", "seat": "ann"}],
    }
    frame.update(changes)
    return frame


def test_a_message_the_spec_refuses_is_never_sent(spec: Spec) -> None:
    assert json.loads(spec.send_text("table", {"type": "sit", "id": "b1"})) == {
        "type": "sit",
        "id": "b1",
    }
    with pytest.raises(SpecRefusal, match="id"):
        spec.send_text("table", {"type": "sit", "id": ""})
    with pytest.raises(SpecRefusal, match="extra"):
        spec.send_text("table", {"type": "sit", "id": "b1", "extra": 1})
    with pytest.raises(SpecRefusal, match="no send message"):
        spec.send_text("table", {"type": "teleport", "id": "b1"})


def test_a_frame_with_an_undocumented_missing_or_mistyped_field_is_named(spec: Spec) -> None:
    assert spec.message_problem("table", "receive", update()) is None
    assert "extra" in str(spec.message_problem("table", "receive", update(extra=1)))
    frame = update()
    del frame["you"]
    assert "you" in str(spec.message_problem("table", "receive", frame))
    assert "version" in str(spec.message_problem("table", "receive", update(version="3")))


def test_events_are_checked_by_their_tables_variant(spec: Spec) -> None:
    # `classic` has no `bet` event; `solo` has this one.
    bet = {"type": "bet", "seat": "ann", "amount": 10, "coins": 90}
    problem = spec.message_problem("table", "receive", update(events=[bet]))
    assert problem is not None and problem.startswith("event 'bet'")
    solo = {**TABLE, "variant": "solo", "options": {"start_coins": 100, "start_bank": 100}}
    assert spec.message_problem("table", "receive", update(table=solo, events=[bet])) is None


def test_an_endpoints_answer_is_checked_by_its_operation_and_status(spec: Spec) -> None:
    assert spec.body_problem("health", 200, {"status": "ok"}) is None
    assert "status" in str(spec.body_problem("health", 200, {"status": "fine"}))
    assert "no 418" in str(spec.body_problem("health", 418, {}))
    assert spec.body_problem("nope", 200, {}) == "the spec has no operation 'nope'"


def test_the_spec_read_from_another_directory_is_the_one_used(tmp_path) -> None:
    from bot.frames import DEFAULT_SPEC_DIR

    for name in ("asyncapi.yaml", "openapi.yaml"):
        (tmp_path / name).write_text((DEFAULT_SPEC_DIR / name).read_text())
    assert Spec.load(tmp_path).message_problem("table", "receive", update()) is None
    assert SEAT["id"] == "ann"
