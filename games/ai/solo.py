"""A `solo` player for simulations (the rules give `solo` no AI seat: its banker is the
computer and plays by himself in the engine).

``player``: bets 25 coins (the smallest quick button; the largest allowed bet when that
is less), draws while below 17, and asks for the next round when one is settled. It never
restarts a round or starts a new game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LEVELS: tuple[str, ...] = ("player",)

BET = 25
STANDS_ON = 17


def prepare(level: str) -> None:
    """Nothing to compute."""


def choose(
    level: str, seat: str, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    phase = view["phase"]
    if phase == "bet":
        offer = next(entry for entry in legal if entry["action"] == "bet")
        return {"seat": seat, "action": "bet", "amount": max(offer["min"], min(BET, offer["max"]))}
    if phase == "draw":
        draws = view["hand"]["total"] < STANDS_ON
        return {"seat": seat, "action": "hit" if draws else "stand"}
    return {"seat": seat, "action": "next_round"}
