"""The five variants' table limits: the one place that knows them.

Keys are the rules engine's (`games`) variant keys. Their rules: docs/rules/<key>.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Variant:
    key: str
    name: Promise
    summary: Promise
    min_seats: int
    max_seats: int
    default_seats: int
    # What a seat plays for: account chips (through the ledger), or the variant's own
    # counters that never touch the wallet.
    currency: str  # "chips" | "points" | "coins" | "units"
    # Table fields that apply to this variant, with their defaults; the others must be
    # left empty.
    stake_defaults: dict[str, int] = field(default_factory=dict)
    default_entry_limit: int = 0
    # The field the entry limit may not go below ("a player needs at least one bet").
    entry_limit_floor_field: str | None = None
    match_lengths: tuple[int, ...] = ()
    default_match_length: int | None = None
    # Fixed options the rules give this variant (not per-table fields).
    fixed_options: dict[str, int] = field(default_factory=dict)
    # A training game: its table page offers the coach (insights/coach.py).
    coached: bool = False

    @property
    def stakes_chips(self) -> bool:
        return self.currency == "chips"

    @property
    def entry_limit_in_rules(self) -> bool:
        """`banker36`'s rules name the entry limit (an engine option); `salon`'s is the
        platform's own seating rule."""
        return self.key == BANKER36


CLASSIC = "classic"
SALON = "salon"
SOLO = "solo"
BANKER36 = "banker36"
BLACKJACK = "blackjack"

VARIANTS: dict[str, Variant] = {
    v.key: v
    for v in (
        Variant(
            key=CLASSIC,
            name=_("Классика"),
            summary=_("2–10 игроков против дилера, партия из 5, 7 или 10 раздач, на очки"),
            min_seats=2,
            max_seats=10,
            default_seats=6,
            currency="points",
            match_lengths=(5, 7, 10),
            default_match_length=5,
        ),
        Variant(
            key=SALON,
            name=_("Салонная игра"),
            summary=_("Две колоды, банк переходит по кругу, понтёры ставят фишки"),
            min_seats=2,
            max_seats=10,
            default_seats=6,
            currency="chips",
            stake_defaults={"min_bet": 10, "max_bet": 100},
            default_entry_limit=100,
            entry_limit_floor_field="min_bet",
        ),
        Variant(
            key=SOLO,
            name=_("Против банкира"),
            summary=_("Один игрок против компьютера-банкира: 1000 монет против банка 300"),
            min_seats=1,
            max_seats=1,
            default_seats=1,
            currency="coins",
            fixed_options={"start_coins": 1000, "start_bank": 300},
            coached=True,
        ),
        Variant(
            key=BANKER36,
            name=_("Очко с банкиром (36 карт)"),
            summary=_("2–4 игрока, банк держит игрок и играет с каждым по очереди"),
            min_seats=2,
            max_seats=4,
            default_seats=4,
            currency="chips",
            stake_defaults={"stake": 10},
            default_entry_limit=100,
            entry_limit_floor_field="stake",
        ),
        Variant(
            key=BLACKJACK,
            name=_("Блэкджек (тренировка)"),
            summary=_("Европейский блэкджек, 6 колод, тренировка на учебных единицах"),
            min_seats=1,
            max_seats=7,
            default_seats=5,
            currency="units",
            coached=True,
        ),
    )
}

# The variants whose seats stake account chips: a player's chips are in play at one such
# table at a time (play.services.seating).
CHIP_VARIANTS: tuple[str, ...] = tuple(k for k, v in VARIANTS.items() if v.stakes_chips)

# Every stake field a table can carry; a variant uses a subset (Variant.stake_defaults).
STAKE_FIELDS = ("stake", "min_bet", "max_bet")


def get_variant(key: str) -> Variant:
    return VARIANTS[key]


def variant_choices() -> list[tuple[str, Any]]:
    return [(v.key, v.name) for v in VARIANTS.values()]
