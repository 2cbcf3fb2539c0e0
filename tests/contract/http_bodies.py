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


def assert_limit_refusal(response: Any, limit: str) -> int:
    """`response` is the `429` of limit `limit` (docs/protocol.md §3): its JSON body names
    the limit and the whole seconds to wait, and `Retry-After` says the same. Returns the
    seconds."""
    from contract.http import ErrorBody

    assert response.status_code == 429, response.content
    error = assert_body(response, ErrorBody).error
    assert (error.code, error.limit) == ("rate_limited", limit), error
    assert isinstance(error.retry_after, int) and error.retry_after >= 1, error
    assert response["Retry-After"] == str(error.retry_after)
    return error.retry_after
