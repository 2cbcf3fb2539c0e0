"""What the chart-playing AIs share: their levels' rules, memoised by decision key."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)


class MemoisedLevels(Generic[Key]):
    """Each level's rule maps a small decision key to a move; a simulation pays for each
    key once. `hard` levels compute their strategy up front (`prepare`), so a process
    pool inherits it instead of computing it per worker."""

    def __init__(
        self, rules: Mapping[str, Callable[[Key], str]], compute_hard: Callable[[], object]
    ) -> None:
        self._rules = dict(rules)
        self._memo: dict[str, dict[Key, str]] = {level: {} for level in rules}
        self._compute_hard = compute_hard

    def prepare(self, level: str) -> None:
        if level == "hard":
            self._compute_hard()

    def decide(self, level: str, key: Key) -> str:
        memo = self._memo[level]
        move = memo.get(key)
        if move is None:
            move = memo[key] = self._rules[level](key)
        return move
