"""Whom a user blocked (the people contract; a minimal stand-in, replaced at merge)."""

from __future__ import annotations

from people.models import Block


def blocked_ids(user_id: int) -> set[int]:
    """The ids of the users `user_id` blocked."""
    return set(Block.objects.filter(blocker_id=user_id).values_list("blocked_id", flat=True))
