from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from insights.skill import MIN_DECISIONS
from people.profiles import profile_of


@require_GET
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    """Anyone's public profile, for anyone (signed in or not); 404 for an unknown or
    deactivated name."""
    if "\x00" in username:  # PostgreSQL refuses NUL in a query: no such name
        raise Http404("no such player")
    player = get_object_or_404(get_user_model(), username=username, is_active=True)
    return render(
        request,
        "people/profile.html",
        {
            "player": player,
            "profile": profile_of(player, viewer=request.user),
            "min_decisions": MIN_DECISIONS,
        },
    )
