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


RESULTS = """async () => {
  const text = await import('/static/js/table/text.js');
  const table = {seats: [{id: 'u1', name: 'anna', number: 1}, {id: 'ai:2', ai: 'easy', number: 2}]};
  const line = (event) => text.describeEvent(event, table, 'u1');
  return {
    won: text.yourResult('win', 25, 'coins', 'banker_bust'),
    lost: text.yourResult('loss', -50, null, null),
    lostOne: text.yourResult('loss', -1, 'chips', 'bust'),
    push: text.yourResult('push', 0, 'points', null),
    settle: line({type: 'settle', seat: 'u1', outcome: 'win', delta: 21, reason: 'higher'}),
    other: line({type: 'settle', seat: 'ai:2', outcome: 'loss', delta: -5}),
    hit: line({type: 'hit', seat: 'u1'}),
    sat: line({type: 'sat_down', seat: 'u1'}),
    hands: text.yourHandResult(
      [{seat: 'u1', outcome: 'win', delta: 100, total: 19}, {seat: 'dealer', total: 23}],
      'u1', 'points'),
    count: text.countText(10000, 'chips'),
    golden: text.totalText(21, ['AS', 'AH']),
    bust: text.totalText(23, ['TS', 'KH', '9C']),
    bustReason: text.reasonHeadline('bust'),
  };
}"""


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        (
            "ru-RU",
            {
                "won": "Вы выиграли +25 монет — перебор у банкира",
                "lost": f"Вы проиграли {MINUS}50",
                "lostOne": f"Вы проиграли {MINUS}1 фишка — перебор",
                "push": "Ничья",
                "settle": "Вы выиграли +21 — больше очков",
                "other": f"ИИ 2: проигрыш {MINUS}5",
                "hit": "Вы: ещё карту",
                "sat": "Вы садитесь за стол",
                "hands": "Вы выиграли +100 очков — перебор у дилера",
                "count": f"10{NBSP}000 фишек",
                "golden": "Золотое очко!",
                "bust": "23, перебор",
                "bustReason": "Перебор",
            },
        ),
        (
            "en-US",
            {
                "won": "You won +25 coins — banker busts",
                "lost": f"You lost {MINUS}50",
                "lostOne": f"You lost {MINUS}1 chip — bust",
                "push": "Push",
                "settle": "You won +21 — higher total",
                "other": f"AI 2: loss {MINUS}5",
                "hit": "You: hit",
                "sat": "You sit down at the table",
                "hands": "You won +100 points — dealer busts",
                "count": "10,000 chips",
                "golden": "Golden point!",
                "bust": "23, bust",
                "bustReason": "Bust",
            },
        ),
    ],
)
def test_the_viewers_own_results_read_in_the_second_person_with_the_amount(
    browser: Any, daphne_server: Any, locale: str, expected: dict[str, str]
) -> None:
    context = browser.new_context(base_url=daphne_server.url, locale=locale)
    try:
        page = context.new_page()
        page.goto("/")
        got = page.evaluate(RESULTS)
        assert {key: value.replace("\u202f", NBSP) for key, value in got.items()} == expected
    finally:
        context.close()


def test_server_rendered_times_are_shown_in_the_browsers_time_zone(
    browser: Any, daphne_server: Any, transactional_db: None
) -> None:
    from tests.e2e.table_helpers import log_in, make_player

    make_player("vremya")  # the welcome chips are the first entry of the chips page
    context = browser.new_context(
        base_url=daphne_server.url, locale="ru-RU", timezone_id="Asia/Vladivostok"
    )
    try:
        page = context.new_page()
        log_in(page, "vremya")
        page.goto("/chips/")
        stamp = page.locator("time[data-local]").first
        stamp.wait_for()
        page.wait_for_function(
            """() => {
              const el = document.querySelector('time[data-local]');
              const want = new Intl.DateTimeFormat('ru', {dateStyle: 'short', timeStyle: 'short',
                timeZone: 'Asia/Vladivostok'}).format(new Date(el.getAttribute('datetime')));
              return el.textContent === want;
            }"""
        )
    finally:
        context.close()


