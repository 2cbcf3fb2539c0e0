"""A JSON answer of an HTTP endpoint checked against its definition in `contract.http`."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

JSON_TYPES = ("application/json", "application/manifest+json")


def assert_body(response: Any, kind: type[T]) -> T:
    """`response`'s body as `kind`, strictly: a key the definition does not name, a missing
    one or a wrong type fails with msgspec's account of it."""
    assert response["Content-Type"].split(";")[0] in JSON_TYPES, response["Content-Type"]
    try:
        return msgspec.json.decode(response.content, type=kind, strict=True)
    except msgspec.ValidationError as error:
        raise AssertionError(f"{kind.__name__}: {error}: {response.content!r}") from None
