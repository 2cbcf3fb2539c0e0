"""The published protocol, read from its two files: `docs/asyncapi.yaml` (every message of
both sockets) and `docs/openapi.yaml` (the JSON endpoints). The bot checks every message it
sends against them before sending (a message they refuse is a bug of the bot: raised, never
sent) and every frame and body it receives (a misfit is reported; the tests run the bot
strict, failing on one). It knows nothing else of the server.

A message's schema is found by the spec's own names: `components.messages` keys
`<socket>_<send|receive>_<type>` (AsyncAPI), an operation's response by its `operationId`
and status (OpenAPI). The events of a `snapshot` or an `update` are checked against their
table's variant's events: the schema whose `x-variant` is `table.variant`.
"""

from __future__ import annotations

import json
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import yaml  # type: ignore[import-untyped]
from referencing import Registry
from referencing.jsonschema import DRAFT202012

Frame = dict[str, Any]

# The repository's copy; a client elsewhere passes its own (`python -m bot --spec DIR`).
DEFAULT_SPEC_DIR = Path(__file__).resolve().parent.parent / "docs"


@cache
def default_spec() -> Spec:
    """The spec files of this checkout (`DEFAULT_SPEC_DIR`), read once."""
    return Spec.load()


class SpecRefusal(Exception):
    """A message the bot was about to send that the spec refuses: a bug of the bot."""


class Spec:
    """docs/asyncapi.yaml and docs/openapi.yaml, with a validator per message kind."""

    def __init__(self, asyncapi: dict[str, Any], openapi: dict[str, Any]) -> None:
        self.asyncapi = asyncapi
        self.openapi = openapi
        self._validators: dict[tuple[str, str], Any] = {}

    @classmethod
    def load(cls, directory: Path = DEFAULT_SPEC_DIR) -> Spec:
        def read(name: str) -> dict[str, Any]:
            document: dict[str, Any] = yaml.safe_load((directory / name).read_text("utf-8"))
            return document

        return cls(read("asyncapi.yaml"), read("openapi.yaml"))

    # --- the sockets (AsyncAPI) --------------------------------------------------------

    def send_text(self, socket: str, message: Frame) -> str:
        """`message` (with its `type`) as JSON text for `socket`, once the spec accepts it."""
        problem = self.message_problem(socket, "send", message)
        if problem is not None:
            raise SpecRefusal(f"{socket} {message.get('type')!r}: {problem}")
        return json.dumps(message, ensure_ascii=False)

    def message_problem(self, socket: str, direction: str, message: Any) -> str | None:
        """What the spec finds wrong with a message of `socket` (`send`: to the server;
        `receive`: from it), or None."""
        if not isinstance(message, dict):
            return f"not a JSON object but {type(message).__name__}"
        key = f"{socket}_{direction}_{message.get('type')}"
        payload = self.asyncapi["components"]["messages"].get(key, {}).get("payload")
        if payload is None:
            return f"the spec has no {direction} message {message.get('type')!r}"
        problem = self._problem("asyncapi", payload["$ref"], message)
        if problem is not None or (direction, message["type"]) not in (
            ("receive", "snapshot"),
            ("receive", "update"),
        ):
            return problem
        events_ref = self._events_of.get(message["table"]["variant"])
        if events_ref is None:
            return f"the spec lists no events of variant {message['table']['variant']!r}"
        lists = (
            [message["events"]]
            if message["type"] == "update"
            else [entry["events"] for entry in message["history"]]
        )
        for events in lists:
            for event in events:
                problem = self._problem("asyncapi", events_ref, event)
                if problem is not None:
                    return f"event {event.get('type')!r}: {problem}"
        return None

    @cached_property
    def _events_of(self) -> dict[str, str]:
        """variant -> the `$ref` of its events' schema."""
        schemas = self.asyncapi["components"]["schemas"]
        return {
            schema["x-variant"]: f"#/components/schemas/{name}"
            for name, schema in schemas.items()
            if "x-variant" in schema
        }

    # --- the JSON endpoints (OpenAPI) --------------------------------------------------

    def body_problem(self, operation_id: str, status: int, body: Any) -> str | None:
        """What the spec finds wrong with `operation_id`'s `status` answer `body`, or None."""
        for methods in self.openapi["paths"].values():
            for operation in methods.values():
                if operation.get("operationId") != operation_id:
                    continue
                response = operation["responses"].get(str(status))
                if response is None:
                    return f"{operation_id} answers no {status} in the spec"
                schema = response.get("content", {}).get("application/json", {}).get("schema")
                if schema is None:
                    return f"{operation_id}'s {status} has no JSON body in the spec"
                return self._problem("openapi", schema["$ref"], body)
        return f"the spec has no operation {operation_id!r}"

    # --- validation ----------------------------------------------------------------------

    def _problem(self, document: str, ref: str, value: Any) -> str | None:
        validator = self._validators.get((document, ref))
        if validator is None:
            contents = self.asyncapi if document == "asyncapi" else self.openapi
            registry = Registry().with_resource(
                f"urn:{document}", DRAFT202012.create_resource(contents)
            )
            validator = jsonschema.Draft202012Validator(
                {"$ref": f"urn:{document}{ref}"}, registry=registry
            )
            self._validators[(document, ref)] = validator
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        if error is None:
            return None
        where = "/".join(map(str, error.absolute_path)) or "the message"
        return f"refused at {where}: {error.message[:300]}"
