import uuid
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.forms import ChipsAdjustForm
from accounts.models import (
    AccessToken,
    AccessTokenEvent,
    Account,
    DailyBonusClaim,
    DailyBonusSwitch,
    LedgerEntry,
    User,
)
from accounts.reports import bonus_grants, chip_flows
from accounts.services import ChipsError, chips_adjust
from accounts.tokens import token_revoke


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = (
        "username",
        "email",
        "chips",
        "stats",
        "bot_owner",
        "is_active",
        "is_staff",
        "date_joined",
    )
    list_filter = (("bot_owner", admin.EmptyFieldListFilter), *DjangoUserAdmin.list_filter)
    actions = ("suspend", "restore")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (gettext_lazy("Бот"), {"fields": ("bot_owner",)}),
    )

    @admin.action(description=gettext_lazy("Приостановить (боты и люди): не входят и не играют"))
    def suspend(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        # Saved one by one: a deactivated account's sessions and tokens end with its save
        # (accounts.signals), and its open sockets close with 4440.
        for user in queryset.filter(is_active=True):
            user.is_active = False
            user.save(update_fields=["is_active"])

    @admin.action(description=gettext_lazy("Вернуть приостановленных"))
    def restore(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset.filter(is_active=False):
            user.is_active = True
            user.save(update_fields=["is_active"])

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).prefetch_related("chip_accounts")

    @admin.display(description=gettext_lazy("Фишки"))
    def chips(self, user: User) -> Any:
        wallet = next((a for a in user.chip_accounts.all() if a.kind == Account.Kind.PLAYER), None)
        if wallet is None:
            return "—"
        url = reverse("admin:accounts_account_change", args=[wallet.pk])
        return format_html('<a href="{}">{}</a>', url, wallet.balance)

    @admin.display(description=gettext_lazy("Статистика"))
    def stats(self, user: User) -> Any:
        """The player's statistics page (insights/stats.py), which staff may open for anyone."""
        url = reverse("stats_of", args=[user.username])
        return format_html('<a href="{}">{}</a>', url, _("открыть"))


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    """Wallets are read-only here: balances change only through the ledger."""

    list_display = ("__str__", "kind", "owner", "balance", "created_at")
    list_filter = ("kind",)
    search_fields = ("owner__username", "owner__email", "code")
    readonly_fields = ("kind", "owner", "code", "balance", "created_at", "adjust_link")
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("Начислить или списать"))
    def adjust_link(self, account: Account) -> Any:
        if account.kind != Account.Kind.PLAYER:
            return "—"
        url = reverse("admin:accounts_account_adjust", args=[account.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Начислить / списать"))

    def get_urls(self) -> list[URLPattern]:
        custom = [
            path(
                "<int:pk>/adjust/",
                self.admin_site.admin_view(self.adjust_view),
                name="accounts_account_adjust",
            ),
            path(
                "chip-flows/",
                self.admin_site.admin_view(self.chip_flows_view),
                name="accounts_account_chip_flows",
            ),
        ]
        return custom + super().get_urls()

    def chip_flows_view(self, request: HttpRequest) -> HttpResponse:
        """Who won most from whom, across tables: chips funnelled from throwaway accounts
        into one stand out at the top (accounts/reports.py says how flows are inferred)."""
        if not request.user.has_perm("accounts.view_ledgerentry"):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Потоки фишек между игроками"),
            "flows": chip_flows(),
            "bonuses": bonus_grants(),
        }
        return TemplateResponse(request, "admin/accounts/account/chip_flows.html", context)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        extra = {"chip_flows_url": reverse("admin:accounts_account_chip_flows")}
        return super().changelist_view(request, {**(extra_context or {}), **extra})

    def adjust_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Grant or take chips: one ledger entry, with the admin's reason and name."""
        if not request.user.has_perm("accounts.change_account"):
            raise PermissionDenied
        wallet = get_object_or_404(Account, pk=pk, kind=Account.Kind.PLAYER)
        if request.method == "POST":
            form = ChipsAdjustForm(request.POST)
            if form.is_valid():
                try:
                    entry = chips_adjust(
                        wallet=wallet,
                        amount=form.signed_amount(),
                        memo=form.cleaned_data["memo"],
                        by=request.user,
                        idempotency_key="admin:" + form.cleaned_data["idempotency_key"],
                    )
                except ChipsError as exc:
                    form.add_error(None, exc.message)
                else:
                    self.message_user(
                        request,
                        _("Запись №%(id)d: баланс %(wallet)s теперь %(balance)d.")
                        % {"id": entry.pk, "wallet": wallet, "balance": wallet.balance},
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(
                        reverse("admin:accounts_account_change", args=[wallet.pk])
                    )
        else:
            form = ChipsAdjustForm(initial={"idempotency_key": uuid.uuid4().hex})
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": wallet,
            "title": _("Начислить или списать фишки: %(wallet)s") % {"wallet": wallet},
            "form": form,
            "wallet": wallet,
        }
        return TemplateResponse(request, "admin/accounts/account/adjust.html", context)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """The ledger is append-only: admins read it, nobody edits it."""

    list_display = (
        "id",
        "created_at",
        "source",
        "destination",
        "amount",
        "reason",
        "game_link",
        "round_ref",
        "memo",
        "created_by",
    )
    # One game's entries: ?game__id__exact=<id> (the "only this game" link of a row, or
    # the game's admin page); "game:<id>" also finds them by round_ref.
    list_filter = ("reason", ("game", admin.EmptyFieldListFilter))
    search_fields = (
        "idempotency_key",
        "round_ref",
        "memo",
        "source__owner__username",
        "destination__owner__username",
        "game__table__name",
    )
    list_select_related = ("source__owner", "destination__owner", "created_by", "game__table")

    @admin.display(description=gettext_lazy("Игра"), ordering="game")
    def game_link(self, entry: LedgerEntry) -> Any:
        if entry.game_id is None:
            return "—"
        url = reverse("admin:play_game_change", args=[entry.game_id])
        only = (
            reverse("admin:accounts_ledgerentry_changelist") + f"?game__id__exact={entry.game_id}"
        )
        return format_html(
            '<a href="{}">{}</a> (<a href="{}">{}</a>)',
            url,
            entry.game,
            only,
            _("только эта игра"),
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(DailyBonusSwitch)
class DailyBonusSwitchAdmin(admin.ModelAdmin):
    """The daily bonus on or off (accounts/bonus.py): one row; no row means on."""

    list_display = ("__str__", "enabled", "note", "changed_at", "changed_by")
    readonly_fields = ("changed_at", "changed_by")
    fields = ("enabled", "note", "changed_at", "changed_by")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and not DailyBonusSwitch.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        obj.changed_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(DailyBonusClaim)
class DailyBonusClaimAdmin(admin.ModelAdmin):
    """Claims are made by players only; admins read them (the chips are in the ledger)."""

    list_display = ("claimed_at", "user", "day", "time_zone", "amount")
    list_select_related = ("user", "entry")
    search_fields = ("user__username",)
    date_hierarchy = "claimed_at"

    @admin.display(description=gettext_lazy("Фишек"))
    def amount(self, claim: DailyBonusClaim) -> int:
        return claim.entry.amount

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Personal access tokens, without their secrets (only a digest is stored): staff may
    revoke one, which closes its sockets (accounts.tokens.token_revoke)."""

    list_display = ("name", "user", "scopes", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__username", "name", "prefix")
    readonly_fields = (
        "user",
        "name",
        "scopes",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    exclude = ("digest",)
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by their owner, who alone sees the secret

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # revoked, so that the audit keeps them

    @admin.action(description=gettext_lazy("Отозвать выбранные токены"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[AccessToken]) -> None:
        address = str(request.META.get("REMOTE_ADDR", ""))
        done = sum(token_revoke(token=t, by=request.user, address=address) for t in queryset)
        self.message_user(request, _("Отозвано токенов: %(n)d.") % {"n": done})


@admin.register(AccessTokenEvent)
class AccessTokenEventAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("at", "kind", "token", "user", "address", "detail")
    list_filter = ("kind",)
    search_fields = ("address", "user__username", "detail")
    readonly_fields = ("at", "kind", "token", "user", "address", "detail")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
