"""The chat's word filter: Russian mat and English obscenities, and the words an admin adds
(chat.models.FilterWord), masked in what players are shown; the message as written stays
for moderators (docs/decisions.md, «Table chat»).

A word is matched by its root, not by a list of its forms: Russian builds hundreds of
forms from a handful of roots (за-еб-ать, на-хуй, пизд-ец). Each word of a message is
normalised first — lower case, ё as е, and in a word with Cyrillic letters the Latin
letters that look like Cyrillic ones (a, e, o, p, c, x, y…) read as those — so «хуЙ»,
«xyй» and «ёб» are caught. A whole matched word is masked: its first letter stays, the
rest become asterisks.

Pure: no Django; the admin's words are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Latin letters (and digits) that stand in for Cyrillic ones in a word that is otherwise
# Cyrillic: "xyй", "бл9ть" is out of reach, "пиздa" is not.
_LOOK_ALIKES = str.maketrans(
    {
        "a": "а",
        "b": "в",
        "c": "с",
        "e": "е",
        "h": "н",
        "k": "к",
        "m": "м",
        "o": "о",
        "p": "р",
        "t": "т",
        "x": "х",
        "y": "у",
        "u": "и",
        "3": "з",
        "0": "о",
        "6": "б",
        "ё": "е",
    }
)
_CYRILLIC = re.compile(r"[а-яё]")

# Roots that are obscene wherever they stand in a word (на-хуй, рас-пизд-яй).
_ANYWHERE = ("хуй", "хуя", "хуе", "хуи", "хую", "хул", "пизд", "пезд", "ебан", "ебат", "ебну")
# Words holding one of those by chance.
_INNOCENT = ("страху", "хулига", "хулит")
# Prefixes the verb «ебать» takes.
_PREFIXES = (
    "за|вы|от|у|на|по|под|подъ|раз|разъ|рас|съ|въ|до|об|объ|при|про|пере|недо|долбо|изъ|вз|взъ|еб|ё"
)
_RUSSIAN = re.compile(
    r"^(?:"
    rf"(?:{_PREFIXES})?еб(?:а|у|л|н|и|о|ё|е|ы|ись|ец|ищ|ук)"
    r"|бля|бляд|блят"
    r"|муда|мудак|мудил|мудо[йзх]"
    r"|залуп"
    r"|сук(?:а|и|е|у|ой|ам|ами|ах|ин)?$"
    r"|суч(?:к|ар|ь|ий|ье)"
    r"|пид[оа]р|пидр|педик|педрил"
    r"|г[ао]ндон"
    r"|шлюх"
    r"|дроч"
    r"|манда$|манды$|манде$|мандой$|мандав"
    r")"
)
_ENGLISH = re.compile(
    r"^(?:"
    r".*fuck|.*fuk+(?:ing|er|ed)?$|.*shit|bitch|cunt|asshole|arsehole|bastard|slut|whore"
    r"|dick(?:s|head)?$|cock(?:s|sucker)?$|prick$|pussy$|twat|wank|nigg|fag(?:s|got)?$"
    r"|motherf|bollocks|douche"
    # Russian mat written in Latin letters.
    r"|blya|blyad|blyat|pizd|pezd|huy|hui|xuy|xui|xuj|huj|ebat|yeba|eban|suka$|mudak|pidor"
    r")"
)
_WORD = re.compile(r"[\w@$*]+", re.UNICODE)


def normalise(word: str) -> str:
    """`word` as the filter reads it."""
    lower = word.lower().replace("ё", "е")
    if _CYRILLIC.search(lower):
        return lower.translate(_LOOK_ALIKES)
    return lower


def _obscene(word: str, extra: tuple[str, ...]) -> bool:
    plain = normalise(word)
    if not plain:
        return False
    latin = word.lower()
    if _ENGLISH.match(latin) or _RUSSIAN.match(plain):
        return True
    if any(root in plain for root in _ANYWHERE) and not any(word_ in plain for word_ in _INNOCENT):
        return True
    return any(plain.startswith(root) for root in extra)


def mask(text: str, extra_words: Iterable[str] = ()) -> str:
    """`text` with every obscene word masked (its first letter, then asterisks).
    `extra_words`: the admin's words, each matched as a root (a word beginning with it)."""
    extra = tuple(normalise(word.strip()) for word in extra_words if word.strip())

    def replace(found: re.Match[str]) -> str:
        word = found.group(0)
        if not _obscene(word, extra):
            return word
        return word[0] + "*" * (len(word) - 1)

    return _WORD.sub(replace, text)
