"""JSON text for the sockets: every frame a client receives is encoded here.

orjson rather than the standard library: a table's change is encoded once per seated
player and once for its spectators, and orjson does that several times faster
(docs/deployment.md, "Where an action's time goes"). Non-ASCII text goes out as UTF-8,
unescaped, as `json.dumps(..., ensure_ascii=False)` wrote it; keys that are not strings
(an engine's numbered seat, say) are written as strings, as the standard library does."""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def json_text(message: Any) -> str:
    """`message` as the text of one WebSocket frame."""
    return orjson.dumps(message, option=_OPTIONS).decode()
