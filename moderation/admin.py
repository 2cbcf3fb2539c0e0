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

from insights.coach import option_label, situation_label
from moderation.models import REASON_MAX_LENGTH, Report, Sanction
from moderation.services import (
    PERIODS,
    ModerationError,
    dump_reverse,
    sanction_apply,
    sanction_lift,
)

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


def many_to_one_html(report: Report) -> SafeString:
    """A many-to-one chip-flow case's evidence (fairplay.flows): the taker, the chips in
    all and every giver with the net chips they lost, whether new, and their link score."""
    case = (report.evidence or {}).get("many_to_one") or {}
    gainer = (case.get("gainer") or {}).get("username", "")
    rows = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                _profile_link(str(giver.get("username", ""))),
                giver.get("chips", 0),
                _("да") if giver.get("new") else _("нет"),
                giver.get("link_score", 0),
            )
            for giver in case.get("givers") or []
        ),
    )
    return format_html(
        '<p>{}</p><table class="moderation-evidence"><thead><tr><th>{}</th><th>{}</th>'
        "<th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>",
        format_html(
            _("Фишки многих к одному: {} выиграл у новых или связанных игроков {} фишек (с {})."),
            _profile_link(gainer),
            case.get("chips", 0),
            _moment(case.get("since")),
        ),
        _("Отдавший"),
        _("Фишек, нетто"),
        _("Новый"),
        _("Связь"),
        rows,
    )


