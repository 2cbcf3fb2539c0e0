from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    """Moderation (issue 21): reports, the moderators' queue and their actions (warn,
    mute, ban, dismiss). The top of the social layer: it reads chat and people, and
    vetoes a muted player's message and a banned player's seat through their signals."""

    name = "moderation"
    verbose_name = _("Модерация")
