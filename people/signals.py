"""What the people app announces to the layers above it (the chat)."""

from __future__ import annotations

from django.dispatch import Signal

blocks_changed = Signal()
"""``user_id``'s block list changed (a block added or removed); the sender is
`people.models.Block`. Sent after the transaction that changed it commits, so a receiver
that reads `people.blocks.blocked_ids(user_id)` sees the new list."""
