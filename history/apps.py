from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HistoryConfig(AppConfig):
    """Hand history: a player's games, their records, replays and the shuffle check."""

    name = "history"
    verbose_name = _("История")
