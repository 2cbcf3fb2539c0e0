"""A message that does not fit its definition (contract.reading.Problem), told to the
player in their language: the one wording the sockets and the JSON endpoints share."""

from __future__ import annotations

from django.utils.translation import gettext as _

from contract.reading import Problem


def problem_text(problem: Problem) -> str:
    """«Поле 'number': …» — the field named as the client wrote it."""
    if not problem.field:
        return _("Сообщение не по протоколу: %(detail)s.") % {"detail": problem.detail}
    texts = {
        "missing": _("Поле %(name)r обязательно."),
        "unknown": _("Поля %(name)r нет в протоколе."),
        "type": _("Поле %(name)r неверного типа: нужен %(expected)s, а не %(got)s."),
        "value": _("Поле %(name)r: недопустимое значение (%(detail)s)."),
    }
    return texts[problem.reason] % {
        "name": problem.field,
        "detail": problem.detail,
        "expected": problem.expected,
        "got": problem.got,
    }
