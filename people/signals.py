"""What people announces (the people contract; a minimal stand-in, replaced at merge)."""

from __future__ import annotations

from django.dispatch import Signal

blocks_changed = Signal()
"""A user's block list changed, with ``user_id`` (the blocker); sent on commit."""
