import json
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from accounts.models import LedgerEntry
from games import engine
from play.models import Game, GameEvent
from play.services import closing, records
from play.services.errors import PlayError
from tables.models import Seat, Table

# How many of a table's latest games its admin page lists (the rest: the game list).
TABLE_GAMES_SHOWN = 10


def admin_json(value: Any, *, indent: int | None = 2) -> str:
    """A JSON value for an admin page: pretty-printed (or compact), HTML-escaped."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    if indent is None:
        return format_html("<code>{}</code>", text)
    return format_html(
        '<pre style="white-space: pre-wrap; max-height: 40em; overflow: auto; margin: 0">{}</pre>',
        text,
    )


def _voided_message(count: int) -> str:
    return ngettext(
        "Отменена %(n)d игра в ходе: все ставки в ней возвращены игрокам.",
        "Отменено игр в ходе: %(n)d; все ставки в них возвращены игрокам.",
        count,
    ) % {"n": count}


def _moment(value: Any) -> str:
    """A date and time, to the second, in local time and the active language's format."""
    if value is None:
        return "—"
    local = timezone.template_localtime(value)
    return (
        f"{formats.date_format(local, 'SHORT_DATE_FORMAT')} {formats.time_format(local, 'H:i:s')}"
    )


def _game_change_url(game: Game) -> str:
    return reverse("admin:play_game_change", args=[game.pk])


class SeatInline(admin.TabularInline):  # type: ignore[type-arg]
    """Who sits where. Players sit down and stand up themselves; an admin frees seats by
    closing the table (through the services, which settle a game in play), never by
    deleting rows here."""

    model = Seat
    extra = 0
    fields = ("number", "player", "ai_level", "leaving", "seated_at")
    readonly_fields = fields
    can_delete = False
    ordering = ("number",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "name",
        "variant",
        "status",
        "seats_taken_total",
        "stakes",
        "entry_limit",
        "decision_seconds",
        "created_at",
    )
    list_filter = ("variant", "status")
    search_fields = ("name",)
    inlines = [SeatInline]
    actions = ["close_tables", "reopen_tables"]
    readonly_fields = ("created_by", "created_at", "closed_at", "games_list")
    fieldsets = [
        (None, {"fields": ("variant", "name", "status", "seat_count", "bots_allowed")}),
        (
            gettext_lazy("Ставки"),
            {
                "fields": ("stake", "min_bet", "max_bet", "entry_limit"),
                "description": gettext_lazy(
                    "Очко с банкиром: ставка стола. Салонная игра: минимальная и "
                    "максимальная ставки. Пустые поля получат значения по умолчанию."
                ),
            },
        ),
        (
            gettext_lazy("Время и партия"),
            {"fields": ("decision_seconds", "reconnect_grace_seconds", "match_length")},
        ),
        (gettext_lazy("История"), {"fields": ("created_by", "created_at", "closed_at")}),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: Table | None = None) -> Any:
        # A table's games, chips and records follow its variant (the services read it):
        # changed under a game in play, its stakes would stay in escrow and its record
        # would no longer replay. Another variant is another table.
        fields = tuple(super().get_readonly_fields(request, obj))
        return fields if obj is None else ("variant", *fields)

    def get_fieldsets(self, request: HttpRequest, obj: Table | None = None) -> Any:
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is not None:
            fieldsets.append((gettext_lazy("Игры"), {"fields": ("games_list",)}))
        return fieldsets

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return super().get_queryset(request).annotate(seats_taken=Count("seats"))

    @admin.display(description=gettext_lazy("Места"), ordering="seats_taken")
    def seats_taken_total(self, table: Table) -> str:
        return f"{table.seats_taken}/{table.seat_count}"  # type: ignore[attr-defined]

    @admin.display(description=gettext_lazy("Ставки"))
    def stakes(self, table: Table) -> str:
        return table.stakes_label()

    @admin.display(description=gettext_lazy("Последние игры"))
    def games_list(self, table: Table) -> str:
        if table.pk is None:
            return "—"
        games = list(table.games.order_by("-number")[:TABLE_GAMES_SHOWN])
        if not games:
            return _("За этим столом ещё не играли.")
        rows = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            (
                (
                    _game_change_url(game),
                    game.number,
                    game.get_status_display(),
                    _moment(game.started_at),
                    _moment(game.finished_at),
                    ", ".join(game.seat_ids),
                )
                for game in games
            ),
        )
        everything = reverse("admin:play_game_changelist") + f"?table__id__exact={table.pk}"
        return format_html(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>"
            '</thead><tbody>{}</tbody></table><p><a href="{}">{}</a></p>',
            _("Игра №"),
            _("Статус"),
            _("Начата"),
            _("Окончена"),
            _("Игроки"),
            rows,
            everything,
            _("Все игры стола (%(n)d)") % {"n": table.games.count()},
        )

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
            super().save_model(request, obj, form, change)
        else:
            # Only what the form changed: the live fields (version, next game) belong to
            # the services, and the form's copy of them may be stale by now.
            fields = [f for f in form.changed_data if f != "status"]
            if fields:
                obj.save(update_fields=fields)
        # Closing or reopening by the status field does what the list actions do.
        if change and "status" in form.changed_data:
            if obj.status == Table.Status.CLOSED:
                if self._close(obj):
                    self.message_user(request, _voided_message(1), messages.WARNING)
            else:
                closing.table_reopen(table=obj)

    @staticmethod
    def _close(table: Table) -> bool:
        """Close a table through the service; True if it voided a game in play."""
        game = Game.objects.filter(table=table, status=Game.Status.PLAYING).first()
        closing.table_close(table=table)
        return (
            game is not None and Game.objects.filter(pk=game.pk, status=Game.Status.VOIDED).exists()
        )

    @admin.action(
        description=gettext_lazy(
            "Закрыть выбранные столы (игра в ходе отменяется, ставки возвращаются)"
        )
    )
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        count = voided = 0
        for table in queryset:
            voided += self._close(table)
            count += 1
        message = ngettext("Закрыт %(n)d стол.", "Закрыто столов: %(n)d.", count) % {"n": count}
        if voided:
            message += " " + _voided_message(voided)
        else:
            message += " " + _("Игр в ходе не было: отменять нечего.")
        self.message_user(request, message, messages.SUCCESS)

    @admin.action(description=gettext_lazy("Открыть выбранные столы"))
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        for table in queryset:
            closing.table_reopen(table=table)
        self.message_user(request, _("Готово."), messages.SUCCESS)