def fairplay_evidence_html(report: Report) -> SafeString:
    """A fair-play case's evidence (fairplay.cases): the pair, their link score, the leak
    against honest play with the test's figures, the worst decisions with the coach's
    values and their replays, the chip flows and the bank's other flagged feeders."""
    case = (report.evidence or {}).get("fairplay") or {}
    link, leak, flows = case.get("link") or {}, case.get("leak") or {}, case.get("flows") or {}
    gainer = (case.get("gainer") or {}).get("username", "")
    giver = (case.get("giver") or {}).get("username", "")
    summary = format_html(
        "<p>{}</p><p>{}</p><p>{} {}</p><p>{}</p>",
        format_html(
            _("Пара: {} отдаёт, {} получает (с {})."),
            _profile_link(giver),
            _profile_link(gainer),
            _moment(case.get("since")),
        ),
        _("Связь аккаунтов: общих адресов %(a)s, устройств %(f)s, оценка %(score)s.")
        % {
            "a": link.get("addresses", 0),
            "f": link.get("devices", 0),
            "score": link.get("score", 0),
        },
        _(
            "Утечка: %(n)s решений против банка партнёра, потеряно %(chips)s фишек по оценке "
            "тренера при %(expected)s у честной игры (лишних %(excess)s); z = %(z)s, "
            "порог %(threshold)s."
        )
        % {
            "n": leak.get("decisions", 0),
            "chips": leak.get("chips", 0),
            "expected": leak.get("expected", 0),
            "excess": leak.get("excess", 0),
            "z": leak.get("z", 0),
            "threshold": leak.get("threshold", 0),
        },
        _(
            "Честная игра здесь разбросана так: σ = %(sigma)s на решение, разница в умении "
            "между игроками τ = %(tau)s."
        )
        % {"sigma": leak.get("deviation_per_chip", 0), "tau": leak.get("skill_spread", 0)},
        _(
            "Фишки между ними: игр вместе %(games)s, получатель выиграл %(won)s, отдал "
            "%(lost)s, итог в его пользу %(net)s."
        )
        % {
            "games": flows.get("games", 0),
            "won": flows.get("to_gainer", 0),
            "lost": flows.get("to_giver", 0),
            "net": flows.get("net_to_gainer", 0),
        },
    )
    feeders = case.get("other_feeders") or []
    others = (
        format_html(
            "<p>{} {}</p>",
            _("Этот банк кормят и другие (тоже помечены):"),
            format_html_join(", ", "{}", ((_profile_link(f["username"]),) for f in feeders)),
        )
        if feeders
        else format_html("{}", "")
    )

    def _option(value: Any) -> str:
        """An option in the games' words (the coach's: «Ставка 100», «Хватит») and its value."""
        if not isinstance(value, dict):
            return str(value)
        return f"{option_label(value)} ({value.get('value', '')})"

    rows = format_html_join(
        "",
        '<tr class="fairplay-worst"><td><a href="{}">№{}</a></td><td>{}</td><td>{}</td>'
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                row.get("replay", ""),
                row.get("game", ""),
                row.get("number", ""),
                situation_label(str(row.get("situation", ""))),
                _option(row.get("chosen")),
                _option(row.get("best")),
                row.get("loss", ""),
            )
            for row in case.get("worst") or []
        ),
    )
    table = format_html(
        '<table class="moderation-evidence"><thead><tr><th>{}</th><th>{}</th><th>{}</th>'
        "<th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>",
        _("Игра (повтор)"),
        _("Ход №"),
        _("Положение"),
        _("Выбрано (ожидание)"),
        _("Лучшее (ожидание)"),
        _("Цена ошибки, фишек"),
        rows,
    )
    toward = case.get("toward_bank") or []
    toward_table = format_html(
        '<table class="moderation-evidence"><thead><tr><th>{}</th><th>{}</th><th>{}</th>'
        "<th>{}</th></tr></thead><tbody>{}</tbody></table>",
        _("Игрок"),
        _("Решений против банка"),
        _("Лишних фишек"),
        "z",
        format_html_join(
            "",
            '<tr class="fairplay-feeder"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            (
                (
                    _profile_link(str(row.get("username", ""))),
                    row.get("decisions", 0),
                    row.get("excess", 0),
                    row.get("z", 0),
                )
                for row in toward
            ),
        ),
    )
    return format_html(
        "{}{}<h3>{}</h3>{}<h3>{}</h3>{}",
        summary,
        others,
        _("Худшие решения"),
        table,
        _("Кто больше всех отдаёт этому банку"),
        toward_table,
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


class ReversalForm(forms.Form):
    amount = forms.IntegerField(label=gettext_lazy("Сколько фишек вернуть"), min_value=1)
    reason = forms.CharField(
        label=gettext_lazy("Почему (в выписке обоих игроков)"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "class": "moderation-reason"}),
    )


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
    list_display = (
        "id",
        "created_at",
        "status",
        "reason",
        "reported",
        "partner",
        "reporter_text",
        "excerpt",
    )
    list_display_links = ("id", "created_at")
    list_filter = ("status", "reason")
    search_fields = ("reported__username", "reporter__username", "note")
    # Open reports first (the queue), newest first within each.
    ordering = (
        Case(When(status=Report.Status.OPEN, then=Value(0)), default=Value(1)).asc(),
        "-created_at",
    )
    list_select_related = ("reported", "reporter", "partner")
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
                    "reporter_text",
                    "reported_links",
                    "partner_links",
                    "reversal_text",
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
        "reporter_text",
        "reported_links",
        "partner_links",
        "reversal_text",
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
        evidence = report.evidence or {}
        if evidence.get("fairplay") or evidence.get("many_to_one"):
            parts = []
            if evidence.get("fairplay"):
                parts.append(fairplay_evidence_html(report))
            if evidence.get("many_to_one"):
                parts.append(many_to_one_html(report))
            return format_html_join("", "{}", ((part,) for part in parts))
        return evidence_html(report)

    @admin.display(description=gettext_lazy("Кто пожаловался"))
    def reporter_text(self, report: Report) -> str:
        if report.reporter_id is None:
            return _("детектор честной игры")
        return str(report.reporter)

    @admin.display(description=gettext_lazy("Второй игрок пары"))
    def partner_links(self, report: Report) -> SafeString:
        if report.partner is None:
            return format_html("{}", "—")
        return _player_links(report.partner)

    @admin.display(description=gettext_lazy("Возврат фишек"))
    def reversal_text(self, report: Report) -> SafeString:
        if report.reversal is not None:
            return format_html(
                "{}",
                _("%(amount)s фишек возвращены (запись №%(entry)s), решил %(by)s")
                % {
                    "amount": report.reversal.amount,
                    "entry": report.reversal_id,
                    "by": report.reversed_by,
                },
            )
        if report.partner_id is None:
            return format_html("{}", "—")
        return format_html(
            '<a class="button" href="{}">{}</a>',
            reverse("admin:moderation_report_reverse", args=[report.pk]),
            _("Вернуть фишки"),
        )

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
            ),
            path(
                "<int:pk>/reverse/",
                self.admin_site.admin_view(self.reverse_view),
                name="moderation_report_reverse",
            ),
        ]
        return custom + super().get_urls()

    def reverse_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Reverse a dump: chips back from the case's gainer to its giver, one recorded
        ledger transfer (moderation.services.dump_reverse)."""
        if not request.user.has_perm("moderation.add_sanction"):
            raise PermissionDenied
        report = get_object_or_404(
            Report.objects.select_related("reported", "partner", "reversal"), pk=pk
        )
        form = ReversalForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                dump_reverse(
                    report=report,
                    amount=form.cleaned_data["amount"],
                    by=request.user,
                    reason=form.cleaned_data["reason"],
                )
            except ModerationError as error:
                form.add_error(None, error.message)
            else:
                self.message_user(request, _("Фишки возвращены."), messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse("admin:moderation_report_change", args=[report.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": report,
            "report": report,
            "form": form,
            "title": _("Вернуть фишки по делу №%(id)s") % {"id": report.pk},
            "evidence": fairplay_evidence_html(report),
        }
        return TemplateResponse(request, "admin/moderation/reverse.html", context)

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
