"""The JSON refusal of the HTTP endpoints (docs/protocol.md: `{"error": {"code", "message",
"field"?}}`), and the `400` of a body that does not fit its definition in `contract.http`
(read by `contract.reading.read`), worded as the sockets word it (lib.problems)."""

from __future__ import annotations

from django.http import JsonResponse
from django.utils.translation import gettext as _

from contract.reading import Problem
from lib.problems import problem_text


def refusal(code: str, message: str, status: int, field: str = "") -> JsonResponse:
    error = {"code": code, "message": message}
    if field:
        error["field"] = field
    return JsonResponse({"error": error}, status=status, json_dumps_params={"ensure_ascii": False})


def malformed(problem: Problem, code: str = "bad_message") -> JsonResponse:
    """The `400` refusing a body that does not fit its definition, naming the field."""
    text = problem_text(problem) if problem.field else _("Тело запроса — не объект JSON.")
    return refusal(code, text, 400, problem.field)
