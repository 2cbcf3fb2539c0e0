from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PeopleConfig(AppConfig):
    """The social layer: players' public profiles (issue 21). It reads live play, the
    insights and the ledger; nothing below it imports it."""

    name = "people"
    verbose_name = _("Игроки")
