from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = _("Столы")

    def ready(self) -> None:
        # Live play announces a game's end (tables/signals.py) and never imports what
        # follows it; the subscribers are connected here, when the app loads.
        from tables import tasks  # noqa: F401  (connects the receivers)
