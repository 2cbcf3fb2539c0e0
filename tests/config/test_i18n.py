"""Russian by default, English available; the compiled catalogues (templates and Python,
page scripts) are committed, complete and current."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = [
    ROOT / "locale" / "en" / "LC_MESSAGES" / f"{domain}.po" for domain in ("django", "djangojs")
]
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def _po_entries(po: Path) -> list[dict[str, object]]:
    """(msgid, translations, flags) of each entry of the .po file; enough of the format."""
    entries = []
    for block in po.read_text(encoding="utf-8").split("\n\n"):
        flags = " ".join(line for line in block.splitlines() if line.startswith("#,"))
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            match = re.match(r'^(msgid_plural|msgid|msgstr(?:\[\d\])?) (".*")$', line)
            if match:
                key = match.group(1)
                fields[key] = ast.literal_eval(match.group(2))
            elif line.startswith('"') and key:
                fields[key] += ast.literal_eval(line)
        if fields.get("msgid"):
            entries.append({"fields": fields, "fuzzy": "fuzzy" in flags})
    return entries


@pytest.mark.django_db
def test_pages_are_russian_by_default(client):
    html = client.get(reverse("lobby")).content.decode()
    assert '<html lang="ru">' in html and "Лобби" in html and "Регистрация" in html


@pytest.mark.django_db
def test_language_switcher_turns_the_site_english(client):
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert response.status_code == 302
    html = client.get(reverse("signup")).content.decode()
    assert '<html lang="en">' in html and "Sign up" in html and "Lobby" in html


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda po: po.stem)
def test_every_message_has_an_english_translation(po):
    entries = _po_entries(po)
    assert len(entries) > 100
    untranslated = [
        e["fields"]["msgid"]
        for e in entries
        if e["fuzzy"] or not all(v for k, v in e["fields"].items() if k.startswith("msgstr"))
    ]
    assert untranslated == []


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda po: po.stem)
def test_compiled_catalogue_matches_its_source(po):
    """The committed .mo is what `make messages` would compile from the .po."""
    with po.with_suffix(".mo").open("rb") as f:
        catalogue = gettext.GNUTranslations(f)
    for entry in _po_entries(po):
        fields = entry["fields"]
        if "msgid_plural" in fields:
            assert (
                catalogue.ngettext(fields["msgid"], fields["msgid_plural"], 1)
                == fields["msgstr[0]"]
            )
            assert (
                catalogue.ngettext(fields["msgid"], fields["msgid_plural"], 5)
                == fields["msgstr[1]"]
            )
        else:
            assert catalogue.gettext(fields["msgid"]) == fields["msgstr"], fields["msgid"]


def test_page_scripts_mark_every_russian_string():
    """A Russian string literal in static/js is the argument of t(), gettext(), nt() or
    ngettext(): makemessages extracts only those, so anything else stays Russian in English."""
    string = r'"(?:[^"\\]|\\.)*"'
    marked = re.compile(rf"\b(?:t|gettext|nt|ngettext)\(\s*{string}(?:\s*,\s*{string})?")
    literal = re.compile(rf"{string}|`(?:[^`\\]|\\.)*`|'(?:[^'\\]|\\.)*'")
    unmarked = []
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        source = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), path.read_text())
        for number, line in enumerate(source.splitlines(), 1):
            code = marked.sub("t()", re.sub(r"^\s*//.*$|\s//.*$", "", line))
            unmarked += [
                f"{path.relative_to(ROOT)}:{number}: {match.group(0)}"
                for match in literal.finditer(code)
                if CYRILLIC.search(match.group(0))
            ]
    assert unmarked == []


# A conversion specification as Python's % operator reads one ("%%" is a plain "%").
PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[#0\- +]*(?:\d+|\*)?(?:\.\d+)?[a-zA-Z%]|%")


def _placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text)) - {"%%"}


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda po: po.stem)
def test_every_translation_has_the_placeholders_of_its_source(po):
    """A translation is %-formatted as its source is ({% blocktranslate %} formats even one
    without a variable): a placeholder the source does not have — a lone "%" of «95%»
    reads as one — fails the page in that language only. A plural's forms may leave out
    one the other form has («one decision» needs no count)."""
    wrong = []
    for entry in _po_entries(po):
        fields = entry["fields"]
        source = _placeholders(fields["msgid"]) | _placeholders(fields.get("msgid_plural", ""))
        for key, text in fields.items():
            if not key.startswith("msgstr"):
                continue
            found = _placeholders(text)
            if found - source or ("msgid_plural" not in fields and found != source):
                wrong.append((fields["msgid"][:60], key, sorted(found ^ source)))
    assert wrong == []


def test_the_english_for_leaving_a_seat_is_not_the_word_of_the_move_stand():
    """«Хватит» is “Stand” (the glossary): «Встать из-за стола», beside it on the table
    page, must not read as another form of the move."""
    po = CATALOGUES[1]
    with po.with_suffix(".mo").open("rb") as f:
        catalogue = gettext.GNUTranslations(f)
    assert catalogue.gettext("Хватит") == "Stand"
    assert catalogue.gettext("Встать из-за стола") == "Leave seat"
    seat_words = re.compile(r"\bвста(?:ть|ёт|ёте|ли|ньте)\b", re.I)
    standing = [
        (e["fields"]["msgid"], e["fields"]["msgstr"])
        for each in CATALOGUES
        for e in _po_entries(each)
        if seat_words.search(e["fields"]["msgid"]) and "msgstr" in e["fields"]
    ]
    assert len(standing) >= 6
    assert [pair for pair in standing if re.search(r"\bstand", pair[1], re.I)] == []
