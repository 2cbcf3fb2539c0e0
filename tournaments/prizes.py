"""Prizes by place (docs/tournaments.md, «Places and prizes»): pure arithmetic, no Django.

The pool is split by the event's prize table (by the field's size, or a fixed one); each
place's prize is its share of the pool rounded down, and the chips the rounding leaves go
to first place, so the whole pool is paid. Entrants tied on a place split the prizes of
the places they hold together equally; the chips that split leaves go one each to the
tied entrants in their order of registration.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

# (largest field it applies to, the places' shares in per cent); the last has no limit.
PRIZE_TABLE: tuple[tuple[int | None, tuple[int, ...]], ...] = (
    (5, (100,)),
    (15, (50, 30, 20)),
    (40, (40, 25, 15, 10, 10)),
    (None, (30, 20, 14, 10, 8, 7, 6, 5)),
)

# The tables an admin picks from per event (Tournament.prize_table): the one above, by the
# field's size ("by_field"), or one row whatever the field.
FIXED_ROWS: dict[str, tuple[int, ...]] = {
    "winner": (100,),
    "top3": (50, 30, 20),
    "top5": (40, 25, 15, 10, 10),
}
BY_FIELD = "by_field"

Key = TypeVar("Key")


def shares(entrants: int, table: str = BY_FIELD) -> tuple[int, ...]:
    """The places' shares of the pool, in per cent, for a field of `entrants` under the
    prize table `table` (never more places than entrants)."""
    fixed = FIXED_ROWS.get(table)
    if fixed is not None:
        return fixed[: max(entrants, 1)]
    for limit, row in PRIZE_TABLE:
        if limit is None or entrants <= limit:
            return row[: max(entrants, 1)]
    raise AssertionError("the last row has no limit")  # pragma: no cover


def place_prizes(pool: int, entrants: int, table: str = BY_FIELD) -> list[int]:
    """Each paid place's prize, first place first; they add up to `pool`."""
    row = shares(entrants, table)
    prizes = [pool * share // sum(row) for share in row]
    prizes[0] += pool - sum(prizes)
    return prizes


def payouts(pool: int, ranking: Sequence[Sequence[Key]], table: str = BY_FIELD) -> dict[Key, int]:
    """Every entrant's prize. `ranking`: the entrants by place, tied ones in one group,
    each group in order of registration."""
    entrants = sum(len(group) for group in ranking)
    prizes = place_prizes(pool, entrants, table)
    paid: dict[Key, int] = {}
    place = 0
    for group in ranking:
        held = prizes[place : place + len(group)]
        total = sum(held)
        each, left = divmod(total, len(group))
        for index, key in enumerate(group):
            paid[key] = each + (1 if index < left else 0)
        place += len(group)
    return paid
