from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class InsightsConfig(AppConfig):
    """Insights: decision reviews, the coach, statistics, skill ratings and charts."""

    name = "insights"
    verbose_name = _("Разбор и статистика")

    def ready(self) -> None:
        # Live play announces a game's end (play.signals.game_ended) and never imports
        # what follows it; the decision review subscribes here, when the app loads.
        from insights import tasks  # noqa: F401  (connects the receiver)
