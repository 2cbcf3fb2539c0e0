from typing import Any

from django.conf import settings
from django.http import HttpRequest


def wallet(request: HttpRequest) -> dict[str, Any]:
    """The signed-in player's chip balance and whether their daily bonus can be claimed,
    for the header of every page."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    def balance() -> int:
        from accounts.models import Account

        value = (
            Account.objects.filter(owner=user, kind=Account.Kind.PLAYER)
            .values_list("balance", flat=True)
            .first()
        )
        return int(value or 0)

    def bonus() -> bool:
        from accounts.bonus import daily_bonus_claimable

        return daily_bonus_claimable(user=user)

    # Callables: the template evaluates each once, and only where it is shown.
    return {
        "chip_balance": balance,
        "bonus_claimable": bonus,
        "bonus_floor": settings.DAILY_BONUS_FLOOR,
    }
