"""«Пожаловаться»: the report form and its JSON twin, and the player reading a notice.

`/report/` (docs/protocol.md, "Reports (HTTP)"): GET shows the form for ?player=<name>
or ?message=<id>; POST takes it as a form (a thank-you page) or as JSON (the chat
drawer's dialog: 201 or a JSON error). Signed-in players only; rate-limited per player.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import msgspec
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts.throttling import ThrottleHit, throttle_hit
from chat.models import ChatMessage
from chat.services import held_from
from contract.http import ReportFiled, ReportRequest
from contract.reading import Problem, read
from lib.bodies import json_answer, malformed, rate_limited, refusal, retry_later
from moderation.models import NOTE_MAX_LENGTH, Report
from moderation.services import ReportRefused, notice_acknowledge, report_create
from play.services.permissions import is_host

REPORT_SCOPE = "report"  # reports filed, per player (accounts.throttling)
REPORT_LIMIT = "reports"  # its key (contract.codes.LIMITS)


class ReportForm(forms.Form):
    reason = forms.ChoiceField(
        label=gettext_lazy("Причина"),
        choices=Report.Reason.choices,
        widget=forms.RadioSelect,
        error_messages={"required": gettext_lazy("Выберите причину жалобы.")},
    )
    note = forms.CharField(
        label=gettext_lazy("Пояснение (необязательно)"),
        required=False,
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": NOTE_MAX_LENGTH}),
    )


def _wants_json(request: HttpRequest) -> bool:
    return request.content_type == "application/json"


def _profile_path(username: str) -> str:
    # The path the people app serves profiles at (its URL name may move with its
    # namespace; the path is the contract).
    return f"/players/{quote(username, safe='')}/"


def _back(request: HttpRequest, fallback: str) -> str:
    """Where «Назад» leads: the posted or queried `next`, else the page the player came
    from, if it is this site's; else `fallback`."""
    for candidate in (
        request.POST.get("next") if request.method == "POST" else None,
        request.GET.get("next"),
        request.META.get("HTTP_REFERER"),
    ):
        if candidate and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return candidate
    return fallback


def _message_id(raw: Any) -> int:
    """The message id of a form or a query string, where an integer can only come as its
    digits (a JSON body's is a JSON integer: contract.http.ReportRequest)."""
    if not (isinstance(raw, str) and raw.isascii() and raw.isdigit()):
        raise ReportRefused("bad_message", _("Номер сообщения должен быть целым числом."))
    return _message_in_range(int(raw))


def _message_in_range(message_id: int) -> int:
    # An integer naming no row (a database refuses one past 64 bits): no such message.
    if not 0 < message_id < 2**63:
        raise ReportRefused("not_found", _("Такого сообщения нет."), 404)
    return message_id


def _target(data: Any) -> tuple[int | None, str | None]:
    """The message id or player name a form or a query string names (the message wins)."""
    raw_message = data.get("message")
    player = data.get("player")
    message_id: int | None = None
    if raw_message is not None and raw_message != "":
        message_id = _message_id(raw_message)
    return message_id, (player or None)


def _message_shown_to(message: ChatMessage, user: Any) -> bool:
    """Whether the form may quote `message` to `user`: a public table's chat is open to
    whoever watches it; a private table's only to its guests (those seated there, its
    host, those who wrote there). Message ids are sequential, so the form must not be a
    way to read private tables' chat by guessing them."""
    table = message.table
    if not table.private or is_host(table, user):
        return True
    return (
        table.seats.filter(player=user).exists()
        or ChatMessage.objects.filter(table=table, author=user).exists()
    )


def _form_context(request: HttpRequest, source: Any, form: ReportForm) -> dict[str, Any]:
    """What the form page shows: who is reported and, for a message, the message."""
    message_id, player_name = _target(source)
    message = None
    if message_id is not None:
        message = (
            ChatMessage.objects.select_related("author", "table").filter(pk=message_id).first()
        )
        # Held from this user (a seated player, mid-deal: docs/protocol.md §17.3): as if
        # there were none, as chat's history and report_create answer.
        if message is None or held_from(message, user_id=request.user.pk):
            raise ReportRefused(
                "not_found", _("Такого сообщения нет (возможно, оно уже удалено)."), 404
            )
        player_name = message.author.username
        if not _message_shown_to(message, request.user):
            message = None  # reportable (the id came from somewhere), not quoted
    elif not player_name:
        raise ReportRefused("bad_message", _("Не указано, на что жалоба."))
    elif (
        "\x00" in player_name
        or not get_user_model().objects.filter(username=player_name, is_active=True).exists()
    ):
        raise ReportRefused("not_found", _("Такого игрока нет."), 404)
    fallback = _profile_path(player_name) if player_name else reverse("lobby")
    return {
        "form": form,
        "message": message,
        "player_name": player_name,
        "message_id": message_id,
        "self_report": player_name == request.user.get_username(),
        "back": _back(request, fallback),
    }


