"""Provably fair shuffles: a seed, its SHA-256 commitment and a deterministic order.

The algorithm is stated in docs/fairness.md precisely enough for an independent
verifier; change nothing here without changing that document (and its verifier test).

- the seed itself comes from games.fairness (a committed server seed mixed with the
  players' client seeds);
- shuffle number n (0, 1, 2, … across a record) reads the byte stream
  SHA-256(f"{seed}:{n}:{k}") for k = 0, 1, 2, …, as big-endian 32-bit words;
- a uniform integer below m takes the next word u, rejects u ≥ 2³² − (2³² mod m)
  and returns u mod m;
- the stock starts in canonical order (`cards.CANONICAL_INDEX`: suits S H D C, ranks
  2…A; duplicates of a shoe side by side) and is Fisher–Yates shuffled: for i from
  len−1 down to 1, swap position i with position uniform(i + 1). Position 0 is drawn first.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, Sequence

from games.cards import CANONICAL_INDEX

_WORD = 1 << 32


def fresh_seed() -> str:
    """A new seed from the operating system's cryptographically strong source."""
    return secrets.token_hex(32)


class SeedStream:
    """Uniform integers drawn from the SHA-256 stream of one (seed, label)."""

    def __init__(self, seed: str, label: str) -> None:
        self._prefix = f"{seed}:{label}:"
        self._words = self._generate()

    def _generate(self) -> Iterator[int]:
        block = 0
        while True:
            digest = hashlib.sha256(f"{self._prefix}{block}".encode()).digest()
            for offset in range(0, 32, 4):
                yield int.from_bytes(digest[offset : offset + 4], "big")
            block += 1

    def below(self, m: int) -> int:
        """A uniform integer in [0, m), without modulo bias."""
        if m <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _WORD - (_WORD % m)
        while True:
            word = next(self._words)
            if word < limit:
                return word % m


def canonical_order(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=CANONICAL_INDEX.__getitem__)


def shuffled(cards: Sequence[str], seed: str, shuffle_no: int) -> list[str]:
    """The order of shuffle number `shuffle_no` of these cards under `seed`."""
    order = canonical_order(cards)
    stream = SeedStream(seed, str(shuffle_no))
    for i in range(len(order) - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def draw_lot(seed: str, candidates: Sequence[str]) -> str:
    """A choice by lot (the first banker) derived from the seed."""
    return candidates[SeedStream(seed, "lot").below(len(candidates))]
