"""docs/asyncapi.yaml and docs/openapi.yaml, generated from the definitions of contract/
(`make spec`; tests/contract/test_spec.py fails when the committed files differ).

    python -m contract.spec [--check]

The socket messages come from each module's `MESSAGES`, the endpoints from
`contract.http.ENDPOINTS`; the schemas are msgspec's JSON Schema of the types, under
`components.schemas`, so a client generator sees one named type per definition.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path
from typing import Any

import msgspec
import yaml  # type: ignore[import-untyped]

from contract.codes import CLOSE_CODES, ERROR_CODES, LIMITS
from contract.registry import Endpoint, SocketMessage
from contract.variants import EVENTS_BY_VARIANT

ROOT = Path(__file__).resolve().parents[1]
ASYNCAPI = ROOT / "docs" / "asyncapi.yaml"
OPENAPI = ROOT / "docs" / "openapi.yaml"
# The protocol's version: raised when a message changes in a way an old client would
# notice (docs/protocol.md).
PROTOCOL_VERSION = "2.0.0"

SOCKET_MODULES = (
    "contract.table_in",
    "contract.table_out",
    "contract.lobby",
    "contract.tournament",
)
HTTP_MODULE = "contract.http"

_SOCKETS: dict[str, dict[str, Any]] = {
    "table": {
        "address": "/ws/tables/{table_id}/",
        "title": "A live table",
        "description": (
            "One table: anyone may watch; a signed-in user may sit and play. The first "
            "message is always a `snapshot`. Query: `invite` (a private table's code), "
            "`view=spectator` (watch only, whatever the session). docs/protocol.md §2–§13."
        ),
        "parameters": {"table_id": {"description": "the table's id (an integer)"}},
    },
    "lobby": {
        "address": "/ws/lobby/",
        "title": "The lobby",
        "description": (
            "The open tables as the signed-in viewer may join them, and opening a table. "
            "Closed with 4401 without a session or an access token. docs/protocol.md §14."
        ),
    },
    "tournament": {
        "address": "/ws/tournaments/{tournament_id}/",
        "title": "A tournament's standings",
        "description": (
            "One event's standings, sent on connect and after each change; anyone may "
            "watch. It takes no message. Closed with 4404 for no such event. "
            "docs/protocol.md §19."
        ),
        "parameters": {"tournament_id": {"description": "the tournament's id (an integer)"}},
    },
}


def socket_messages() -> list[SocketMessage]:
    found: list[SocketMessage] = []
    for name in SOCKET_MODULES:
        found.extend(importlib.import_module(name).MESSAGES)
    return found


def endpoints() -> list[Endpoint]:
    return list(importlib.import_module(HTTP_MODULE).ENDPOINTS)


def _schemas(types: list[Any]) -> tuple[tuple[dict[str, Any], ...], dict[str, Any]]:
    return msgspec.json.schema_components(types, ref_template="#/components/schemas/{name}")


def _key(message: SocketMessage) -> str:
    return f"{message.socket}_{message.direction}_{message.name}"


def _asyncapi_schema(schema: Any) -> Any:
    """An OpenAPI-style discriminator (msgspec's, an object) as AsyncAPI 3's Schema Object
    takes it: the property's name alone."""
    if isinstance(schema, dict):
        out = {k: _asyncapi_schema(v) for k, v in schema.items()}
        if isinstance(out.get("discriminator"), dict):
            out["discriminator"] = out["discriminator"]["propertyName"]
        return out
    if isinstance(schema, list):
        return [_asyncapi_schema(item) for item in schema]
    return schema


def _events_by_variant(components: dict[str, Any], refs: tuple[dict[str, Any], ...]) -> None:
    """Name each variant's events (`ClassicEvents` …) and make an update's and a history
    entry's `events` items any of them: which applies is the table's variant's."""
    names = []
    for variant, schema in zip(EVENTS_BY_VARIANT, refs, strict=True):
        name = f"{variant.capitalize()}Events"
        components[name] = {
            "description": f"an event at a `{variant}` table: the variant's or the platform's",
            # Machine-readable: a client picks the events of its table's variant by it.
            "x-variant": variant,
            **schema,
        }
        names.append(name)
    for holder in ("Update", "HistoryEntry"):
        events = components[holder]["properties"]["events"]
        events["items"] = {
            "description": "an event of the table's variant (`table.variant`) or the platform's",
            "anyOf": [{"$ref": f"#/components/schemas/{name}"} for name in names],
        }


def asyncapi() -> dict[str, Any]:
    messages = socket_messages()
    event_unions = list(EVENTS_BY_VARIANT.values())
    refs, components = _schemas([m.type for m in messages] + event_unions)
    refs, event_refs = refs[: len(messages)], refs[len(messages) :]
    _events_by_variant(components, event_refs)
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    component_messages: dict[str, Any] = {}
    for message, ref in zip(messages, refs, strict=True):
        component_messages[_key(message)] = {
            "name": message.name,
            "title": message.name,
            "summary": message.summary,
            "contentType": "application/json",
            "payload": ref,
        }
    for socket, about in _SOCKETS.items():
        mine = [m for m in messages if m.socket == socket]
        channels[socket] = {
            "address": about["address"],
            "title": about["title"],
            "description": about["description"],
            **({"parameters": about["parameters"]} if "parameters" in about else {}),
            "messages": {_key(m): {"$ref": f"#/components/messages/{_key(m)}"} for m in mine},
        }
        for direction in ("send", "receive"):
            chosen = [m for m in mine if m.direction == direction]
            if not chosen:
                continue
            operations[f"{socket}_{direction}"] = {
                "action": direction,
                "channel": {"$ref": f"#/channels/{socket}"},
                "summary": (
                    f"What a client sends the {socket} socket"
                    if direction == "send"
                    else f"What the {socket} socket sends a client"
                ),
                "messages": [{"$ref": f"#/channels/{socket}/messages/{_key(m)}"} for m in chosen],
            }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Twenty-One: the live sockets",
            "version": PROTOCOL_VERSION,
            "description": (
                "Generated from contract/ by `make spec`; do not edit. The narrative — "
                "versions, clocks, idempotency, hidden information, fairness — is "
                "docs/protocol.md. Every message is one JSON object in one text frame; a "
                "field a definition does not name is refused (`bad_message`, naming it in "
                "`field`)."
            ),
            "x-error-codes": dict(ERROR_CODES),
            "x-limits": dict(LIMITS),
            "x-close-codes": {
                str(code): {"meaning": meaning, "reconnect": reconnect}
                for code, (meaning, reconnect) in CLOSE_CODES.items()
            },
        },
        "defaultContentType": "application/json",
        "servers": {
            "site": {
                "host": "localhost:8000",
                "protocol": "ws",
                "description": "`make run`; behind HTTPS the same paths over wss",
                "security": [
                    {"$ref": "#/components/securitySchemes/accessToken"},
                    {"$ref": "#/components/securitySchemes/session"},
                ],
            }
        },
        "channels": channels,
        "operations": operations,
        "components": {
            "securitySchemes": {
                "accessToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a personal access token (`t21_…`) in the handshake's "
                    "Authorization header, never in the URL; its scopes: `read` to "
                    "connect, `play` for commands and `open_table`, `chat` for `chat` "
                    "(docs/protocol.md §2.2.1). No Origin header is needed with it",
                },
                "session": {
                    "type": "httpApiKey",
                    "name": "sessionid",
                    "in": "cookie",
                    "description": "a browser's session cookie, with an Origin of the site's "
                    "host (docs/protocol.md §2.2, §2.3); a table may also be watched "
                    "without either",
                },
            },
            "messages": component_messages,
            "schemas": _asyncapi_schema(components),
        },
    }


