from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's). Resolved per
    # request: in production the static name is hashed, and known after collectstatic.
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # The djangojs catalogue as a script file (never inline: the CSP forbids it).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("accounts.urls")),
    path("", include("lobby.urls")),
    path("", include("play.urls")),
    path("", include("history.urls")),
    path("", include("insights.urls")),
]
