from typing import Any

from django.http import HttpRequest


def wallet(request: HttpRequest) -> dict[str, Any]:
    """The signed-in player's chip balance, for the header of every page."""
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

    # A callable: the template evaluates it once, and only where it is shown.
    return {"chip_balance": balance}
