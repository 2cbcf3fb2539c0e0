"""A sit-and-go's stacks as its table's game stands (docs/tournaments.md, «Sit-and-go»):
reads only, for the standings and the event's end."""

from __future__ import annotations

from games import engine
from play.models import Game
from tables.models import Table
from tournaments.models import Entry, Tournament


def plays_sit_and_go(tournament: Tournament) -> bool:
    return tournament.format == Tournament.Format.SIT_AND_GO


def the_table(tournament: Tournament) -> Table | None:
    entry = tournament.entries.exclude(table=None).select_related("table").first()
    return None if entry is None else entry.table


def final_stacks(game: Game | None) -> dict[int, int]:
    """Each player's stack by user id: what they were dealt plus what the game won or
    lost so far (settled deltas only: a stake still in play goes back to its owner)."""
    if game is None:
        return {}
    deltas: dict[str, int] = (game.result or engine.result(game.state))["deltas"]
    return {
        p["user"]: p["chips"] + deltas.get(p["id"], 0)
        for p in game.players
        if p.get("user") is not None
    }


def live_stacks(tournament: Tournament) -> dict[int, int]:
    """The stacks now, from the table's game (read, not locked): for the standings."""
    table = the_table(tournament)
    if table is None:
        return {}
    return final_stacks(Game.objects.filter(table=table).order_by("-number").first())


def with_live_stacks(tournament: Tournament, entries: list[Entry]) -> None:
    """A running sit-and-go's entries given the stacks as its game stands (not saved):
    the standings and the event's page show them alike."""
    if tournament.status != Tournament.Status.RUNNING or not plays_sit_and_go(tournament):
        return
    live = live_stacks(tournament)
    for entry in entries:
        entry.stack = live.get(entry.player_id, entry.stack)
