"""The check every table-socket test client makes of each frame it receives: it must be
one JSON object that fits its definition in `contract.table_out`, so a frame
docs/protocol.md does not describe (an undocumented key, a wrong type, a missing
`version`) fails the test that received it.

The definitions are what docs/asyncapi.yaml is generated from (tests/contract/test_spec.py
holds the two equal). The committed YAML itself is checked too, with jsonschema, on every
frame of a kind not met before in the process (its type, variant, event types and view
keys): a full JSON Schema pass costs some 10 ms a frame, the definitions' a few µs."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from contract.reading import Problem, read
from contract.table_out import Snapshot, TableFrame, Update
from contract.variants import EVENTS_BY_VARIANT


def table_frame_problem(text: str) -> str | None:
    """What is wrong with a table socket's frame (its JSON text), or None."""
    try:
        frame = json.loads(text)
    except ValueError as error:
        return f"not JSON: {error}"
    if not isinstance(frame, dict):
        return f"not one JSON object but {type(frame).__name__}"
    found: Any = read(frame, TableFrame)  # type: ignore[arg-type]
    if isinstance(found, Problem):
        return f"{found.reason} at {found.field or 'the frame'}: {found.detail}"
    # The events, by the table's variant's definitions and the platform's.
    if isinstance(found, Snapshot | Update):
        events_of = EVENTS_BY_VARIANT[found.table.variant]
        lists = (
            [("events", found.events)]
            if isinstance(found, Update)
            else [(f"history[{n}].events", entry.events) for n, entry in enumerate(found.history)]
        )
        for where, events in lists:
            for index, event in enumerate(events):
                problem = read(event, events_of)
                if isinstance(problem, Problem):
                    field = f"{where}[{index}]" + (f".{problem.field}" if problem.field else "")
                    return f"{problem.reason} at {field}: {problem.detail}"
    return spec_problem(frame)


def assert_table_frame(text: str) -> dict[str, Any]:
    """The frame, decoded, once it is found to fit `contract.table_out.TableFrame`."""
    problem = table_frame_problem(text)
    assert problem is None, f"a table frame the protocol does not describe: {problem}\n{text}"
    frame: dict[str, Any] = json.loads(text)
    return frame


ASYNCAPI = Path(__file__).resolve().parents[2] / "docs" / "asyncapi.yaml"
_MET: set[tuple[Any, ...]] = set()


def _kind(frame: dict[str, Any]) -> tuple[Any, ...]:
    table = frame.get("table") if isinstance(frame.get("table"), dict) else {}
    game = frame.get("game") if isinstance(frame.get("game"), dict) else {}
    view = game.get("view") if isinstance(game.get("view"), dict) else {}
    events = frame.get("events") or [
        event for entry in frame.get("history") or [] for event in entry.get("events", [])
    ]
    return (
        frame.get("type"),
        frame.get("code"),
        table.get("variant"),
        frozenset(e.get("type") for e in events if isinstance(e, dict)),
        frozenset(view),
    )


@cache
def _validator(socket: str, message_type: str) -> Any:
    document = yaml.safe_load(ASYNCAPI.read_text(encoding="utf-8"))
    key = f"{socket}_receive_{message_type}"
    if key not in document["components"]["messages"]:
        return None
    payload = document["components"]["messages"][key]["payload"]
    registry = Registry().with_resource(
        "urn:asyncapi", Resource(contents=document, specification=DRAFT202012)
    )
    return jsonschema.Draft202012Validator(
        {"$ref": "urn:asyncapi" + payload["$ref"]}, registry=registry
    )


def spec_problem(frame: dict[str, Any], socket: str = "table") -> str | None:
    """What docs/asyncapi.yaml finds wrong with a frame of `socket` of a kind not met
    before."""
    kind = (socket, *_kind(frame))
    if kind in _MET:
        return None
    validator = _validator(socket, str(frame.get("type")))
    if validator is None:
        return f"docs/asyncapi.yaml describes no {socket} frame of type {frame.get('type')!r}"
    error = jsonschema.exceptions.best_match(validator.iter_errors(frame))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the frame"
        return f"docs/asyncapi.yaml refuses it at {where}: {error.message[:300]}"
    _MET.add(kind)
    return None
