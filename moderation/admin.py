"""The moderation queue in Django admin.

Reports, open first, filtered by state and reason; a report's page shows the evidence
kept with it (the messages around the reported one, as written), links to the game, the
table, the player's profile and their earlier reports and decisions, and «Принять меры»:
warn, mute or ban for a period, or dismiss — each a `Sanction` with who, when and why
(moderation.services). A moderator may also decide without a report («Добавить меру»),
and lift a mute or a ban early (recorded on it).
"""

from __future__ import annotations

import datetime
from typing import Any
from urllib.parse import quote

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Case, Value, When
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import formats, timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from moderation.models import REASON_MAX_LENGTH, Report, Sanction
from moderation.services import PERIODS, ModerationError, sanction_apply, sanction_lift

PERIOD_CHOICES = [
    ("1h", gettext_lazy("1 час")),
    ("1d", gettext_lazy("1 день")),
    ("7d", gettext_lazy("7 дней")),
    ("30d", gettext_lazy("30 дней")),
]


def _moment(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        value = parse_datetime(value)
        if value is None:
            return "—"
    local = timezone.template_localtime(value)
    return (
        f"{formats.date_format(local, 'SHORT_DATE_FORMAT')} {formats.time_format(local, 'H:i:s')}"
    )


def _profile_link(username: str) -> SafeString:
    return format_html('<a href="/players/{}/">{}</a>', quote(username, safe=""), username)


def evidence_html(report: Report) -> SafeString:
    """The messages kept with the report, as written (and as shown, when the filter
    masked something), the reported one marked."""
    rows = (report.evidence or {}).get("messages") or []
    if not rows:
        return format_html("<p>{}</p>", _("Сообщений нет."))
    body = format_html_join(
        "",
        '<tr{}><td class="evidence-time">{}</td><td>{}</td><td>{}{}</td></tr>',
        (
            (
                mark_safe(' class="evidence-reported"') if row.get("reported") else "",
                _moment(row.get("created_at")),
                _profile_link(str(row.get("author", ""))),
                row.get("text", ""),
                format_html(
                    ' <span class="evidence-shown">({}: {})</span>', _("игрокам"), row["shown"]
                )
                if row.get("shown") not in (None, row.get("text"))
                else "",
            )
            for row in rows
        ),
    )
    return format_html(
        '<table class="moderation-evidence"><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr>'
        "</thead><tbody>{}</tbody></table>",
        _("Время"),
        _("Автор"),
        _("Текст как написан"),
        body,
    )


def _restrictions_text(player: Any) -> str:
    """The player's mutes and bans in force now, for the moderator deciding."""
    running = Sanction.objects.in_force().filter(player=player).order_by("ends_at")
    return "; ".join(
        _("%(kind)s до %(until)s")
        % {"kind": item.get_kind_display(), "until": _moment(item.ends_at)}
        for item in running
    )


def _player_links(player: Any) -> SafeString:
    restrictions = _restrictions_text(player)
    reports = reverse("admin:moderation_report_changelist") + f"?reported__id__exact={player.pk}"
    sanctions = reverse("admin:moderation_sanction_changelist") + f"?player__id__exact={player.pk}"
    return format_html(
        '{} · <a href="{}">{}</a> · <a href="{}">{}</a> · <a href="{}">{}</a>{}',
        _profile_link(player.username),
        reports,
        _("жалобы на него: %(n)d") % {"n": Report.objects.filter(reported=player).count()},
        sanctions,
        _("меры: %(n)d") % {"n": Sanction.objects.filter(player=player).count()},
        reverse("admin:moderation_sanction_add") + f"?player={player.pk}",
        _("добавить меру"),
        format_html("<br>{} {}", _("Сейчас действует:"), restrictions) if restrictions else "",
    )


def _game_links(report: Report) -> SafeString:
    evidence = report.evidence or {}
    parts = []
    table_id = report.table_id or (evidence.get("table") or {}).get("id")
    table_name = (evidence.get("table") or {}).get("name") or table_id
    game_id = report.game_id or (evidence.get("game") or {}).get("id")
    if table_id:
        parts.append(
            format_html(
                '{} <a href="{}">{}</a>',
                _("стол"),
                reverse("admin:tables_table_change", args=[table_id]),
                table_name,
            )
        )
    if game_id:
        parts.append(
            format_html(
                '{} <a href="{}">№{}</a> (<a href="{}">{}</a>)',
                _("игра"),
                reverse("admin:play_game_change", args=[game_id]),
                game_id,
                reverse("game_replay", args=[game_id]),
                _("повтор"),
            )
        )
    if not parts:
        return format_html("{}", "—")
    return format_html_join(" · ", "{}", ((part,) for part in parts))


class DecisionForm(forms.Form):
    """A moderator's decision: the measure, its period (mute, ban), and why."""

    kind = forms.ChoiceField(label=gettext_lazy("Мера"), choices=Sanction.Kind.choices)
    period = forms.ChoiceField(
        label=gettext_lazy("Срок (для запрета писать и садиться)"),
        choices=[("", "—"), *PERIOD_CHOICES],
        required=False,
    )
    reason = forms.CharField(
        label=gettext_lazy("Причина (игрок её увидит)"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "class": "moderation-reason"}),
    )

    def __init__(self, *args: Any, with_report: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not with_report:
            field = self.fields["kind"]
            assert isinstance(field, forms.ChoiceField)
            field.choices = [
                (value, label) for value, label in Sanction.Kind.choices if value != "dismiss"
            ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") in Sanction.RESTRICTING and not data.get("period"):
            self.add_error("period", _("Выберите срок."))
        return data

    def period_length(self) -> datetime.timedelta | None:
        key = self.cleaned_data.get("period")
        if self.cleaned_data.get("kind") in Sanction.RESTRICTING and key:
            return PERIODS[key]
        return None


class PlayerForm(forms.Form):
    player = forms.ModelChoiceField(
        label=gettext_lazy("Игрок"), queryset=get_user_model().objects.order_by("username")
    )


class LiftForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Почему снимаете досрочно (игрок увидит)"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "class": "moderation-reason"}),
    )


def _decide(
    request: HttpRequest, form: DecisionForm, *, player: Any, report: Report | None
) -> Sanction | None:
    try:
        return sanction_apply(
            kind=form.cleaned_data["kind"],
            player=player,
            by=request.user,
            reason=form.cleaned_data["reason"],
            period=form.period_length(),
            report=report,
        )
    except ModerationError as error:
        form.add_error(None, error.message)
        return None


class SanctionInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Sanction
    fk_name = "report"
    extra = 0
    can_delete = False
    fields = ("kind", "created_at", "created_by", "ends_at", "reason", "lifted_at")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("Решения по жалобе")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class _AdminMedia:
    css = {"all": ["css/moderation-admin.css"]}


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    Media = _AdminMedia
    list_display = ("id", "created_at", "status", "reason", "reported", "reporter", "excerpt")
    list_display_links = ("id", "created_at")
    list_filter = ("status", "reason")
    search_fields = ("reported__username", "reporter__username", "note")
    # Open reports first (the queue), newest first within each.
    ordering = (
        Case(When(status=Report.Status.OPEN, then=Value(0)), default=Value(1)).asc(),
        "-created_at",
    )
    list_select_related = ("reported", "reporter")
    inlines = [SanctionInline]
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "take_action",
                    "status",
                    "created_at",
                    "reason",
                    "note",
                    "reporter",
                    "reported_links",
                    "where",
                )
            },
        ),
        (gettext_lazy("Сообщения вокруг (как написаны)"), {"fields": ("evidence_table",)}),
    )
    readonly_fields = (
        "take_action",
        "status",
        "created_at",
        "reason",
        "note",
        "reporter",
        "reported_links",
        "where",
        "evidence_table",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players file reports; moderators decide on them

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a report is evidence: read, decided on («Принять меры»), not edited

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the record stays

    @admin.display(description=gettext_lazy("Сообщение"))
    def excerpt(self, report: Report) -> str:
        message = (report.evidence or {}).get("message") or {}
        text = str(message.get("text") or report.note or "")
        return text if len(text) <= 60 else text[:59] + "…"

    @admin.display(description=gettext_lazy("На кого"))
    def reported_links(self, report: Report) -> SafeString:
        return _player_links(report.reported)

    @admin.display(description=gettext_lazy("Где"))
    def where(self, report: Report) -> SafeString:
        return _game_links(report)

    @admin.display(description=gettext_lazy("Сообщения"))
    def evidence_table(self, report: Report) -> SafeString:
        return evidence_html(report)

    @admin.display(description=gettext_lazy("Решение"))
    def take_action(self, report: Report) -> SafeString:
        if report.status != Report.Status.OPEN:
            return format_html("{}", _("Жалоба рассмотрена (решения — ниже)."))
        return format_html(
            '<a class="button" href="{}">{}</a>',
            reverse("admin:moderation_report_act", args=[report.pk]),
            _("Принять меры"),
        )

    def get_urls(self) -> list[URLPattern]:
        custom = [
            path(
                "<int:pk>/act/",
                self.admin_site.admin_view(self.act_view),
                name="moderation_report_act",
            )
        ]
        return custom + super().get_urls()

    def act_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Decide on a report: warn, mute, ban (with a period), or dismiss, with a reason."""
        if not request.user.has_perm("moderation.add_sanction"):
            raise PermissionDenied
        report = get_object_or_404(Report.objects.select_related("reported", "reporter"), pk=pk)
        form = DecisionForm(request.POST or None, with_report=True)
        decided = (
            request.method == "POST"
            and form.is_valid()
            and _decide(request, form, player=report.reported, report=report) is not None
        )
        if decided:
            self.message_user(request, _("Решение записано."), messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:moderation_report_change", args=[report.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": report,
            "report": report,
            "player": report.reported,
            "form": form,
            "title": _("Решение по жалобе №%(id)s") % {"id": report.pk},
            "player_links": _player_links(report.reported),
            "where": _game_links(report),
            "evidence": evidence_html(report),
        }
        return TemplateResponse(request, "admin/moderation/decide.html", context)


@admin.register(Sanction)
class SanctionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    Media = _AdminMedia
    list_display = ("created_at", "kind", "player", "ends_at", "state", "created_by", "report")
    list_filter = ("kind",)
    search_fields = ("player__username", "reason")
    list_select_related = ("player", "created_by", "report")
    fields = (
        "kind",
        "player",
        "report",
        "reason",
        "created_by",
        "created_at",
        "ends_at",
        "state",
        "lifted_at",
        "lifted_by",
        "lift_reason",
        "acknowledged_at",
        "lift",
    )
    readonly_fields = fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the record stays

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a record: lifting early is its own form, which records it

    @admin.display(description=gettext_lazy("Действует"))
    def state(self, sanction: Sanction) -> str:
        if sanction.lifted_at is not None:
            return _("снята досрочно")
        if not sanction.is_restricting:
            return "—"
        return _("да") if sanction.in_force() else _("закончилась")

    @admin.display(description=gettext_lazy("Снять досрочно"))
    def lift(self, sanction: Sanction) -> SafeString:
        if not sanction.in_force():
            return format_html("{}", "—")
        return format_html(
            '<a class="button" href="{}">{}</a>',
            reverse("admin:moderation_sanction_lift", args=[sanction.pk]),
            _("Снять досрочно"),
        )

    def get_urls(self) -> list[URLPattern]:
        custom = [
            path(
                "<int:pk>/lift/",
                self.admin_site.admin_view(self.lift_view),
                name="moderation_sanction_lift",
            )
        ]
        return custom + super().get_urls()

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """A decision without a report: the player, the measure, the period, the reason."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        data = request.POST if request.method == "POST" else None
        picker = PlayerForm(data, initial={"player": request.GET.get("player")})
        form = DecisionForm(data, with_report=False)
        if request.method == "POST" and picker.is_valid() and form.is_valid():
            player = picker.cleaned_data["player"]
            sanction = _decide(request, form, player=player, report=None)
            if sanction is not None:
                self.message_user(request, _("Решение записано."), messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse("admin:moderation_sanction_change", args=[sanction.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "form": form,
            "picker": picker,
            "title": _("Мера без жалобы"),
        }
        return TemplateResponse(request, "admin/moderation/decide.html", context)

    def lift_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Lift a mute or a ban early, with a reason."""
        if not request.user.has_perm("moderation.change_sanction"):
            raise PermissionDenied
        sanction = get_object_or_404(Sanction.objects.select_related("player"), pk=pk)
        form = LiftForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                sanction_lift(
                    sanction=sanction, by=request.user, reason=form.cleaned_data["reason"]
                )
            except ModerationError as error:
                form.add_error(None, error.message)
            else:
                self.message_user(request, _("Мера снята."), messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse("admin:moderation_sanction_change", args=[sanction.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": sanction,
            "sanction": sanction,
            "form": form,
            "title": _("Снять досрочно: %(sanction)s") % {"sanction": sanction},
        }
        return TemplateResponse(request, "admin/moderation/lift.html", context)
