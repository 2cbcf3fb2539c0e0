"""What tournaments hear from live play (play.signals)."""

from __future__ import annotations

from typing import Any

from tournaments.heats import heat_ended
from tournaments.services import tournament_finish


def heat_game_ended(sender: Any, game_id: int, **kwargs: Any) -> None:
    """A game ended: if it was a heat's, its entry's stack is its result, and the event
    ends when it was the last heat to be played."""
    every_heat_played = heat_ended(game_id=game_id)
    if every_heat_played is not None:
        tournament_finish(tournament=every_heat_played)
