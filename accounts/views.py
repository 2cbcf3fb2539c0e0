from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.core.paginator import Paginator
from django.db import IntegrityError
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import bots, tokens
from accounts.bonus import BonusRefused, daily_bonus_claim, daily_bonus_claimable
from accounts.forms import AccessTokenForm, BotForm, MailLaterPasswordResetForm, SignUpForm
from accounts.models import AccessToken, Account, LedgerEntry
from accounts.services import WELCOME_GRANT_CHIPS, player_register, wallet_for
from accounts.throttling import (
    HOUR,
    seconds_until,
    throttle_count,
    throttle_hit,
    throttle_release,
    window_end,
)
from contract.http import BonusGranted, ChipBalance
from lib.bodies import json_answer, rate_limited, retry_later
from lib.bodies import refusal as refusal_response

STATEMENT_PAGE_SIZE = 25
# The throttles' counts (accounts.throttling), each per hour.
SIGNUP_SCOPE = "signup"  # accounts made, per client address
RESET_ADDRESS_SCOPE = "reset-client"  # reset requests, per client address
RESET_EMAIL_SCOPE = "reset-email"  # reset requests, per target e-mail address
BONUS_SCOPE = "bonus"  # daily-bonus claims, per user
# A claim is idempotent, so this only bounds the work a script posting in a loop makes.
BONUS_CLAIMS_PER_HOUR = 20


def _client_address(request: HttpRequest) -> str:
    # Behind the proxy daphne takes it from X-Forwarded-For (docs/deployment.md).
    return str(request.META.get("REMOTE_ADDR", ""))


def limit_page(
    request: HttpRequest, template: str, *, limit: str, retry_after: int, message: str
) -> HttpResponse:
    """The `429` of a page's limit (contract.codes.LIMITS): the page, with `Retry-After`;
    or, to a request asking for JSON (`Accept: application/json`), the JSON refusal with
    the limit's key and the seconds to wait (docs/protocol.md §3)."""
    if "application/json" in request.headers.get("Accept", ""):
        return rate_limited(message, limit, retry_after)
    return retry_later(render(request, template, status=429), retry_after)


def _signup_throttled(request: HttpRequest) -> HttpResponse:
    return limit_page(
        request,
        "registration/signup_throttled.html",
        limit="sign_ups",
        # The hour's window is the clock hour (accounts.throttling): it ends then.
        retry_after=seconds_until(window_end(HOUR)),
        message=_("С вашего адреса за этот час зарегистрировалось слишком много игроков."),
    )


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("lobby")
    address = _client_address(request)
    limit = settings.SIGNUP_LIMIT_PER_HOUR
    # A read, to spare an address already over its limit the form's work; what holds the
    # limit is the atomic count below, taken before the account is made.
    if request.method == "POST" and throttle_count(scope=SIGNUP_SCOPE, subject=address) >= limit:
        return _signup_throttled(request)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        hit = throttle_hit(scope=SIGNUP_SCOPE, subject=address, limit=limit)
        if not hit.allowed:
            return _signup_throttled(request)
        try:
            user = player_register(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
            )
        except IntegrityError:
            # The name was taken between the form's check and the insert: nothing was
            # made, so the attempt does not count.
            throttle_release(hit)
            form.add_error("username", _("Это имя уже занято."))
            return render(request, "registration/signup.html", {"form": form})
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request,
            _("Добро пожаловать! На ваш счёт зачислено %(chips)s фишек.")
            % {"chips": number_format(WELCOME_GRANT_CHIPS, force_grouping=True)},
        )
        return redirect("chips")
    return render(request, "registration/signup.html", {"form": form})


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    """Django's password reset, with reset e-mail limited per client address and per
    target address (each a count per hour, settings.py).

    Both counts are taken for every well-formed request, whether the address has an
    account or not, so the refusal says nothing about which addresses are registered.
    The target's count is taken only when the client is within its own: one client over
    its limit cannot use up someone's resets."""

    form_class = MailLaterPasswordResetForm

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        by_client = throttle_hit(
            scope=RESET_ADDRESS_SCOPE,
            subject=_client_address(self.request),
            limit=settings.PASSWORD_RESET_LIMIT_PER_HOUR,
        )
        refused, limit = by_client, "password_resets"
        if by_client.allowed:
            refused, limit = (
                throttle_hit(
                    scope=RESET_EMAIL_SCOPE,
                    subject=str(form.cleaned_data["email"]).strip().lower(),
                    limit=settings.PASSWORD_RESET_EMAIL_LIMIT_PER_HOUR,
                ),
                "password_reset_emails",
            )
        if not refused.allowed:
            return limit_page(
                self.request,
                "registration/password_reset_throttled.html",
                limit=limit,
                retry_after=refused.retry_after,
                message=_("Слишком много запросов восстановления пароля за этот час."),
            )
        return super().form_valid(form)


def _signed(entry: LedgerEntry, wallet_id: int) -> tuple[int, int]:
    """The entry as the wallet sees it: (+/- amount, wallet balance after)."""
    if entry.destination_id == wallet_id:
        return entry.amount, entry.destination_balance_after
    return -entry.amount, entry.source_balance_after


