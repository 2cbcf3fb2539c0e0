"""The table chat on the table page (templates/play/table.html): its toggle in the
table's header and its panel, with the quick phrases and reactions in the page's
language (static/js/table/chat.js)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext_lazy as _

from chat.models import MAX_LENGTH
from chat.phrases import QUICK_PHRASES, REACTIONS

register = template.Library()

# What each reaction is called, for a screen reader.
REACTION_NAMES = {
    "thumbs_up": _("Класс"),
    "laugh": _("Смешно"),
    "wow": _("Ого"),
    "sad": _("Жаль"),
    "clap": _("Браво"),
}


@register.inclusion_tag("chat/toggle.html")
def table_chat_toggle() -> dict[str, Any]:
    return {}


@register.inclusion_tag("chat/panel.html", takes_context=True)
def table_chat_panel(context: template.Context) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    signed_in = bool(user is not None and user.is_authenticated)
    return {
        "signed_in": signed_in,
        "me": user.get_username() if signed_in else "",
        "max_length": MAX_LENGTH,
        "phrases": [(key, str(text)) for key, text in QUICK_PHRASES.items()],
        "reactions": [(key, emoji, str(REACTION_NAMES[key])) for key, emoji in REACTIONS.items()],
    }
