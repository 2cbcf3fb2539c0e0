"""Fixtures of the moderation tests: a table with a conversation at it."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from chat.models import ChatMessage
from tables import services
from tests.conftest import reset_throttle_counts


@pytest.fixture(autouse=True)
def _fresh_throttle_counts() -> Iterator[None]:
    reset_throttle_counts()
    yield


def say(table: Any, author: Any, text: str, *, shown: str | None = None, at: Any = None) -> Any:
    """A chat message written at `table` (chat's service is helper C's: the row is enough
    for what moderation reads)."""
    return ChatMessage.objects.create(
        table=table,
        author=author,
        text=text,
        shown=text if shown is None else shown,
        created_at=at or timezone.now(),
    )


@pytest.fixture
def table(db: Any) -> Any:
    return services.table_create(variant="banker36", name="Зелёный стол", stake=10, entry_limit=100)


@pytest.fixture
def conversation(make_user: Any, table: Any) -> dict[str, Any]:
    """ann and bob talk at a table; bob's fourth message is the rude one."""
    ann, bob = make_user("ann"), make_user("bob")
    start = timezone.now() - datetime.timedelta(minutes=10)
    lines = [
        (ann, "Удачи!"),
        (bob, "Спасибо"),
        (ann, "Ещё партию?"),
        (bob, "ты дурак", "ты *****"),
        (ann, "Зачем так?"),
    ]
    messages = [
        say(
            table,
            line[0],
            line[1],
            shown=line[2] if len(line) > 2 else None,
            at=start + datetime.timedelta(seconds=i),
        )
        for i, line in enumerate(lines)
    ]
    return {"ann": ann, "bob": bob, "table": table, "messages": messages, "rude": messages[3]}
