"""The fixed charts of the ``medium`` AI levels, written in as data.

``blackjack`` medium: the common published basic strategy for 4–8 decks, dealer stands
on soft 17, double after split allowed, no surrender, American style (the dealer peeks
for a natural). It is deliberately *not* this table's exact strategy (the ``hard`` level
computes that): against our no-hole-card dealer it still doubles 11 vs T and splits
8,8 vs T and A and A,A vs A, the textbook chart's plays. Soft 12 (A,A that may no longer
be split) is a hit, as the chart's "play A,A as 12" rows usually say.

``classic`` medium: the same chart's hit/stand decisions with doubling read as a hit
(the soft doubles become hits; soft 18 stands against 2–8 and hits against 9, T, A):
the "sensible player's" chart, not this game's single-deck optimum (``hard``).

Codes: H hit, S stand, Dh double else hit, Ds double else stand; pairs: Y split, N play
the total. Columns are the dealer's up-card 2..9, T, A.
"""

from __future__ import annotations

UPCARDS = "23456789TA"

_BLACKJACK_HARD = """
 4  H  H  H  H  H  H  H  H  H  H
 5  H  H  H  H  H  H  H  H  H  H
 6  H  H  H  H  H  H  H  H  H  H
 7  H  H  H  H  H  H  H  H  H  H
 8  H  H  H  H  H  H  H  H  H  H
 9  H Dh Dh Dh Dh  H  H  H  H  H
10 Dh Dh Dh Dh Dh Dh Dh Dh  H  H
11 Dh Dh Dh Dh Dh Dh Dh Dh Dh  H
12  H  H  S  S  S  H  H  H  H  H
13  S  S  S  S  S  H  H  H  H  H
14  S  S  S  S  S  H  H  H  H  H
15  S  S  S  S  S  H  H  H  H  H
16  S  S  S  S  S  H  H  H  H  H
17  S  S  S  S  S  S  S  S  S  S
18  S  S  S  S  S  S  S  S  S  S
19  S  S  S  S  S  S  S  S  S  S
20  S  S  S  S  S  S  S  S  S  S
21  S  S  S  S  S  S  S  S  S  S
"""

_BLACKJACK_SOFT = """
12  H  H  H  H  H  H  H  H  H  H
13  H  H  H Dh Dh  H  H  H  H  H
14  H  H  H Dh Dh  H  H  H  H  H
15  H  H Dh Dh Dh  H  H  H  H  H
16  H  H Dh Dh Dh  H  H  H  H  H
17  H Dh Dh Dh Dh  H  H  H  H  H
18  S Ds Ds Ds Ds  S  S  H  H  H
19  S  S  S  S  S  S  S  S  S  S
20  S  S  S  S  S  S  S  S  S  S
21  S  S  S  S  S  S  S  S  S  S
"""

_BLACKJACK_PAIRS = """
 2  Y  Y  Y  Y  Y  Y  N  N  N  N
 3  Y  Y  Y  Y  Y  Y  N  N  N  N
 4  N  N  N  Y  Y  N  N  N  N  N
 5  N  N  N  N  N  N  N  N  N  N
 6  Y  Y  Y  Y  Y  N  N  N  N  N
 7  Y  Y  Y  Y  Y  Y  N  N  N  N
 8  Y  Y  Y  Y  Y  Y  Y  Y  Y  Y
 9  Y  Y  Y  Y  Y  N  Y  Y  N  N
 T  N  N  N  N  N  N  N  N  N  N
 A  Y  Y  Y  Y  Y  Y  Y  Y  Y  Y
"""

_CLASSIC_HARD = """
 4  H  H  H  H  H  H  H  H  H  H
 5  H  H  H  H  H  H  H  H  H  H
 6  H  H  H  H  H  H  H  H  H  H
 7  H  H  H  H  H  H  H  H  H  H
 8  H  H  H  H  H  H  H  H  H  H
 9  H  H  H  H  H  H  H  H  H  H
10  H  H  H  H  H  H  H  H  H  H
11  H  H  H  H  H  H  H  H  H  H
12  H  H  S  S  S  H  H  H  H  H
13  S  S  S  S  S  H  H  H  H  H
14  S  S  S  S  S  H  H  H  H  H
15  S  S  S  S  S  H  H  H  H  H
16  S  S  S  S  S  H  H  H  H  H
17  S  S  S  S  S  S  S  S  S  S
18  S  S  S  S  S  S  S  S  S  S
19  S  S  S  S  S  S  S  S  S  S
20  S  S  S  S  S  S  S  S  S  S
21  S  S  S  S  S  S  S  S  S  S
"""

_CLASSIC_SOFT = """
12  H  H  H  H  H  H  H  H  H  H
13  H  H  H  H  H  H  H  H  H  H
14  H  H  H  H  H  H  H  H  H  H
15  H  H  H  H  H  H  H  H  H  H
16  H  H  H  H  H  H  H  H  H  H
17  H  H  H  H  H  H  H  H  H  H
18  S  S  S  S  S  S  S  H  H  H
19  S  S  S  S  S  S  S  S  S  S
20  S  S  S  S  S  S  S  S  S  S
21  S  S  S  S  S  S  S  S  S  S
"""

Table = dict[tuple[str, str], str]


def _parse(text: str, codes: frozenset[str]) -> Table:
    """Rows ``<key> <code per up-card>`` → {(key, up-card rank): code}."""
    table: Table = {}
    for line in text.strip().splitlines():
        key, *cells = line.split()
        if len(cells) != len(UPCARDS) or not set(cells) <= codes:
            raise ValueError(f"bad chart row {line!r}")
        for up, code in zip(UPCARDS, cells, strict=True):
            table[(key, up)] = code
    return table


_MOVES = frozenset({"H", "S", "Dh", "Ds"})
_HIT_STAND = frozenset({"H", "S"})

BLACKJACK_HARD = _parse(_BLACKJACK_HARD, _MOVES)
BLACKJACK_SOFT = _parse(_BLACKJACK_SOFT, _MOVES)
BLACKJACK_PAIRS = _parse(_BLACKJACK_PAIRS, frozenset({"Y", "N"}))
CLASSIC_HARD = _parse(_CLASSIC_HARD, _HIT_STAND)
CLASSIC_SOFT = _parse(_CLASSIC_SOFT, _HIT_STAND)
