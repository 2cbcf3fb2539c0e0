"""The JSON answers of the HTTP endpoints, built as their definitions in `contract.http`
(`json_answer`); their refusal (docs/protocol.md: `{"error": {"code", "message",
"field"?}}`), the `429` of a limit (with `limit`, `retry_after` and `Retry-After`), and
the `400` of a body that does not fit its definition in `contract.http` (read by
`contract.reading.read`), worded as the sockets word it (lib.problems)."""

from __future__ import annotations

from typing import TypeVar

import msgspec
from django.http import HttpResponse
from django.utils.translation import gettext as _

from contract.base import Message
from contract.http import ErrorBody, ErrorDetail
from contract.reading import Problem
from lib.jsontext import json_text
from lib.problems import problem_text


def json_answer(body: Message, status: int = 200) -> HttpResponse:
    """An endpoint's JSON answer, built as its definition (a `contract.http` struct: a
    field the contract does not name, or a required one missing, fails where the answer is
    made) and encoded as the sockets' frames are (UTF-8, unescaped)."""
    return HttpResponse(json_text(body), status=status, content_type="application/json")


def refusal(code: str, message: str, status: int, field: str = "") -> HttpResponse:
    detail = ErrorDetail(code=code, message=message, field=field or msgspec.UNSET)
    return json_answer(ErrorBody(error=detail), status)


def rate_limited(message: str, limit: str, retry_after: int) -> HttpResponse:
    """The `429` refusing a request over a limit (contract.codes.LIMITS): the limit's key
    and the whole seconds to wait, in the body and in `Retry-After`."""
    detail = ErrorDetail(
        code="rate_limited",
        message=message,
        limit=limit,  # type: ignore[arg-type]
        retry_after=retry_after,
    )
    return retry_later(json_answer(ErrorBody(error=detail), 429), retry_after)


Answer = TypeVar("Answer", bound=HttpResponse)


def retry_later(response: Answer, retry_after: int) -> Answer:
    """`response` (a page refusing a request over a limit) with `Retry-After`."""
    response["Retry-After"] = str(retry_after)
    return response


def malformed(problem: Problem, code: str = "bad_message") -> HttpResponse:
    """The `400` refusing a body that does not fit its definition, naming the field."""
    text = problem_text(problem) if problem.field else _("Тело запроса — не объект JSON.")
    return refusal(code, text, 400, problem.field)
