"""Multi-table `banker36` (docs/tournaments.md, «Multi-table: seating and points»): who sits
where in each round, and the placement points a table gives. Pure arithmetic, no Django:
the players are any hashable keys (entry ids in the service).

A round seats the field at tables of at most four, as even as can be (sizes differ by at
most one). The leaders sit together: the players are taken in the order of the standings
(points, then the service's tiebreak) and the tables filled in that order. Then, where the
field allows, no two players who shared a table in the round before share one again:
seats are swapped between tables while a swap lowers the number of such pairs (or, with
as many, keeps the leaders closer together); whenever there are at least as many tables
as the largest table of the round before, a seating with no such pair exists, and one is
found. Each round is tried three ways — the standings' order, each player at the first
table free of their last tablemates, and last round's tables dealt round the new ones —
each improved by the swaps, and the best kept.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

P = TypeVar("P", bound=Hashable)

MOST_AT_A_TABLE = 4
# A table's points by place: the winner 6, the last 0, even steps between (6/4/2/0 at a
# table of four, 6/3/0 of three, 6/0 of two), so a table of any size gives 3 on average.
WINNER_POINTS = 6


def table_sizes(players: int, most: int = MOST_AT_A_TABLE) -> list[int]:
    """The tables of a round of `players`: as few as hold them at `most` a table, their
    sizes as even as can be, the larger first."""
    if players < 2:
        raise ValueError("a round needs at least two players")
    tables = math.ceil(players / most)
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def _chunks(order: Sequence[P], sizes: Sequence[int]) -> list[list[P]]:
    tables, at = [], 0
    for size in sizes:
        tables.append(list(order[at : at + size]))
        at += size
    return tables


def repeated_pairs(tables: Sequence[Sequence[P]], previous: Sequence[Sequence[P]]) -> int:
    """Pairs of players who share a table in `tables` and shared one in `previous`."""
    before = {player: index for index, table in enumerate(previous) for player in table}
    count = 0
    for table in tables:
        seen: dict[int, int] = {}
        for player in table:
            where = before.get(player)
            if where is not None:
                count += seen.get(where, 0)
                seen[where] = seen.get(where, 0) + 1
    return count


def _standing(tables: Sequence[Sequence[P]], order: Sequence[P]) -> tuple[int, ...]:
    """Each player's table, in the standings' order. Compared as tuples, the leader's table
    counts first, then the next player's: the lower, the nearer the top the leaders sit,
    together."""
    table_of = {p: index for index, table in enumerate(tables) for p in table}
    return tuple(table_of[p] for p in order)


def _improved(
    tables: list[list[P]], previous: Sequence[Sequence[P]], order: Sequence[P]
) -> list[list[P]]:
    """Swap two players of different tables while that lowers (repeated pairs, standing),
    first improvement first; the tables' sizes never change."""
    best = (repeated_pairs(tables, previous), _standing(tables, order))
    improved = True
    while improved:
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, len(tables)):
                for a in range(len(tables[i])):
                    for b in range(len(tables[j])):
                        tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
                        cost = (repeated_pairs(tables, previous), _standing(tables, order))
                        if cost < best:
                            best, improved = cost, True
                        else:
                            tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
    return [sorted(table, key=list(order).index) for table in tables]


def seat_round(
    order: Sequence[P], previous: Sequence[Sequence[P]] = (), most: int = MOST_AT_A_TABLE
) -> list[list[P]]:
    """The round's tables, the first for the leaders, each in the standings' order.
    `order`: every player of the round, leaders first; `previous`: the round before's
    tables (players not in `order` are left out of it)."""
    if len(set(order)) != len(order):
        raise ValueError("a player is listed twice")
    sizes = table_sizes(len(order), most)
    here = set(order)
    before = [[p for p in table if p in here] for table in previous]
    before = [table for table in before if len(table) > 1]
    by_standing = _chunks(order, sizes)
    if not before:
        return by_standing

    def cost(tables: list[list[P]]) -> tuple[int, tuple[int, ...]]:
        return repeated_pairs(tables, before), _standing(tables, order)

    # 1. The standings' order, improved.
    candidates = [_improved(by_standing, before, order)]
    # 2. Each player in the standings' order at the first table with a seat left and none
    # of their last tablemates (else the first with a seat left), improved.
    mates = {p: set(t) - {p} for t in before for p in t}
    greedy: list[list[P]] = [[] for _ in sizes]
    for player in order:
        free = [i for i, size in enumerate(sizes) if len(greedy[i]) < size]
        apart = [i for i in free if not mates.get(player, set()) & set(greedy[i])]
        greedy[(apart or free)[0]].append(player)
    candidates.append(_improved(greedy, before, order))
    # 3. Each table of the round before dealt round the new tables, one player to each —
    # with at least as many tables as its players, none meets another — the leaders'
    # tables first, improved. This one guarantees no repeated pair when the field allows.
    if len(sizes) >= max(map(len, before)):
        rank = {p: i for i, p in enumerate(order)}
        groups = sorted(
            [*before, *[[p] for p in order if p not in mates]],
            key=lambda group: min(rank[p] for p in group),
        )
        flat = [p for group in groups for p in sorted(group, key=rank.__getitem__)]
        dealt: list[list[P]] = [[] for _ in sizes]
        for index, player in enumerate(flat):
            dealt[index % len(sizes)].append(player)
        candidates.append(_improved(dealt, before, order))
    return min(candidates, key=cost)


def placement_points(stacks: dict[P, int]) -> dict[P, int]:
    """Each player's points for a table's final stacks: by place (highest stack first),
    6 for the winner down to 0 for the last in even steps (rounded down); equal stacks
    share the better place and its points."""
    size = len(stacks)
    if size < 2:
        raise ValueError("a table has at least two players")
    ordered = sorted(stacks.values(), reverse=True)
    place_of = {}
    for index, stack in enumerate(ordered):
        place_of.setdefault(stack, index + 1)
    return {
        player: WINNER_POINTS * (size - place_of[stack]) // (size - 1)
        for player, stack in stacks.items()
    }
