"""The messages the bot sends, built by their definitions (`contract`), and the frames it
receives, checked against theirs: the same definitions docs/asyncapi.yaml is generated
from."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from contract.lobby import LobbyFrame, OpenTable
from contract.reading import Problem, read
from contract.table_in import COMMANDS, REQUESTS
from contract.table_out import Snapshot, TableFrame, Update
from contract.variants import EVENTS_BY_VARIANT

Frame = dict[str, Any]


def command_text(kind: str, fields: dict[str, Any]) -> str:
    """A table command or request (`type` `kind`) as JSON, checked by its definition:
    a message the contract refuses is a bug of the bot, raised here, never sent."""
    definition = COMMANDS.get(kind) or REQUESTS[kind]
    message = msgspec.convert(fields, definition, strict=True)
    return msgspec.json.encode(message).decode()


def open_table_text(fields: dict[str, Any]) -> str:
    """An `open_table` (§14) with the given fields, nulls left out."""
    present = {key: value for key, value in fields.items() if value is not None}
    msgspec.convert(present, OpenTable, strict=True)  # raises on a field the lobby refuses
    return json.dumps({"type": "open_table", **present})


def table_frame_problem(frame: Any) -> str | None:
    """What is wrong with a decoded table frame by its definition (and its events by the
    table's variant's), or None."""
    if not isinstance(frame, dict):
        return f"not a JSON object but {type(frame).__name__}"
    found: Any = read(frame, TableFrame)  # type: ignore[arg-type]
    if isinstance(found, Problem):
        return f"{found.reason} at {found.field or 'the frame'}: {found.detail}"
    if isinstance(found, Snapshot | Update):
        events_of = EVENTS_BY_VARIANT[found.table.variant]
        lists = (
            [found.events]
            if isinstance(found, Update)
            else [entry.events for entry in found.history]
        )
        for events in lists:
            for event in events:
                problem = read(event, events_of)
                if isinstance(problem, Problem):
                    return f"event {event.get('type')!r}: {problem.reason} at {problem.field}"
    return None


def lobby_frame_problem(frame: Any) -> str | None:
    found: Any = read(frame, LobbyFrame)  # type: ignore[arg-type]
    if isinstance(found, Problem):
        return f"{found.reason} at {found.field or 'the frame'}: {found.detail}"
    return None