class _ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class GameLedgerInline(_ReadOnlyInline):
    """The chips the game moved: stakes into its escrow, payouts and refunds out."""

    model = LedgerEntry
    fk_name = "game"
    fields = (
        "created_at",
        "reason",
        "source",
        "destination",
        "amount",
        "source_balance_after",
        "destination_balance_after",
        "idempotency_key",
    )
    readonly_fields = fields
    ordering = ("id",)
    show_change_link = True
    verbose_name_plural = gettext_lazy("Журнал фишек этой игры")

    def get_queryset(self, request: HttpRequest) -> QuerySet[LedgerEntry]:
        return super().get_queryset(request).select_related("source__owner", "destination__owner")


class GameEventInline(_ReadOnlyInline):
    """Every transition, unfiltered (hidden cards included): admins only."""

    model = GameEvent
    fields = ("version", "action_json", "events_json", "created")
    readonly_fields = fields
    ordering = ("version",)
    verbose_name_plural = gettext_lazy("События игры (все, со скрытыми картами)")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Events are part of the game: whoever may view the game may view them.
        opts = Game._meta
        return bool(request.user.has_perm(f"{opts.app_label}.view_{opts.model_name}"))

    @admin.display(description=gettext_lazy("Ход"))
    def action_json(self, event: GameEvent) -> str:
        return "—" if event.action is None else admin_json(event.action, indent=None)

    @admin.display(description=gettext_lazy("События"))
    def events_json(self, event: GameEvent) -> str:
        return admin_json(event.events, indent=None)

    @admin.display(description=gettext_lazy("время"))
    def created(self, event: GameEvent) -> str:
        return _moment(event.created_at)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Live and past games, read-only: the full engine state (hidden cards included), the
    seed, the hand record, the events and the chips. Games change only through the
    services; the one thing an admin does here is void a game in play."""

    list_display = (
        "number",
        "table",
        "variant",
        "status",
        "started_at",
        "finished_at",
        "players_label",
    )
    list_display_links = ("number", "table")
    list_filter = ("variant", "status")
    search_fields = ("table__name",)
    list_select_related = ("table",)
    actions = ["void_games"]
    inlines = [GameLedgerInline, GameEventInline]
    readonly_fields = (
        "table",
        "number",
        "variant",
        "status",
        "started_at",
        "finished_at",
        "deadline_seat",
        "deadline",
        "paused_remaining_ms",
        "players_table",
        "first_banker",
        "options_json",
        "commitment",
        "server_seed",
        "client_seeds",
        "seed",
        "state_json",
        "record_download",
        "record_json",
        "result_json",
        "ledger_summary",
        "withheld",
    )

    def get_fieldsets(self, request: HttpRequest, obj: Game | None = None) -> Any:
        summary = (
            "table",
            "number",
            "variant",
            "status",
            "started_at",
            "finished_at",
            "deadline_seat",
            "deadline",
            "paused_remaining_ms",
        )
        players = ("players_table", "first_banker", "options_json")
        if obj is not None and self._withheld(request, obj):
            return [
                (None, {"fields": summary}),
                (gettext_lazy("Игроки"), {"fields": players}),
                (gettext_lazy("Честность"), {"fields": ("commitment", "client_seeds")}),
                (gettext_lazy("Полное состояние"), {"fields": ("withheld",)}),
                (gettext_lazy("Фишки"), {"fields": ("ledger_summary",)}),
            ]
        return [
            (None, {"fields": summary}),
            (gettext_lazy("Игроки"), {"fields": players}),
            (
                gettext_lazy("Честность"),
                {"fields": ("commitment", "server_seed", "client_seeds", "seed")},
            ),
            (
                gettext_lazy("Полное состояние"),
                {
                    "fields": ("state_json",),
                    "description": gettext_lazy(
                        "Только для администраторов: состояние движка целиком, со "
                        "скрытыми картами (колода, карты рук). Игрокам его не показывают."
                    ),
                },
            ),
            (
                gettext_lazy("Запись раздачи"),
                {"fields": ("record_download", "record_json", "result_json")},
            ),
            (gettext_lazy("Фишки"), {"fields": ("ledger_summary",)}),
        ]

    def get_inlines(self, request: HttpRequest, obj: Any) -> list[Any]:
        if obj is not None and self._withheld(request, obj):
            return [GameLedgerInline]
        return list(self.inlines)

    @staticmethod
    def _withheld(request: HttpRequest, game: Game) -> bool:
        """An admin who plays in a game in play does not see its hidden cards here."""
        return game.is_playing and any(p["user"] == request.user.pk for p in game.players)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).select_related("table")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_void_permission(self, request: HttpRequest) -> bool:
        opts = self.opts
        return bool(request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}"))

    # --- columns and fields ------------------------------------------------------------

    @admin.display(description=gettext_lazy("Игроки"))
    def players_label(self, game: Game) -> str:
        return ", ".join(game.seat_ids)

    @admin.display(description=gettext_lazy("Игроки"))
    def players_table(self, game: Game) -> str:
        deltas = game.state.get("deltas", {})
        in_play = engine.in_play(game.state) if game.is_playing else {}
        rows = []
        for player in game.players:
            if player.get("user"):
                url = reverse("admin:accounts_user_change", args=[player["user"]])
                who = format_html('<a href="{}">{}</a>', url, player["id"])
            else:
                who = format_html(
                    "{} ({})", player["id"], _("ИИ: %(level)s") % {"level": player.get("ai")}
                )
            rows.append(
                (
                    player.get("number", "—"),
                    who,
                    player.get("chips", "—"),
                    in_play.get(player["id"], 0),
                    deltas.get(player["id"], "—"),
                )
            )
        return format_html(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>"
            "</thead><tbody>{}</tbody></table>",
            _("Место"),
            _("Игрок"),
            _("Фишек в начале"),
            _("Сейчас в игре"),
            _("Итог"),
            format_html_join(
                "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows
            ),
        )

    @admin.display(description=gettext_lazy("Параметры"))
    def options_json(self, game: Game) -> str:
        return admin_json(game.options)

    @admin.display(description=gettext_lazy("Состояние движка"))
    def state_json(self, game: Game) -> str:
        return admin_json(game.state)

    @admin.display(description=gettext_lazy("Скачать"))
    def record_download(self, game: Game) -> str:
        link = format_html(
            '<a class="button" href="{}">{}</a>',
            reverse("game_record", args=[game.pk]),
            "record.json",
        )
        if not game.is_playing:
            return link
        return format_html("{} {}", link, _("Пока игра идёт, в файле нет ключа — как и у игроков."))

    @admin.display(description=gettext_lazy("Запись раздачи (с ключом)"))
    def record_json(self, game: Game) -> str:
        return admin_json(records.game_record(game))

    @admin.display(description=gettext_lazy("Результат"))
    def result_json(self, game: Game) -> str:
        return "—" if game.result is None else admin_json(game.result)

    @admin.display(description=gettext_lazy("Журнал фишек"))
    def ledger_summary(self, game: Game) -> str:
        entries = LedgerEntry.objects.filter(game=game)
        url = reverse("admin:accounts_ledgerentry_changelist") + f"?game__id__exact={game.pk}"
        return format_html(
            '<a href="{}">{}</a>',
            url,
            _("Записей: %(n)d — открыть в журнале фишек") % {"n": entries.count()},
        )

    @admin.display(description=gettext_lazy("Скрыто"))
    def withheld(self, game: Game) -> str:
        return _(
            "Вы играете в этой игре: пока она идёт, состояние со скрытыми картами, "
            "ключ, запись и события здесь не показываются."
        )

    # --- voiding ------------------------------------------------------------------------

    def _void(self, request: HttpRequest, game: Game) -> bool:
        try:
            closing.game_void(game=game)
        except PlayError as error:
            self.message_user(
                request,
                _("«%(game)s» не отменена: %(reason)s") % {"game": game, "reason": error.message},
                messages.WARNING,
            )
            return False
        return True

    @admin.action(
        description=gettext_lazy("Отменить выбранные игры в ходе (ставки вернутся игрокам)"),
        permissions=["void"],
    )
    def void_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        voided = sum(self._void(request, game) for game in queryset.select_related("table"))
        if voided:
            self.message_user(request, _voided_message(voided), messages.SUCCESS)

    def get_urls(self) -> list[URLPattern]:
        custom = [
            path(
                "<int:pk>/void/",
                self.admin_site.admin_view(self.void_view),
                name="play_game_void",
            )
        ]
        return custom + super().get_urls()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        extra_context = {**(extra_context or {}), "can_void": self.has_void_permission(request)}
        return super().change_view(request, object_id, form_url, extra_context)

    def void_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Void one game in play: a confirmation page, then the service on POST."""
        if not self.has_void_permission(request):
            raise PermissionDenied
        game = get_object_or_404(Game.objects.select_related("table"), pk=pk)
        if request.method == "POST" or not game.is_playing:
            if self._void(request, game):
                self.message_user(request, _voided_message(1), messages.SUCCESS)
            return HttpResponseRedirect(_game_change_url(game))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": game,
            "game": game,
            "title": _("Отменить игру: %(game)s") % {"game": game},
            "in_play": sorted(engine.in_play(game.state).items()),
        }
        return TemplateResponse(request, "admin/play/game/void_confirm.html", context)
