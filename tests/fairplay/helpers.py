"""Shared by the fair-play tests: players linked the way a sign-in links them."""

from __future__ import annotations

from typing import Any

from fairplay.traces import traces_record

DEVICE = "d" * 32


def link(*users: Any, address: str = "203.0.113.7", device: str = DEVICE) -> None:
    """Record that every one of `users` signed in from `address` with `device` (either
    empty: not shared)."""
    for user in users:
        traces_record(user=user, address=address, device=device)
