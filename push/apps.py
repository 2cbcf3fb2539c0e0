from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PushConfig(AppConfig):
    """Web Push (issue 31): notifications that reach a closed tab — a tournament about to
    start, an entrant's table ready, «Ваш ход» to a player not looking at their table — and
    the service worker with the offline page. It listens to live play's and the
    tournaments' signals and adds the table page's `visibility` message to the table
    socket (play.edge.extensions); nothing imports it."""

    name = "push"
    verbose_name = _("Уведомления")

    def ready(self) -> None:
        from play.edge import extensions
        from play.signals import decision_started
        from push import receivers
        from push.extension import VisibilityExtension
        from tournaments.signals import table_ready

        extensions.register(VisibilityExtension())
        decision_started.connect(receivers.turn_started, dispatch_uid="push_turn_started")
        table_ready.connect(receivers.table_ready, dispatch_uid="push_table_ready")
