from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    """Fair play (issue 32): the traces that link accounts (sign-in addresses and a
    device cookie, hashed), keeping strongly linked accounts apart at player-bank tables,
    and free chips only for accounts that have played. Above tournaments: it reads
    accounts, live play and the insights, and vetoes through their signals
    (`play.signals.seat_requested`, `accounts.signals.free_chips_requested`); nothing
    below imports it."""

    name = "fairplay"
    verbose_name = _("Честная игра")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from accounts.signals import free_chips_requested
        from fairplay.enforcement import (
            refuse_free_chips_to_new_accounts,
            refuse_linked_entry,
            refuse_linked_seat,
        )
        from fairplay.traces import record_sign_in
        from play.signals import seat_requested
        from tournaments.signals import entry_requested

        user_logged_in.connect(record_sign_in, dispatch_uid="fairplay.sign_in")
        seat_requested.connect(refuse_linked_seat, dispatch_uid="fairplay.linked_seat")
        entry_requested.connect(refuse_linked_entry, dispatch_uid="fairplay.linked_entry")
        free_chips_requested.connect(
            refuse_free_chips_to_new_accounts, dispatch_uid="fairplay.free_chips"
        )
