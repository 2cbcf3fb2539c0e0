"""Russian by default, English available; the compiled catalogue is committed and current."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")


def _po_entries() -> list[dict[str, object]]:
    """(msgid, translations, flags) of each entry of the .po file; enough of the format."""
    entries = []
    for block in PO.read_text(encoding="utf-8").split("\n\n"):
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


def test_every_message_has_an_english_translation():
    entries = _po_entries()
    assert len(entries) > 100
    untranslated = [
        e["fields"]["msgid"]
        for e in entries
        if e["fuzzy"] or not all(v for k, v in e["fields"].items() if k.startswith("msgstr"))
    ]
    assert untranslated == []


def test_compiled_catalogue_matches_its_source():
    """The committed .mo is what `make messages` would compile from the .po."""
    with MO.open("rb") as f:
        catalogue = gettext.GNUTranslations(f)
    for entry in _po_entries():
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