COUNTED = """async () => {
  const dom = await import('/static/js/table/dom.js');
  const text = await import('/static/js/table/text.js');
  const t = window.gettext;
  const counts = [0, 1, 2, 5, 11, 21, 10000];
  return {
    cards: counts.map((n) => text.countText(n, 'cards')),
    cut: counts.map((n) => text.countText(n, 'cards_acc')),
    chips: counts.map((n) => text.countText(n, 'chips')),
    need: counts.map((n) => dom.pluralText(n,
      t('Нужно не меньше %(limit)s фишки, у вас %(balance)s.'),
      t('Нужно не меньше %(limit)s фишек, у вас %(balance)s.'),
      {limit: dom.formatNumber(n), balance: 0})),
    match: counts.map((n) => text.stakesText({variant: 'classic', options: {rounds: n}})),
    logged: text.describeEvent({type: 'bank_open', banker: 'ai:2', bank: 10000},
      {seats: [{id: 'ai:2', ai: 'easy', number: 2}]}, null),
  };
}"""


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        (
            "ru-RU",
            {
                "cards": ["0 карт", "1 карта", "2 карты", "5 карт", "11 карт", "21 карта"],
                "cut": ["0 карт", "1 карту", "2 карты", "5 карт", "11 карт", "21 карту"],
                "chips": ["0 фишек", "1 фишка", "2 фишки", "5 фишек", "11 фишек", "21 фишка"],
                "need": [
                    f"Нужно не меньше {n} {word}, у вас 0."
                    for n, word in [
                        ("0", "фишек"),
                        ("1", "фишки"),
                        ("2", "фишек"),
                        ("5", "фишек"),
                        ("11", "фишек"),
                        ("21", "фишки"),
                    ]
                ],
                "match": [
                    f"на очки, партия из {n} {word}"
                    for n, word in [
                        ("0", "раздач"),
                        ("1", "раздачи"),
                        ("2", "раздач"),
                        ("5", "раздач"),
                        ("11", "раздач"),
                        ("21", "раздачи"),
                    ]
                ],
            },
        ),
        (
            "en-US",
            {
                "cards": ["0 cards", "1 card", "2 cards", "5 cards", "11 cards", "21 cards"],
                "cut": ["0 cards", "1 card", "2 cards", "5 cards", "11 cards", "21 cards"],
                "chips": ["0 chips", "1 chip", "2 chips", "5 chips", "11 chips", "21 chips"],
                "need": [
                    f"You need at least {n} {word}; you have 0."
                    for n, word in [
                        ("0", "chips"),
                        ("1", "chip"),
                        ("2", "chips"),
                        ("5", "chips"),
                        ("11", "chips"),
                        ("21", "chips"),
                    ]
                ],
                "match": [
                    f"for points, a match of {n} {word}"
                    for n, word in [
                        ("0", "rounds"),
                        ("1", "round"),
                        ("2", "rounds"),
                        ("5", "rounds"),
                        ("11", "rounds"),
                        ("21", "rounds"),
                    ]
                ],
            },
        ),
    ],
)
def test_counted_nouns_in_the_page_agree_with_their_number(
    browser: Any, daphne_server: Any, locale: str, expected: dict[str, list[str]]
) -> None:
    """Cards, a cut's cards, chips, the entry limit's refusal and a match's length, for 0,
    1, 2, 5, 11, 21 and 10 000: each noun in the form its number asks for."""
    ten_thousand = {"ru-RU": f"10{NBSP}000", "en-US": "10,000"}[locale]
    cards = {"ru-RU": "карт", "en-US": "cards"}[locale]  # 10 000 takes the «many» form
    context = browser.new_context(base_url=daphne_server.url, locale=locale)
    try:
        page = context.new_page()
        page.goto("/")
        got = page.evaluate(COUNTED)
        logged = got.pop("logged").replace("\u202f", NBSP)
        assert logged.endswith(f": {ten_thousand}"), logged  # a log line's bank, grouped
        got = {k: [v.replace("\u202f", NBSP) for v in values] for k, values in got.items()}
        for key, values in expected.items():
            assert got[key][:6] == values, key
            assert ten_thousand in got[key][6], key
        assert got["cards"][6] == f"{ten_thousand} {cards}"
    finally:
        context.close()


