"""Web Push's endpoints (docs/protocol.md, «Web Push (HTTP)»): the subscriptions, the
service worker at the site's root and the offline page it keeps."""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import get_template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from contract.http import (
    PushSubscribed,
    PushSubscriptionBody,
    PushUnsubscribeBody,
    PushUnsubscribed,
)
from contract.reading import Problem, read
from lib.bodies import json_answer, malformed, refusal
from push.services import push_enabled, subscription_delete, subscription_save

# Loopback hosts: the only ones an http (not https) endpoint may name, and only while the
# site itself is served over plain http (development: a local test push service).
_LOOPBACK = ("http://127.0.0.1:", "http://localhost:", "http://127.0.0.1/", "http://localhost/")


@require_http_methods(["POST", "DELETE"])
def subscriptions(request: HttpRequest) -> HttpResponse:
    if not push_enabled():
        return refusal("push_off", _("Уведомления на этом сайте выключены."), 404)
    if not request.user.is_authenticated:
        return refusal("not_signed_in", _("Войдите, чтобы получать уведомления."), 401)
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return refusal("bad_json", _("Тело запроса — не JSON."), 400)
    if not isinstance(data, dict):
        return refusal("bad_message", _("Ожидался объект JSON."), 400)
    if request.method == "DELETE":
        gone = read(data, PushUnsubscribeBody)
        if isinstance(gone, Problem):
            return malformed(gone)
        deleted = subscription_delete(user=request.user, endpoint=gone.endpoint)
        return json_answer(PushUnsubscribed(deleted=deleted))
    body = read(data, PushSubscriptionBody)
    if isinstance(body, Problem):
        return malformed(body)
    if body.endpoint.startswith("http://") and not (
        not request.is_secure() and body.endpoint.startswith(_LOOPBACK)
    ):
        return refusal(
            "bad_message",
            _("Адрес службы уведомлений должен начинаться с https://."),
            400,
            "endpoint",
        )
    subscription, created = subscription_save(
        user=request.user,
        endpoint=body.endpoint,
        p256dh=body.keys.p256dh,
        auth=body.keys.auth,
        language=get_language() or settings.LANGUAGE_CODE,
        user_agent=browser_label(request.headers.get("User-Agent", "")),
    )
    return json_answer(
        PushSubscribed(subscription=subscription.pk, created=created), 201 if created else 200
    )


def browser_label(user_agent: str) -> str:
    """«Firefox · Android»: enough to tell a player's browsers apart, and no more of the
    User-Agent than that is kept."""
    browsers = ("Edg", "OPR", "Firefox", "Chrome", "Safari")
    systems = ("Android", "iPhone", "iPad", "Windows", "Mac OS", "Linux")
    browser = next((b for b in browsers if b in user_agent), "")
    system = next((s for s in systems if s in user_agent), "")
    names = {"Edg": "Edge", "OPR": "Opera", "Mac OS": "macOS"}
    return " · ".join(names.get(part, part) for part in (browser, system) if part)


def precached() -> list[str]:
    """What the service worker keeps on install: the offline page and what it shows."""
    return [
        reverse("offline"),
        static("css/site.css"),
        static("img/icon.svg"),
        static("img/favicon.svg"),
    ]


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """`/sw.js`, at the root so that its scope is the whole site. Its cache's name changes
    with what it precaches (static names are hashed in production), so a deploy that
    changes them replaces the cache."""
    files = precached()
    version = hashlib.sha256(
        json.dumps([files, get_template("push/sw.js").template.source]).encode()
    ).hexdigest()[:12]
    script = get_template("push/sw.js").render(
        {
            "precached": json.dumps(files),
            "offline": json.dumps(reverse("offline")),
            "version": version,
        }
    )
    response = HttpResponse(script, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    # Browsers look for a new worker at most daily anyway; never from a stale copy.
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """The page the service worker shows when a page cannot be reached. Rendered without
    the request's context (no session, no wallet, no database): it must be answerable when
    little else is, and it is kept by the browser for when nothing is."""
    page = get_template("push/offline.html").render(
        {"LANGUAGE_CODE": get_language(), "css": static("css/site.css")}
    )
    return HttpResponse(page)
