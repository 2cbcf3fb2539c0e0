from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.i18n import JavaScriptCatalog

from contract.http import WebManifest
from lib.bodies import json_answer


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's). Resolved per
    # request: in production the static name is hashed, and known after collectstatic.
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


# The header's felt and the page's paper (static/css/site.css: --felt, --paper).
THEME_COLOUR = "#0f5132"
BACKGROUND_COLOUR = "#f8f6f1"


def web_manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest, so that a phone can add Twenty-One to its home screen and open
    it full-screen. A view rather than a static file: the icons' names are hashed in
    production, and the name follows the visitor's language. Its scope is the service
    worker's (/sw.js, push.views): the installed app shows the offline page without a
    network."""
    icons = [
        ("img/icon-192.png", "192x192", "image/png", "any"),
        ("img/icon-512.png", "512x512", "image/png", "any"),
        ("img/icon-maskable-512.png", "512x512", "image/png", "maskable"),
        ("img/icon.svg", "any", "image/svg+xml", "any"),
    ]
    manifest = {
        "id": "/",
        "name": _("Двадцать одно"),
        "short_name": _("Двадцать одно"),
        "description": _("Карточная игра «Двадцать одно»: пять вариантов, живые столы."),
        "lang": get_language(),
        "start_url": reverse("lobby"),
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": static(name), "sizes": sizes, "type": kind, "purpose": purpose}
            for name, sizes, kind, purpose in icons
        ],
    }
    response = json_answer(WebManifest(**manifest))
    response["Content-Type"] = "application/manifest+json"
    return response


urlpatterns = [
    path("favicon.ico", favicon),
    path("manifest.webmanifest", web_manifest, name="web_manifest"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # The djangojs catalogue as a script file (never inline: the CSP forbids it).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("accounts.urls")),
    path("", include("lobby.urls")),
    path("", include("play.urls")),
    path("", include("history.urls")),
    path("", include("insights.urls")),
    path("", include("people.urls")),
    path("", include("moderation.urls")),
    path("", include("tournaments.urls")),
    path("", include("push.urls")),
    path("", include("fairplay.urls")),
]