# What an endpoint that takes an access token may answer a token (docs/protocol.md
# §2.2.1), besides its own answers: status -> (code, description, limit).
_TOKEN_REFUSALS: dict[int, tuple[str, str, str | None]] = {
    400: ("token_in_url", "a token in the URL: refused, never used", None),
    401: ("bad_token", "the token is unknown, revoked or malformed", None),
    403: ("scope_missing", "the token lacks a scope this endpoint needs", None),
    429: ("rate_limited", "too many refused tokens from this address", "bad_tokens"),
}


def _token_refusals(responses: dict[str, Any]) -> None:
    """Add the token's refusals to an operation's responses (their codes and limits to
    a status it already lists)."""
    for status, (code, description, limit) in _TOKEN_REFUSALS.items():
        answer = responses.setdefault(
            str(status),
            {
                "description": description,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
                },
            },
        )
        codes = answer.setdefault("x-error-codes", [])
        if code not in codes:
            codes.append(code)
        if limit is not None:
            limits = answer.setdefault("x-limits", [])
            if limit not in limits:
                limits.append(limit)
            answer.setdefault(
                "headers",
                {
                    "Retry-After": {
                        "description": "whole seconds to wait: the body's `retry_after`",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                },
            )


def openapi() -> dict[str, Any]:
    listed = endpoints()
    types: list[Any] = []
    for endpoint in listed:
        if endpoint.request is not None:
            types.append(endpoint.request)
        types.extend(r.body for r in endpoint.responses if r.body is not None)
    refs, components = _schemas(types)
    ref_of = iter(refs)
    paths: dict[str, Any] = {}
    for endpoint in listed:
        operation: dict[str, Any] = {
            "operationId": endpoint.operation_id,
            "summary": endpoint.summary,
        }
        if endpoint.description:
            operation["description"] = endpoint.description
        parameters = [
            {
                "name": name,
                "in": "path",
                "required": True,
                # The URLs' `<int:…>` converters: an id is an integer, a name a string.
                "schema": {"type": "integer" if name.endswith("id") else "string"},
            }
            for name in re.findall(r"{(\w+)}", endpoint.path)
        ]
        parameters += [
            {
                "name": name,
                "in": "query",
                "required": False,
                "description": about,
                "schema": {"type": kind},
            }
            for name, (kind, about) in endpoint.query.items()
        ]
        if parameters:
            operation["parameters"] = parameters
        if endpoint.request is not None:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": next(ref_of)}},
            }
        responses: dict[str, Any] = {}
        for response in endpoint.responses:
            answer: dict[str, Any] = {"description": response.description}
            if response.body is not None:
                answer["content"] = {"application/json": {"schema": next(ref_of)}}
            if response.codes:
                answer["x-error-codes"] = list(response.codes)
            if response.status == 429:
                answer["headers"] = {
                    "Retry-After": {
                        "description": "whole seconds to wait: the body's `retry_after`",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                }
            if response.limits:
                answer["x-limits"] = list(response.limits)
            responses[str(response.status)] = answer
        if endpoint.scopes:
            _token_refusals(responses)
        operation["responses"] = responses
        security: list[dict[str, list[str]]] = (
            [{"session": []}] if endpoint.auth == "session" else [{}]
        )
        if endpoint.scopes:  # or a personal access token holding these scopes
            security.append({"accessToken": list(endpoint.scopes)})
        operation["security"] = security
        paths.setdefault(endpoint.path, {})[endpoint.method] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Twenty-One: the JSON endpoints",
            "version": PROTOCOL_VERSION,
            "description": (
                "Generated from contract/ by `make spec`; do not edit. A POST from a "
                "session also sends the CSRF token (the `csrftoken` cookie's value in the "
                '`X-CSRFToken` header). Errors answer `{"error": {"code", "message", '
                '"field"?}}`; a `429` also carries `limit` and `retry_after` (the seconds '
                "to wait, as its `Retry-After` header). docs/protocol.md has the narrative."
            ),
            "x-limits": dict(LIMITS),
        },
        "servers": [{"url": "http://localhost:8000", "description": "`make run`"}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": "sessionid"},
                "accessToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "a personal access token (`t21_…`) of the account page, "
                    "with the operation's scopes; never in the URL (docs/protocol.md §2.2.1)",
                },
            },
        },
    }


def as_yaml(document: dict[str, Any]) -> str:
    return str(yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100))


def main() -> None:
    parser = argparse.ArgumentParser(description="Generate docs/asyncapi.yaml and openapi.yaml.")
    parser.add_argument("--check", action="store_true", help="fail if the files differ")
    check = parser.parse_args().check
    stale = []
    for path, document in ((ASYNCAPI, asyncapi()), (OPENAPI, openapi())):
        text = as_yaml(document)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        sys.exit(f"out of date (run make spec): {', '.join(stale)}")


if __name__ == "__main__":
    main()
