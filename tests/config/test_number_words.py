"""Numbers and plural forms on the server, one way in every page (issue 20): the `number`
and `signed` template filters (accounts/templatetags/numbers.py) and ngettext with the
project's catalogues, for 0, 1, 2, 5, 11, 21 and 10 000 in Russian and in English."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation

from accounts.templatetags.numbers import number, signed

COUNTS = [0, 1, 2, 5, 11, 21, 10000]
NBSP = "\u00a0"
MINUS = "\u2212"


@pytest.mark.parametrize(
    ("language", "numbers", "deltas"),
    [
        (
            "ru",
            ["0", "1", "2", "5", "11", "21", f"10{NBSP}000"],
            ["0", "+1", "+2", "+5", "+11", "+21", f"+10{NBSP}000"],
        ),
        (
            "en",
            ["0", "1", "2", "5", "11", "21", "10,000"],
            ["0", "+1", "+2", "+5", "+11", "+21", "+10,000"],
        ),
    ],
)
def test_the_number_filters_group_thousands_by_the_language_and_sign_a_change(
    language: str, numbers: list[str], deltas: list[str]
) -> None:
    with translation.override(language):
        assert [number(n) for n in COUNTS] == numbers
        assert [signed(n) for n in COUNTS] == deltas
        assert [signed(-n) for n in COUNTS] == [d.replace("+", MINUS) for d in deltas]
        assert number(-10000) == MINUS + numbers[-1]
        rendered = Template("{% load numbers %}{{ a|number }} {{ b|signed }}").render(
            Context({"a": 10000, "b": -50})
        )
        assert rendered == f"{numbers[-1]} {MINUS}50"


def test_the_number_filter_keeps_what_is_not_a_number() -> None:
    assert number(None) == ""
    assert number("—") == "—"


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "ru",
            [
                "партия из 0 раздач",
                "партия из 1 раздачи",
                "партия из 2 раздач",
                "партия из 5 раздач",
                "партия из 11 раздач",
                "партия из 21 раздачи",
                "партия из 10000 раздач",
            ],
        ),
        (
            "en",
            [
                "a match of 0 rounds",
                "a match of 1 round",
                "a match of 2 rounds",
                "a match of 5 rounds",
                "a match of 11 rounds",
                "a match of 21 rounds",
                "a match of 10000 rounds",
            ],
        ),
    ],
)
def test_ngettext_gives_each_language_its_own_plural_forms(
    language: str, expected: list[str]
) -> None:
    # Russian has three forms (1, 21 · 2–4 · 0, 5–20): the Russian catalogue gives them,
    # where Django alone would fall back to the two-form rule («из 21 раздач»).
    with translation.override(language):
        got = [
            translation.ngettext("партия из %(n)s раздачи", "партия из %(n)s раздач", n) % {"n": n}
            for n in COUNTS
        ]
    assert got == expected


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("ru", ["фишек", "фишки", "фишек", "фишек", "фишек", "фишки", "фишек"]),
        ("en", ["chips", "chip", "chips", "chips", "chips", "chips", "chips"]),
    ],
)
def test_the_entry_limit_refusal_agrees_with_the_limit(language: str, words: list[str]) -> None:
    with translation.override(language):
        got = [
            translation.ngettext(
                "Нужно не меньше %(limit)s фишки, у вас %(balance)s.",
                "Нужно не меньше %(limit)s фишек, у вас %(balance)s.",
                n,
            )
            % {"limit": number(n), "balance": 0}
            for n in COUNTS
        ]
    assert [line.split(" ")[4 if language == "ru" else 5].rstrip(";,") for line in got] == words


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ru", ["на очки, партия из 1 раздачи", "на очки, партия из 7 раздач"]),
        ("en", ["for points, a match of 1 round", "for points, a match of 7 rounds"]),
    ],
)
def test_a_classic_tables_stakes_label_agrees_with_its_match_length(
    language: str, expected: list[str]
) -> None:
    from tables.models import Table

    with translation.override(language):
        assert [Table(variant="classic", match_length=n).stakes_label() for n in (1, 7)] == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ru", ["по 51 решению", "по 52 решениям", "по 55 решениям", "по 1\u00a0021 решению"]),
        (
            "en",
            ["over 51 decisions", "over 52 decisions", "over 55 decisions", "over 1,021 decisions"],
        ),
    ],
)
def test_the_skill_ratings_decision_count_agrees_with_its_number(
    language: str, expected: list[str]
) -> None:
    """The statistics page's rating line («… по 51 решению …»): its own template, rendered."""
    from pathlib import Path

    from django.conf import settings

    source = (Path(settings.BASE_DIR) / "templates/insights/stats.html").read_text()
    start = source.index("{% blocktranslate with rating=")
    line = source[start : source.index("{% endblocktranslate %}", start) + 23]
    template = Template("{% load i18n %}" + line)
    got = []
    with translation.override(language):
        for count in (51, 52, 55, 1021):
            figures = {"rating": "1", "margin": "1", "low": "0", "high": "2"}
            skill = {**figures, "decisions": number(count), "count": count}
            got.append(template.render(Context({"s": {"skill_text": skill, "unit": "u"}})))
    for text, want in zip(got, expected, strict=True):
        assert want in text, text


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ru", ["ставка 10\u00a0000", "ставки 1\u00a0000–10\u00a0000"]),
        ("en", ["stake 10,000", "bets 1,000–10,000"]),
    ],
)
def test_a_tables_stakes_are_grouped_as_every_number(language: str, expected: list[str]) -> None:
    from tables.models import Table

    with translation.override(language):
        assert [
            Table(variant="banker36", stake=10000).stakes_label(),
            Table(variant="salon", min_bet=1000, max_bet=10000).stakes_label(),
        ] == expected
