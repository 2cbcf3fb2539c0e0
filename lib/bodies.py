"""The JSON refusal of the HTTP endpoints (docs/protocol.md: `{"error": {"code", "message",
"field"?}}`), the `429` of a limit (with `limit`, `retry_after` and `Retry-After`), and
the `400` of a body that does not fit its definition in `contract.http` (read by
`contract.reading.read`), worded as the sockets word it (lib.problems)."""

from __future__ import annotations

from typing import TypeVar

from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from contract.reading import Problem
from lib.problems import problem_text


def refusal(code: str, message: str, status: int, field: str = "") -> JsonResponse:
    error = {"code": code, "message": message}
    if field:
        error["field"] = field
    return JsonResponse({"error": error}, status=status, json_dumps_params={"ensure_ascii": False})


def rate_limited(message: str, limit: str, retry_after: int) -> JsonResponse:
    """The `429` refusing a request over a limit (contract.codes.LIMITS): the limit's key
    and the whole seconds to wait, in the body and in `Retry-After`."""
    response = JsonResponse(
        {
            "error": {
                "code": "rate_limited",
                "message": message,
                "limit": limit,
                "retry_after": retry_after,
            }
        },
        status=429,
        json_dumps_params={"ensure_ascii": False},
    )
    return retry_later(response, retry_after)


Answer = TypeVar("Answer", bound=HttpResponse)


def retry_later(response: Answer, retry_after: int) -> Answer:
    """`response` (a page refusing a request over a limit) with `Retry-After`."""
    response["Retry-After"] = str(retry_after)
    return response


def malformed(problem: Problem, code: str = "bad_message") -> JsonResponse:
    """The `400` refusing a body that does not fit its definition, naming the field."""
    text = problem_text(problem) if problem.field else _("Тело запроса — не объект JSON.")
    return refusal(code, text, 400, problem.field)
