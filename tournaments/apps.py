from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    """Tournaments (issue 31): events admins schedule, players register for with a buy-in
    held in the event's escrow (or for free), and prizes paid by place from one ledger. It
    reads the accounts and the tables; live play knows nothing of it."""

    name = "tournaments"
    verbose_name = _("Турниры")

    def ready(self) -> None:
        from play.signals import deal_ended, game_ended
        from tournaments import receivers

        game_ended.connect(receivers.heat_game_ended, dispatch_uid="tournaments_heat_ended")
        deal_ended.connect(receivers.table_deal_ended, dispatch_uid="tournaments_deal_ended")
