"""Players' profiles, blocks, friends and invites over HTTP (docs/protocol.md, "Friends,
invites and blocks (HTTP)").

Every POST answers a form (a redirect back to `next`, with the outcome as the page's
message) or JSON (a JSON body or `Accept: application/json`: {"ok": true, "state",
"message"} or {"error": {"code", "message"}} with a 4xx status). Thin: one service each."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import msgspec
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.throttling import throttle_hit
from contract.http import Done, FriendsPanel, Invited, InviteRequest, Named, NextOnly
from contract.reading import Problem, read
from insights.skill import MIN_DECISIONS
from lib.bodies import json_answer, malformed, rate_limited, refusal
from people import friends as svc
from people.blocks import block_add, block_remove, has_blocked
from people.friends import PeopleError
from people.panel import panel
from people.profiles import profile_of
from people.templatetags.people import friends_panel_context
from tables.models import Table

PEOPLE_SCOPE = "people"  # friend requests and invites sent, per user
# Each is a notice to another player: bounded so that no one is flooded by a script.
PEOPLE_POSTS_PER_HOUR = 60
PEOPLE_LIMIT = "friend_requests_and_invites"  # its key (contract.codes.LIMITS)


def _player(username: str) -> Any:
    if "\x00" in username:  # PostgreSQL refuses NUL in a query: no such name
        raise Http404("no such player")
    return get_object_or_404(get_user_model(), username=username, is_active=True)


@require_GET
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    """Anyone's public profile, for anyone (signed in or not); 404 for an unknown or
    deactivated name. A signed-in visitor of another's profile gets its buttons: report,
    block or unblock, and the friend request in the state it is in."""
    player = _player(username)
    viewer = request.user
    social = None
    if viewer.is_authenticated and viewer.pk != player.pk:
        social = {
            "blocked": has_blocked(viewer, player),
            "friend": svc.friend_state(viewer, player),
        }
    return render(
        request,
        "people/profile.html",
        {
            "player": player,
            "profile": profile_of(player, viewer=viewer),
            "min_decisions": MIN_DECISIONS,
            "social": social,
        },
    )


# --- answering forms and JSON ----------------------------------------------------------


def _wants_json(request: HttpRequest) -> bool:
    return request.content_type == "application/json" or "application/json" in request.headers.get(
        "Accept", ""
    )


def _json_body(
    kind: type[Any],
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A JSON post is read as `kind` (contract.http): a body that is not a JSON object is
    `400 bad_json`, a field of the wrong type, missing, unknown, holding a NUL or too long
    `400 bad_message` naming it — rather than read as no fields, or as a name there is
    no player of. A form post is read by the view, as the pages send it."""

    def wrap(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.content_type == "application/json":
                data = _json_object(request)
                if data is None:
                    return refusal("bad_json", _("Тело запроса — не объект JSON."), 400)
                body = read(data, kind)
                if isinstance(body, Problem):
                    return malformed(body)
                request.__dict__["_json_fields"] = {
                    name: value
                    for name, value in msgspec.structs.asdict(body).items()
                    if value is not msgspec.UNSET
                }
            return view(request, *args, **kwargs)

        return checked

    return wrap


def _json_object(request: HttpRequest) -> dict[str, Any] | None:
    """The JSON post's body if it is an object (an empty body: no fields), else None."""
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _fields(request: HttpRequest) -> dict[str, Any]:
    if request.content_type == "application/json":
        fields: dict[str, Any] = request.__dict__["_json_fields"]
        return fields
    return dict(request.POST.items())


def _back(request: HttpRequest, fields: dict[str, Any], default: str) -> str:
    back = str(fields.get("next") or "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = default
    return back


def _refused(
    request: HttpRequest, fields: dict[str, Any], error: PeopleError, back: str
) -> HttpResponse:
    if _wants_json(request):
        if error.limit:
            return rate_limited(error.message, error.limit, error.retry_after)
        return refusal(error.code, error.message, error.status)
    messages.error(request, error.message)
    return redirect(_back(request, fields, back))


def _done(
    request: HttpRequest, fields: dict[str, Any], state: str, message: str, back: str, **extra: Any
) -> HttpResponse:
    if _wants_json(request):
        kind = Invited if state == "invited" else Done
        return json_answer(kind(ok=True, state=state, message=message, **extra))  # type: ignore[arg-type]
    messages.success(request, message)
    return redirect(_back(request, fields, back))


def _named(fields: dict[str, Any]) -> Any:
    name = str(fields.get("name") or "").strip()
    if not name or "\x00" in name:
        raise PeopleError("not_found", _("Игрока с таким именем нет."), status=404)
    user = get_user_model().objects.filter(username=name, is_active=True).first()
    if user is None:
        raise PeopleError("not_found", _("Игрока с таким именем нет."), status=404)
    return user


def _throttled(request: HttpRequest) -> None:
    hit = throttle_hit(
        scope=PEOPLE_SCOPE, subject=str(request.user.pk), limit=PEOPLE_POSTS_PER_HOUR
    )
    if not hit.allowed:
        raise PeopleError(
            "rate_limited",
            _("Слишком много запросов. Попробуйте через час."),
            status=429,
            limit=PEOPLE_LIMIT,
            retry_after=hit.retry_after,
        )


# --- blocks ----------------------------------------------------------------------------


@require_POST
@login_required
@_json_body(NextOnly)
def block(request: HttpRequest, username: str) -> HttpResponse:
    player = _player(username)
    fields = _fields(request)
    back = reverse("people:profile", args=[player.username])
    if player.pk == request.user.pk:
        return _refused(request, fields, PeopleError("self", _("Себя заблокировать нельзя.")), back)
    block_add(blocker=request.user, blocked=player)
    message = _(
        "Игрок %(name)s заблокирован: его сообщения в чате скрыты, и никто из вас не сядет "
        "за частный стол другого."
    ) % {"name": player.username}
    return _done(request, fields, "blocked", message, back)


@require_POST
@login_required
@_json_body(NextOnly)
def unblock(request: HttpRequest, username: str) -> HttpResponse:
    player = _player(username)
    fields = _fields(request)
    block_remove(blocker=request.user, blocked=player)
    message = _("Игрок %(name)s разблокирован.") % {"name": player.username}
    return _done(
        request, fields, "none", message, reverse("people:profile", args=[player.username])
    )


# --- friends ---------------------------------------------------------------------------


@require_GET
@login_required
@never_cache
def friends_page(request: HttpRequest) -> HttpResponse:
    incoming, outgoing = svc.requests_of(request.user)
    return render(
        request,
        "people/friends.html",
        {
            "friends": svc.friends_online(request.user),
            "incoming": incoming,
            "outgoing": outgoing,
            "invites": svc.live_invites(request.user),
        },
    )


@require_GET
@never_cache
def friends_json(request: HttpRequest) -> HttpResponse:
    """The lobby's friends panel: friends (online first, with their public table),
    requests and invites. Polled by the lobby page, which marks its viewer online."""
    if not request.user.is_authenticated:
        return refusal("not_signed_in", _("Войдите, чтобы видеть друзей."), 403)
    svc.mark_online(request.user)
    return json_answer(FriendsPanel(**panel(request.user)))


@require_GET
@never_cache
def friends_panel(request: HttpRequest) -> HttpResponse:
    """The lobby's friends panel as an HTML fragment: the lobby page's script swaps it in
    every PANEL_POLL_SECONDS (static/js/friends.js), which marks the viewer online. 204
    for an anonymous visitor (nothing to show)."""
    if not request.user.is_authenticated:
        return HttpResponse(status=204)
    return render(
        request,
        "people/friends_panel_body.html",
        friends_panel_context(request.user, request),
    )


def _friend_action(
    request: HttpRequest, act: Callable[[Any], tuple[str, str]], *, throttled: bool = False
) -> HttpResponse:
    fields = _fields(request)
    back = reverse("people:friends")
    try:
        if throttled:
            _throttled(request)
        other = _named(fields)
        state, message = act(other)
    except PeopleError as error:
        return _refused(request, fields, error, back)
    return _done(request, fields, state, message, back)


@require_POST
@login_required
@_json_body(Named)
def friend_request(request: HttpRequest) -> HttpResponse:
    def act(other: Any) -> tuple[str, str]:
        state = svc.friend_request_send(sender=request.user, recipient=other)
        if state == "friends":
            return state, _("%(name)s теперь у вас в друзьях.") % {"name": other.username}
        return "outgoing", _("Заявка отправлена игроку %(name)s.") % {"name": other.username}

    return _friend_action(request, act, throttled=True)


@require_POST
@login_required
@_json_body(Named)
def friend_accept(request: HttpRequest) -> HttpResponse:
    def act(other: Any) -> tuple[str, str]:
        svc.friend_request_accept(recipient=request.user, sender=other)
        return "friends", _("%(name)s теперь у вас в друзьях.") % {"name": other.username}

    return _friend_action(request, act)


@require_POST
@login_required
@_json_body(Named)
def friend_decline(request: HttpRequest) -> HttpResponse:
    def act(other: Any) -> tuple[str, str]:
        svc.friend_request_decline(recipient=request.user, sender=other)
        return "none", _("Заявка игрока %(name)s отклонена.") % {"name": other.username}

    return _friend_action(request, act)


@require_POST
@login_required
@_json_body(Named)
def friend_cancel(request: HttpRequest) -> HttpResponse:
    def act(other: Any) -> tuple[str, str]:
        svc.friend_request_cancel(sender=request.user, recipient=other)
        return "none", _("Заявка игроку %(name)s отозвана.") % {"name": other.username}

    return _friend_action(request, act)


@require_POST
@login_required
@_json_body(Named)
def friend_remove(request: HttpRequest) -> HttpResponse:
    def act(other: Any) -> tuple[str, str]:
        svc.friend_remove(user=request.user, friend=other)
        return "none", _("%(name)s больше не в друзьях.") % {"name": other.username}

    return _friend_action(request, act)


# --- invites ---------------------------------------------------------------------------


@require_POST
@login_required
@_json_body(InviteRequest)
def invite_send(request: HttpRequest) -> HttpResponse:
    fields = _fields(request)
    try:
        table_id = int(fields.get("table") or 0)
    except (TypeError, ValueError):
        table_id = 0
    # An integer naming no row: no such table (a database refuses one past 64 bits).
    table = Table.objects.filter(pk=table_id).first() if 0 < table_id < 2**63 else None
    back = reverse("table", args=[table.pk]) if table is not None else reverse("people:friends")
    try:
        if table is None:
            raise PeopleError("not_found", _("Такого стола нет."), status=404)
        _throttled(request)
        friend = _named(fields)
        invite = svc.invite_send(sender=request.user, recipient=friend, table=table)
    except PeopleError as error:
        return _refused(request, fields, error, back)
    message = _("Приглашение отправлено: %(name)s увидит его в лобби.") % {"name": friend.username}
    return _done(request, fields, "invited", message, back, invite=invite.pk)


@require_POST
@login_required
@_json_body(NextOnly)
def invite_dismiss(request: HttpRequest, invite_id: int) -> HttpResponse:
    fields = _fields(request)
    svc.invite_dismiss(recipient=request.user, invite_id=invite_id)
    return _done(request, fields, "dismissed", _("Приглашение скрыто."), reverse("lobby"))
