from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChatConfig(AppConfig):
    """Table chat (issue 21): messages over the table socket, the word filter, the
    spectators' messages held from seated players until the deal ends. It reads live play,
    the tables and people (whom a player blocked); moderation builds on it."""

    name = "chat"
    verbose_name = _("Чат")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from chat import receivers
        from chat.extension import ChatExtension
        from chat.models import FilterWord
        from people.signals import blocks_changed
        from play.edge import extensions
        from play.signals import deal_ended

        extensions.register(ChatExtension())
        deal_ended.connect(receivers.release_held_messages, dispatch_uid="chat_release_held")
        blocks_changed.connect(receivers.reread_blocks, dispatch_uid="chat_reread_blocks")
        for signal in (post_save, post_delete):
            signal.connect(
                receivers.filter_words_changed,
                sender=FilterWord,
                dispatch_uid=f"chat_filter_words_{signal is post_save}",
            )
