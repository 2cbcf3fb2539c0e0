"""A page built of parts, each of which may fail alone.

What one player does must never take a page down for everyone (issue 17: one decision in
a bank made the leaderboard's query fail, and with it `GET /`). A page builds its
independent parts (the list of tables, the leaderboard, a player's figures) through
`Parts.build`: a part that raises is logged with its traceback and replaced by its
fallback, and its name is kept in `failed`, so that the page shows a short note in its
place (templates: «Эта часть страницы сейчас недоступна…») and the rest as usual.

Each part runs in its own savepoint: a database error inside it rolls back only the
part, and the connection stays usable for the parts after it (on PostgreSQL a failed
statement otherwise aborts the whole transaction a request or a test runs in).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import transaction

logger = logging.getLogger(__name__)

T = TypeVar("T")


class Parts:
    """The parts of one page (or one answer) as they are built; `failed` names those
    that raised."""

    def __init__(self, page: str) -> None:
        self.page = page
        self.failed: list[str] = []

    def build(self, name: str, build: Callable[[], T], fallback: T, *, savepoint: bool = True) -> T:
        """`build()`, or `fallback` (logged) if it raises. `savepoint=False` for a part
        that reads nothing from the database (a savepoint would cost two statements)."""
        try:
            if not savepoint:
                return build()
            with transaction.atomic():
                return build()
        except Exception:
            logger.exception("%s: the part %r failed; the page shows the rest", self.page, name)
            if name not in self.failed:
                self.failed.append(name)
            return fallback
