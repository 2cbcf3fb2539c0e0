from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PeopleConfig(AppConfig):
    """The social layer: players' public profiles, blocks, friends and invites (issue
    21). It reads live play, the insights and the ledger; nothing below it imports it."""

    name = "people"
    verbose_name = _("Игроки")

    def ready(self) -> None:
        from people.receivers import refuse_seat_across_a_block
        from play.signals import seat_requested

        seat_requested.connect(refuse_seat_across_a_block, dispatch_uid="people-block-seat")