@never_cache
@require_http_methods(["GET", "POST"])
def report(request: HttpRequest) -> HttpResponse:
    as_json = request.method == "POST" and _wants_json(request)
    if not request.user.is_authenticated:
        if as_json:
            return refusal("not_signed_in", _("Войдите, чтобы пожаловаться."), 401)
        return redirect_to_login(request.get_full_path())
    if request.method == "GET":
        return _report_page(request, request.GET, ReportForm())
    if as_json:
        return _report_json(request)
    return _report_form_post(request)


def _report_page(
    request: HttpRequest, source: Any, form: ReportForm, *, error: str = "", status: int = 200
) -> HttpResponse:
    try:
        context = _form_context(request, source, form)
    except ReportRefused as refusal:
        return render(
            request,
            "moderation/report_refused.html",
            {"error": refusal.message, "back": _back(request, reverse("lobby"))},
            status=refusal.status,
        )
    if context["self_report"]:
        return render(
            request,
            "moderation/report_refused.html",
            {"error": _("На себя пожаловаться нельзя."), "back": context["back"]},
            status=400,
        )
    context["error"] = error
    return render(request, "moderation/report_form.html", context, status=status)


def _counted(request: HttpRequest) -> ThrottleHit:
    """Count this report against the player's hourly limit (`allowed`: within it)."""
    return throttle_hit(
        scope=REPORT_SCOPE, subject=str(request.user.pk), limit=settings.REPORTS_PER_HOUR
    )


def _too_many() -> str:
    return _("Слишком много жалоб за час. Попробуйте позже.")


def _report_json(request: HttpRequest) -> HttpResponse:
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return refusal("bad_json", _("Тело запроса — не JSON."), 400)
    if not isinstance(data, dict):
        return refusal("bad_message", _("Ожидался объект JSON."), 400)
    counted = _counted(request)
    if not counted.allowed:
        return rate_limited(_too_many(), REPORT_LIMIT, counted.retry_after)
    body = read(data, ReportRequest)
    if isinstance(body, Problem):
        return malformed(body)
    try:
        message_id = None if body.message is msgspec.UNSET else _message_in_range(body.message)
        filed = report_create(
            reporter=request.user,
            reason=body.reason,
            note=body.note,
            message_id=message_id,
            player_name=None if body.player is msgspec.UNSET else body.player or None,
        )
    except ReportRefused as refused:
        return refusal(refused.code, refused.message, refused.status)
    return json_answer(ReportFiled(report=filed.pk, message=_thanks()), 201)


def _thanks() -> str:
    return _("Спасибо! Модераторы рассмотрят жалобу.")


def _report_form_post(request: HttpRequest) -> HttpResponse:
    form = ReportForm(request.POST)
    # Counted first, as a JSON post is: every post counts, a refused one too.
    counted = _counted(request)
    if not counted.allowed:
        page = _report_page(request, request.POST, form, error=_too_many(), status=429)
        return retry_later(page, counted.retry_after) if page.status_code == 429 else page
    if not form.is_valid():
        return _report_page(request, request.POST, form, status=400)
    try:
        message_id, player_name = _target(request.POST)
        filed = report_create(
            reporter=request.user,
            reason=form.cleaned_data["reason"],
            note=form.cleaned_data["note"],
            message_id=message_id,
            player_name=player_name,
        )
    except ReportRefused as refusal:
        return _report_page(
            request, request.POST, form, error=refusal.message, status=refusal.status
        )
    return render(
        request,
        "moderation/report_thanks.html",
        {
            "report": filed,
            "thanks": _thanks(),
            "back": _back(request, _profile_path(filed.reported.get_username())),
        },
    )


@require_POST
def notice_read(request: HttpRequest, pk: int) -> HttpResponse:
    """The player read the notice of a moderator's decision: it stops showing."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    notice_acknowledge(player=request.user, sanction_id=pk)
    return HttpResponseRedirect(_back(request, reverse("lobby")))
