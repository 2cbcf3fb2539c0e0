import contextlib
import time

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from accounts.forms import SignUpForm
from accounts.models import Account, LedgerEntry
from accounts.services import WELCOME_GRANT_CHIPS, player_register, wallet_for

STATEMENT_PAGE_SIZE = 25


def _signup_key(request: HttpRequest) -> str:
    # The client's address (behind the proxy daphne takes it from X-Forwarded-For), in
    # the hour's window; counted in the cache, which every web process shares on Redis.
    return f"signups:{request.META.get('REMOTE_ADDR', '')}:{int(time.time()) // 3600}"


def _signups_from(request: HttpRequest) -> int:
    return int(cache.get(_signup_key(request), 0))


def _count_signup(request: HttpRequest) -> None:
    key = _signup_key(request)
    cache.add(key, 0, timeout=3600)
    with contextlib.suppress(ValueError):  # the window ended between add and incr
        cache.incr(key)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("lobby")
    if request.method == "POST" and _signups_from(request) >= settings.SIGNUP_LIMIT_PER_HOUR:
        return render(request, "registration/signup_throttled.html", status=429)
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = player_register(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
        )
        _count_signup(request)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request,
            _("Добро пожаловать! На ваш счёт зачислено %(chips)s фишек.")
            % {"chips": number_format(WELCOME_GRANT_CHIPS, force_grouping=True)},
        )
        return redirect("chips")
    return render(request, "registration/signup.html", {"form": form})


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


@require_GET
@never_cache
def chips_balance(request: HttpRequest) -> JsonResponse:
    """The header's chip balance, for pages that refresh it after a game (static/js/site.js).
    Read only: {"balance": null} when not signed in."""
    if not request.user.is_authenticated:
        return JsonResponse({"balance": None})
    balance = (
        Account.objects.filter(owner=request.user, kind=Account.Kind.PLAYER)
        .values_list("balance", flat=True)
        .first()
    )
    return JsonResponse({"balance": int(balance or 0)})
