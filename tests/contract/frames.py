"""The check every table-socket test client makes of each frame it receives: it must be
one JSON object that fits its definition in `contract.table_out`, so a frame
docs/protocol.md does not describe (an undocumented key, a wrong type, a missing
`version`) fails the test that received it."""

from __future__ import annotations

import json
from typing import Any

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
    return None


def assert_table_frame(text: str) -> dict[str, Any]:
    """The frame, decoded, once it is found to fit `contract.table_out.TableFrame`."""
    problem = table_frame_problem(text)
    assert problem is None, f"a table frame the protocol does not describe: {problem}\n{text}"
    frame: dict[str, Any] = json.loads(text)
    return frame