def test_every_page_localises_times_signed_in_or_not_and_inside_a_charts_tooltip(
    browser: Any, daphne_server: Any
) -> None:
    """static/js/times.js is loaded by every page (base.html), not only by signed-in ones:
    a server-rendered <time> and a time inside a text (a chart point's tooltip, marked
    data-when) read in the browser's zone."""
    context = browser.new_context(
        base_url=daphne_server.url, locale="ru-RU", timezone_id="Asia/Vladivostok"
    )
    try:
        page = context.new_page()
        page.goto("/rules/")  # an anonymous visitor: no site.js
        assert page.locator('script[src*="/js/site"]').count() == 0
        assert page.locator('script[src*="/js/times"]').count() == 1
        got = page.evaluate(
            """async () => {
              const iso = '2026-03-01T12:00:00+00:00';
              const box = document.createElement('div');
              box.innerHTML = `<time datetime="${iso}" data-local="short">1 марта 12:00</time>`
                + `<svg><title data-when="${iso}" data-when-text="01.03.2026 12:00">`
                + `Стол, игра №3 (01.03.2026 12:00): +5, итого +5</title></svg>`;
              document.body.append(box);
              const times = await import('/static/js/times.js');
              times.localiseTimes(box);
              const local = new Intl.DateTimeFormat('ru', {dateStyle: 'short', timeStyle: 'short',
                timeZone: 'Asia/Vladivostok'}).format(new Date(iso));
              return {local, time: box.querySelector('time').textContent,
                      note: box.querySelector('title').textContent};
            }"""
        )
        assert got["time"] == got["local"]
        assert got["note"] == f"Стол, игра №3 ({got['local']}): +5, итого +5"
        assert "22:00" in got["local"]  # Vladivostok is UTC+10
    finally:
        context.close()


SALON_LINES = """async () => {
  const salon = await import('/static/js/table/variants/salon.js');
  const state = {table: {seats: [{id: 'u1', name: 'anna', number: 1},
                                 {id: 'u2', name: 'boris', number: 2}]},
                 you: {seat: 'u1'}};
  const line = (event) => salon.describe(event, state);
  return [
    line({type: 'lot', seat: 'u1'}),
    line({type: 'cut', seat: 'u1', position: 52}),
    line({type: 'cut', seat: 'u2', position: 21}),
    line({type: 'round_start', deal: 3, banker: 'u1'}),
    line({type: 'shuffle', banker: 'u2'}),
  ];
}"""


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        (
            "ru-RU",
            [
                "Жребий: банк держите вы",
                "Вы снимаете колоду: 52 карты вниз",
                "boris снимает колоду: 21 карту вниз",
                "Раздача 3, банкомёт — вы",
                "Талия перетасована, банкомёт — boris",
            ],
        ),
        (
            "en-US",
            [
                "By lot: you hold the bank",
                "You cut: 52 cards to the bottom",
                "boris cuts: 21 cards to the bottom",
                "Round 3, you are the banker",
                "Shoe shuffled, the banker is boris",
            ],
        ),
    ],
)
def test_salons_log_tells_the_viewers_own_moves_in_the_second_person(
    browser: Any, daphne_server: Any, locale: str, expected: list[str]
) -> None:
    context = browser.new_context(base_url=daphne_server.url, locale=locale)
    try:
        page = context.new_page()
        page.goto("/")
        assert page.evaluate(SALON_LINES) == expected
    finally:
        context.close()


OWN_LINES = """async () => {
  const banker36 = await import('/static/js/table/variants/banker36.js');
  const classic = await import('/static/js/table/variants/classic.js');
  const state = {table: {seats: [{id: 'u1', name: 'anna', number: 1},
                                 {id: 'u2', name: 'boris', number: 2}]},
                 you: {seat: 'u1'}, game: null};
  return [
    banker36.describe({type: 'bank_open', banker: 'u1', bank: 10000}, state),
    banker36.describe({type: 'stuk', banker: 'u1', bank: 30}, state),
    banker36.describe({type: 'sit_out', seat: 'u1', reason: 'cannot_afford'}, state),
    banker36.describe({type: 'bank_broken', banker: 'u1'}, state),
    classic.describe({type: 'round_start', round: 2, order: ['u1', 'u2']}, state),
    banker36.describe({type: 'bank_broken', banker: 'u2'}, state),
  ];
}"""


def test_banker36_and_classic_logs_tell_the_viewers_own_events_in_the_second_person(
    page: Any, daphne_server: Any
) -> None:
    page.goto(f"{daphne_server.url}/")
    assert page.evaluate(OWN_LINES) == [
        f"Вы держите банк: 10{NBSP}000",
        "Стук! Вы играете второй круг, банк 30",
        "Вы пропускаете: не хватает фишек",
        "Ваш банк сорван!",
        "Раздача 2: первыми ходите вы",
        "Банк boris сорван!",
    ]
