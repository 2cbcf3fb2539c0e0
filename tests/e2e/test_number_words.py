"""The page's one number format and plural rule (static/js/table/dom.js), in a real browser.

formatNumber/formatSigned follow the page's language (Intl.NumberFormat, a true minus) and
plural() picks Russian's three forms by Intl.PluralRules, since there is no Russian catalogue
for Django's ngettext to use (msgids are Russian) and it would fall back to two forms.
"""

from __future__ import annotations

from typing import Any

import pytest

NBSP = "\u00a0"
MINUS = "\u2212"

HELPERS = """async (lang) => {
  document.documentElement.lang = lang;
  const dom = await import('/static/js/table/dom.js');
  const counts = [0, 1, 2, 5, 11, 21, 10000];
  const forms = lang === 'ru'
    ? {one: 'карта', few: 'карты', many: 'карт', other: 'карты'}
    : {one: 'card', other: 'cards'};
  return {
    numbers: counts.map((n) => dom.formatNumber(n)),
    signed: [25, -50, 0, 10000, -10000].map((n) => dom.formatSigned(n)),
    alias: dom.signed(-50),
    plurals: counts.map((n) => dom.plural(n, forms)),
  };
}"""


@pytest.mark.parametrize(
    ("lang", "numbers", "signed", "plurals"),
    [
        (
            "ru",
            ["0", "1", "2", "5", "11", "21", f"10{NBSP}000"],
            ["+25", f"{MINUS}50", "0", f"+10{NBSP}000", f"{MINUS}10{NBSP}000"],
            ["карт", "карта", "карты", "карт", "карт", "карта", "карт"],
        ),
        (
            "en",
            ["0", "1", "2", "5", "11", "21", "10,000"],
            ["+25", f"{MINUS}50", "0", "+10,000", f"{MINUS}10,000"],
            ["cards", "card", "cards", "cards", "cards", "cards", "cards"],
        ),
    ],
)
def test_page_formats_numbers_and_picks_plural_forms_by_its_language(
    page: Any,
    daphne_server: Any,
    lang: str,
    numbers: list[str],
    signed: list[str],
    plurals: list[str],
) -> None:
    page.goto(f"{daphne_server.url}/")
    got = page.evaluate(HELPERS, lang)
    # Chromium's ru group separator may be a narrow or a plain no-break space.
    assert [n.replace("\u202f", NBSP) for n in got["numbers"]] == numbers
    assert [n.replace("\u202f", NBSP) for n in got["signed"]] == signed
    assert got["alias"] == f"{MINUS}50"
    assert got["plurals"] == plurals
