"""What tournaments hear from live play (play.signals)."""

from __future__ import annotations

from typing import Any

from play.models import Game
from tournaments.heats import heat_ended
from tournaments.rounds import multi_table_of
from tournaments.services import tournament_finish, tournament_round_progress
from tournaments.sitgo import sit_and_go_game_ended, sit_and_go_of_table
from tournaments.standings import changed_on_commit


def heat_game_ended(sender: Any, game_id: int, **kwargs: Any) -> None:
    """A game ended: if it was a heat's, its entry's stack is its result, and the event
    ends when it was the last heat to be played; if it was a sit-and-go's, the event ends
    (its stacks are the game's final ones)."""
    every_heat_played = heat_ended(game_id=game_id)
    if every_heat_played is not None:
        tournament_finish(tournament=every_heat_played)
    sit_and_go = sit_and_go_game_ended(game_id=game_id)
    if sit_and_go is not None:
        tournament_finish(tournament=sit_and_go)
    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    multi_table = None if table_id is None else multi_table_of(table_id)
    if multi_table is not None:  # a round's table is over: maybe the round
        tournament_round_progress(tournament=multi_table)


def table_deal_ended(sender: Any, table_id: int, game_id: int, **kwargs: Any) -> None:
    """A deal settled: at a sit-and-go's table, the live stacks of its standings changed."""
    tournament_id = sit_and_go_of_table(table_id)
    if tournament_id is not None:
        changed_on_commit(tournament_id)  # sent at once: the deal is committed
