"""The JSON refusal of the HTTP endpoints (docs/protocol.md: `{"error": {"code", "message",
"field"?}}`), and the `400` of a body that does not fit its definition in `contract.http`
(read by `contract.reading.read`, whose `Problem` it words in the request's language)."""

from __future__ import annotations

from typing import Protocol

from django.http import JsonResponse
from django.utils.translation import gettext as _


class Problem(Protocol):
    """What `contract.reading` finds wrong (lib sits below contract: it names only the
    two attributes it reads)."""

    @property
    def field(self) -> str: ...

    @property
    def reason(self) -> str: ...


def refusal(code: str, message: str, status: int, field: str = "") -> JsonResponse:
    error = {"code": code, "message": message}
    if field:
        error["field"] = field
    return JsonResponse({"error": error}, status=status, json_dumps_params={"ensure_ascii": False})


def problem_text(problem: Problem) -> str:
    """What is wrong, in the request's language, naming the field."""
    name = {"field": problem.field}
    if not problem.field:
        return _("Тело запроса — не объект JSON.")
    if problem.reason == "missing":
        return _("Не хватает поля «%(field)s».") % name
    if problem.reason == "unknown":
        return _("Лишнее поле «%(field)s».") % name
    if problem.reason == "type":
        return _("Поле «%(field)s» — неверного типа.") % name
    return _("Недопустимое значение поля «%(field)s».") % name


def malformed(problem: Problem, code: str = "bad_message") -> JsonResponse:
    """The `400` refusing a body that does not fit its definition, naming the field."""
    return refusal(code, problem_text(problem), 400, problem.field)
