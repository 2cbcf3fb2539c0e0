"""A message checked against its definition, and what is wrong with it when it does not
fit: the field to name and the reason, for the `bad_message` refusal (docs/protocol.md
§5.2) and the HTTP endpoints' `400` (contract.http).

msgspec says what failed in one sentence ("Expected `int`, got `str` - at `$.number`",
"Object missing required field `level`", "Object contains unknown field `colour`").
These are read here and nowhere else; tests/contract/test_reading.py pins each form, so a
release of msgspec that words them otherwise fails there first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")


@dataclass(frozen=True)
class Problem:
    """Why a message does not fit: `field` is its dotted path (`seat`, `options.stake`),
    empty when the whole message is wrong; `reason` is one of `missing`, `unknown`,
    `type` (a wrong JSON type) and `value` (the right type, a value out of range)."""

    field: str
    reason: str
    detail: str
    # For `type`: the JSON type the field must have and the one it had (msgspec's names:
    # `int`, `str`, `bool`, `float`, `object`, `array`, `null`).
    expected: str = ""
    got: str = ""


_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_MISSING = re.compile(r"^Object missing required field `(?P<name>[^`]+)`")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]+)`")
_TYPE = re.compile(r"^Expected `(?P<expected>[^`]+)`, got `(?P<got>[^`]+)`$")


def problem_of(error: msgspec.ValidationError) -> Problem:
    text = str(error)
    path = ""
    at = _AT.search(text)
    if at:
        path = at.group("path")
        text = text[: at.start()]
    # `$.options.stake` -> `options.stake`; `$.hands[2]` -> `hands[2]`.
    field = path.lstrip(".")
    for pattern, reason in ((_MISSING, "missing"), (_UNKNOWN, "unknown")):
        found = pattern.match(text)
        if found:
            name = found.group("name")
            return Problem(f"{field}.{name}" if field else name, reason, text)
    wrong_type = _TYPE.match(text)
    if wrong_type:
        return Problem(field, "type", text, wrong_type["expected"], wrong_type["got"])
    return Problem(field, "value", text)


def read(data: Any, kind: type[T]) -> T | Problem:
    """`data` (a decoded JSON value) as `kind`, or what is wrong with it. Strict: an
    integer is not a float, a string or a boolean (§1)."""
    try:
        return msgspec.convert(data, kind, strict=True)
    except msgspec.ValidationError as error:
        return problem_of(error)
