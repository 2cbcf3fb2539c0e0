"""What Web Push hears from live play (play.signals) and the tournaments
(tournaments.signals), connected in push.apps.PushConfig.ready. Each returns at once
while push is off (no VAPID keys): a move pays nothing for it then."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone

from push.services import push_enabled, table_ready_notify, turn_notify


def turn_started(
    sender: Any,
    *,
    table_id: int,
    game_id: int,
    user_id: int,
    version: int,
    deadline: datetime.datetime,
    **kwargs: Any,
) -> None:
    """A person's decision clock started: «Ваш ход», if they are not looking."""
    if not push_enabled():
        return
    turn_notify(
        user_id=user_id,
        table_id=table_id,
        game_id=game_id,
        version=version,
        deadline=deadline,
        now=timezone.now(),
    )


def table_ready(
    sender: Any, *, tournament_id: int, user_id: int, table_id: int, **kwargs: Any
) -> None:
    """An entrant's tournament table is open: «Ваш стол готов»."""
    if not push_enabled():
        return
    table_ready_notify(
        user_id=user_id, tournament_id=tournament_id, table_id=table_id, now=timezone.now()
    )
