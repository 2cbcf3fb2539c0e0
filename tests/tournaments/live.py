"""What the tournaments' production-stack tests share (their `stack` fixture is in
conftest.py): the scenario's steps an entrant or the event takes."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.utils import timezone

from accounts import tokens
from accounts.models import User
from tournaments.models import Tournament
from tournaments.services import entry_register


@database_sync_to_async
def status_of(tournament: Tournament) -> str:
    return Tournament.objects.values_list("status", flat=True).get(pk=tournament.pk)


def reaches(tournament: Tournament, status: str) -> Any:
    """A check for `until`: the event's status is `status`."""

    async def check() -> bool:
        return await status_of(tournament) == status

    return check


@database_sync_to_async
def entrant(name: str, tournament: Tournament) -> tuple[str, Any]:
    """A person registered for the event (as its page's form does), with a token."""
    user = User.objects.create_user(name, email=f"{name}@example.com", password="unused-Pass-42")
    entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    _token, secret = tokens.token_create(user=user, name="heat", scopes=["read", "play"])
    return str(secret), user


async def nothing() -> None:
    return None
