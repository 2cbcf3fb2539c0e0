from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LobbyConfig(AppConfig):
    """The lobby: the list of open tables, opening them, its page and socket."""

    name = "lobby"
    verbose_name = _("Лобби")

    def ready(self) -> None:
        # A change to a table is announced (tables.signals.table_changed) by code that
        # does not know the lobby; the lobby's sockets are told of it by this receiver.
        from lobby import broadcast  # noqa: F401  (connects the receiver)
