from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    """Table chat (issue 21): messages over the table socket, the word filter, the
    spectators' messages held from seated players until the deal ends. It reads live play,
    the tables and people (whom a player blocked); moderation builds on it."""

    name = "chat"
    verbose_name = _("Чат")
