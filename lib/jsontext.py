"""JSON text for the sockets: every frame a client receives is encoded here.

orjson rather than the standard library: a table's change is encoded once per seated
player and once for its spectators, and orjson does that several times faster
(docs/deployment.md, "Where an action's time goes"). Non-ASCII text goes out as UTF-8,
unescaped, as `json.dumps(..., ensure_ascii=False)` wrote it; keys that are not strings
(an engine's numbered seat, say) are written as strings, as the standard library does.

A frame built as its definition (a `contract` message: a msgspec Struct) is encoded by
msgspec, which writes it the same way: its fields in their defined order, the tag `type`
first, an unset optional field left out, the plain data inside it (an engine's view) as
orjson would."""

from __future__ import annotations

from typing import Any

import msgspec
import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def _str_subclass(value: Any) -> Any:
    """msgspec encodes `str` itself only; a subclass (a rendered row's SafeString) as text."""
    if isinstance(value, str):
        return str.__str__(value)  # an exact `str` (SafeString.__str__ returns itself)
    raise NotImplementedError(f"cannot encode {type(value).__name__} as JSON")


_STRUCT_ENCODER = msgspec.json.Encoder(enc_hook=_str_subclass)


def json_text(message: Any) -> str:
    """`message` as the text of one WebSocket frame."""
    if isinstance(message, msgspec.Struct):
        return _STRUCT_ENCODER.encode(message).decode()
    return orjson.dumps(message, option=_OPTIONS).decode()
