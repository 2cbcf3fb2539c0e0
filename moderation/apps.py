from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    """Moderation (issue 21): reports, the moderators' queue and their actions (warn,
    mute, ban, dismiss). The top of the social layer: it reads chat and people, and
    vetoes a muted player's message and a banned player's seat through their signals."""

    name = "moderation"
    verbose_name = _("Модерация")

    def ready(self) -> None:
        from chat.signals import message_posting
        from moderation.enforcement import refuse_banned_seat, refuse_muted_message
        from play.signals import seat_requested

        # From any sender: each signal has one meaning, whoever sends it.
        message_posting.connect(refuse_muted_message, dispatch_uid="moderation.muted")
        seat_requested.connect(refuse_banned_seat, dispatch_uid="moderation.banned")