@login_required
def chips(request: HttpRequest) -> HttpResponse:
    """The player's balance and statement: every entry, newest first."""
    wallet = wallet_for(request.user)
    entries = LedgerEntry.objects.for_account(wallet).select_related("game__table").order_by("-id")
    page = Paginator(entries, STATEMENT_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [(entry, *_signed(entry, wallet.pk)) for entry in page]
    return render(request, "accounts/chips.html", {"wallet": wallet, "page": page, "rows": rows})


@login_required
def chips_entry(request: HttpRequest, pk: int) -> HttpResponse:
    """One statement entry; only its wallet's owner may see it (others get 404)."""
    wallet = wallet_for(request.user)
    entry = get_object_or_404(LedgerEntry.objects.for_account(wallet), pk=pk)
    amount, balance_after = _signed(entry, wallet.pk)
    return render(
        request,
        "accounts/chips_entry.html",
        {"entry": entry, "amount": amount, "balance_after": balance_after},
    )


@login_required
@require_POST
def bonus_claim(request: HttpRequest) -> HttpResponse:
    """The header's «Бонус»: claim the daily bonus, then back to the page it was on, with
    the outcome as a message (the page then shows the new balance)."""
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = reverse("chips")
    hit = throttle_hit(scope=BONUS_SCOPE, subject=str(request.user.pk), limit=BONUS_CLAIMS_PER_HOUR)
    if not hit.allowed:
        text = _("Слишком много попыток. Попробуйте через час.")
        if "application/json" in request.headers.get("Accept", ""):
            return rate_limited(text, "bonus_claims", hit.retry_after)
        messages.error(request, text)
        return redirect(back)
    # A program asks for JSON (`Accept: application/json`): the outcome as a body it can
    # read, its refusal by code (docs/protocol.md "The daily bonus (HTTP)").
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        entry = daily_bonus_claim(user=request.user, time_zone=request.POST.get("time_zone"))
    except BonusRefused as refusal:
        if wants_json:
            return refusal_response(refusal.code, refusal.message, 409)
        messages.error(request, refusal.message)
    else:
        if wants_json:
            return json_answer(
                BonusGranted(amount=entry.amount, balance=entry.destination_balance_after)
            )
        messages.success(
            request,
            ngettext(
                "Ежедневный бонус: +%(chips)s фишка. На счёте %(balance)s.",
                "Ежедневный бонус: +%(chips)s фишек. На счёте %(balance)s.",
                entry.amount,
            )
            % {
                "chips": number_format(entry.amount, force_grouping=True),
                "balance": number_format(entry.destination_balance_after, force_grouping=True),
            },
        )
    return redirect(back)


@require_GET
@never_cache
def chips_balance(request: HttpRequest) -> HttpResponse:
    """The header's chip balance, for pages that refresh it after a game (static/js/site.js).
    Read only: {"balance": null} when not signed in."""
    if not request.user.is_authenticated:
        return json_answer(ChipBalance(balance=None, bonus=False))
    balance = (
        Account.objects.filter(owner=request.user, kind=Account.Kind.PLAYER)
        .values_list("balance", flat=True)
        .first()
    )
    # "bonus": whether the header's «Бонус» shows (a game just lost may have made it so).
    bonus = daily_bonus_claimable(user=request.user, time_zone=request.GET.get("tz"))
    return json_answer(ChipBalance(balance=int(balance or 0), bonus=bonus))


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def access_tokens(request: HttpRequest, bot: int | None = None) -> HttpResponse:
    """The account's personal access tokens — or, with `bot`, those of a bot the account
    owns: make one (its secret shown on this answer only), see them, revoke one
    (docs/protocol.md §2.2.1)."""
    holder = request.user
    if bot is not None:
        found = bots.bot_of(request.user, bot)
        if found is None:
            raise Http404
        holder = found
    form = AccessTokenForm(request.POST or None)
    secret = None
    if request.method == "POST" and form.is_valid():
        try:
            _token, secret = tokens.token_create(
                user=holder,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
                address=_client_address(request),
            )
        except tokens.TokenError:
            form.add_error(
                None,
                _("Не больше %(n)d действующих токенов: отзовите ненужный.")
                % {"n": settings.ACCESS_TOKENS_PER_USER},
            )
        else:
            form = AccessTokenForm()
    listed = AccessToken.objects.filter(user=holder, revoked_at__isnull=True)
    return render(
        request,
        "accounts/tokens.html",
        {"form": form, "secret": secret, "tokens": listed, "bot": holder if bot else None},
        status=201 if secret else 200,
    )


@login_required
@require_POST
def access_token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    # The account's own token, or one of its bots'.
    token = get_object_or_404(
        AccessToken.objects.filter(Q(user=request.user) | Q(user__bot_owner=request.user)),
        pk=pk,
    )
    if tokens.token_revoke(token=token, by=request.user, address=_client_address(request)):
        messages.success(request, _("Токен «%(name)s» отозван.") % {"name": token.name})
    if token.user_id != request.user.pk:
        return redirect("bot_tokens", bot=token.user_id)
    return redirect("access_tokens")


@login_required
def bot_accounts(request: HttpRequest) -> HttpResponse:
    """The bots this person owns, and registering one (accounts.bots)."""
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            bot = bots.bot_create(owner=request.user, username=form.cleaned_data["username"])
        except bots.BotRefused as refusal:
            form.add_error("username" if refusal.code == "name_taken" else None, refusal.message)
        else:
            messages.success(
                request,
                _("Бот «%(name)s» заведён: создайте ему токен.") % {"name": bot.username},
            )
            return redirect("bot_tokens", bot=bot.pk)
    owned = request.user.bots.order_by("username")
    return render(
        request,
        "accounts/bots.html",
        {"form": form, "bots": owned, "limit": settings.BOTS_PER_PLAYER},
    )
