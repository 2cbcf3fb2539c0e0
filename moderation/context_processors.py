from typing import Any

from django.http import HttpRequest

# At most this many notices at once on a page (the newest); the rest show once these are read.
NOTICES_SHOWN = 3


def notices(request: HttpRequest) -> dict[str, Any]:
    """For every page of a signed-in player: the notices of moderators' decisions about
    them not yet read (templates/moderation/notices.html, included by base.html), and the
    mutes and bans in force now (their chips page shows those)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def unread() -> list[Any]:
        from moderation.models import Sanction

        return list(
            Sanction.objects.filter(
                player=user, acknowledged_at__isnull=True, kind__in=Sanction.NOTIFIED
            ).order_by("-created_at", "-id")[:NOTICES_SHOWN]
        )

    def in_force() -> list[Any]:
        from moderation.models import Sanction

        return list(Sanction.objects.in_force().filter(player=user).order_by("ends_at"))

    # Callables: the template evaluates each once, and only where it is used.
    return {"moderation_notices": unread, "moderation_in_force": in_force}
