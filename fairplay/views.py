from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def privacy(request: HttpRequest) -> HttpResponse:
    """The privacy note: what the site keeps about a player, for how long, who sees it
    (docs/decisions.md "Fair play"). Figures from the settings, so it cannot drift."""
    return render(
        request,
        "fairplay/privacy.html",
        {
            "trace_days": settings.FAIRPLAY_TRACE_RETENTION_DAYS,
            "chat_days": settings.CHAT_RETENTION_DAYS,
        },
    )
