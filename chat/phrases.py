"""Quick phrases and reactions: sent by key, so each viewer reads them in their own
language (docs/protocol.md §17)."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

# Key -> the phrase (translated when a frame is built for a connection).
QUICK_PHRASES: dict[str, Promise] = {
    "good_luck": _("Удачи!"),
    "thanks": _("Спасибо за игру"),
    "again": _("Ещё партию?"),
    "well_played": _("Хорошо сыграно"),
}

# Key -> the emoji (the same in every language).
REACTIONS: dict[str, str] = {
    "thumbs_up": "👍",
    "laugh": "😄",
    "wow": "😮",
    "sad": "😢",
    "clap": "👏",
}


def phrase_text(key: str) -> str:
    """The phrase or reaction `key` in the active language (the key itself if unknown)."""
    if key in QUICK_PHRASES:
        return str(QUICK_PHRASES[key])
    return REACTIONS.get(key, key)


def is_reaction(key: str) -> bool:
    return key in REACTIONS
