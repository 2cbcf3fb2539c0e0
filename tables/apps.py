from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    """Tables and seats: what the lobby lists and live play is played at."""

    name = "tables"
    verbose_name = _("Столы")
