from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayConfig(AppConfig):
    """Live play: games in play, their commands, clocks, presence and the table socket."""

    name = "play"
    verbose_name = _("Игра")
