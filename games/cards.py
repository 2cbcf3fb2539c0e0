"""Cards, decks and hand totals shared by every variant.

A card is two characters, rank then suit: ranks ``23456789TJQKA``, suits ``SHDC``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.errors import INVALID_DECK, RulesError

RANKS = "23456789TJQKA"
SUITS = "SHDC"
RUSSIAN_RANKS = "6789TJQKA"

STANDARD52: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
RUSSIAN36: tuple[str, ...] = tuple(r + s for s in SUITS for r in RUSSIAN_RANKS)

DECKS: dict[str, tuple[str, ...]] = {"standard52": STANDARD52, "russian36": RUSSIAN36}

# Canonical position of each card: the order a shuffle starts from (docs/fairness.md).
CANONICAL_INDEX: dict[str, int] = {card: i for i, card in enumerate(STANDARD52)}

TEN_VALUE = frozenset("TJQK")
PICTURES36 = frozenset("JQKA")

# 52-card values with the ace as 1; the soft ace adds 10 where it fits.
VALUE52: dict[str, int] = {r: min(i + 2, 10) for i, r in enumerate(RANKS[:-1])} | {"A": 1}
# 36-card values: J = 2, Q = 3, K = 4, A = 11 always.
VALUE36: dict[str, int] = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 2, "Q": 3, "K": 4}
VALUE36["A"] = 11


def parse_card(text: object) -> str:
    """Normalise a card string (``10h`` → ``TH``); anything else is an `invalid_deck`."""
    if not isinstance(text, str):
        raise RulesError(
            INVALID_DECK, f"{text!r} is not a card: expected a string like 'AS' or '10H'"
        )
    raw = text.strip().upper()
    if raw.startswith("10"):
        raw = "T" + raw[2:]
    if len(raw) != 2 or raw[0] not in RANKS or raw[1] not in SUITS:
        raise RulesError(
            INVALID_DECK,
            f"{text!r} is not a card: a card is a rank (2-9, T or 10, J, Q, K, A) "
            "and a suit (S, H, D, C), e.g. 'AS' or '10H'",
        )
    return raw


def shoe(deck: str, copies: int = 1) -> list[str]:
    """A fresh stock in canonical order: `copies` decks of the named kind."""
    return list(DECKS[deck]) * copies


def rank(card: str) -> str:
    return card[0]


def total52(cards: Iterable[str]) -> tuple[int, bool]:
    """Best total of a 52-card hand and whether it is soft (an ace counted as 11)."""
    total = 0
    has_ace = False
    for card in cards:
        r = card[0]
        total += VALUE52[r]
        if r == "A":
            has_ace = True
    if has_ace and total <= 11:
        return total + 10, True
    return total, False


def is_natural52(cards: Sequence[str]) -> bool:
    """An ace and a ten-value card as a hand's first two cards."""
    if len(cards) != 2:
        return False
    a, b = cards[0][0], cards[1][0]
    return (a == "A" and b in TEN_VALUE) or (b == "A" and a in TEN_VALUE)


def is_golden_point(cards: Sequence[str]) -> bool:
    """«Золотое очко»: two aces as a two-card hand (36-card variants)."""
    return len(cards) == 2 and cards[0][0] == "A" and cards[1][0] == "A"


def is_five_pictures(cards: Sequence[str]) -> bool:
    """«Пять картинок» (`banker36`): exactly five cards, all J, Q, K or A."""
    return len(cards) == 5 and all(card[0] in PICTURES36 for card in cards)


def total36(cards: Sequence[str], *, five_pictures: bool = False) -> int:
    """A 36-card total; special hands count 21 (five pictures only where the variant has it)."""
    if is_golden_point(cards) or (five_pictures and is_five_pictures(cards)):
        return 21
    return sum(VALUE36[card[0]] for card in cards)
