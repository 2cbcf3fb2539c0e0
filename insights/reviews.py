"""Decision review of played games: every decision a signed-in player made, stored with the
value of each option they had (games.strategy.review computes them from the seat's view).

A game is reviewed up to its last action, incrementally: `game_review` replays the game's
record from its seed (server-side; nothing of it is sent) and stores the decisions made
since the last review. It runs when a game ends (`tables.tasks.review_game`, scheduled by
a subscriber of live play's `play.signals.game_ended`, sent on commit) and on demand
where a player is waiting for the figures (the coach, the replay, the statistics page).
Reviewing never locks the game row: the record's actions only grow, and each decision is
stored once (`decision_once_per_action`), so two reviews at once are harmless.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction

from games.strategy.review import REVIEWED, review_record
from insights.models import Decision
from play.models import Game
from play.services.records import game_record

logger = logging.getLogger(__name__)


def _players(game: Game) -> dict[str, int]:
    """Seat id -> user id of the game's signed-in players (AI seats are not reviewed)."""
    return {p["id"]: p["user"] for p in game.players if p.get("user")}


def game_review(game: Game | int, *, upto: int | None = None) -> int:
    """Store the decisions of `game` not reviewed yet; return how many were stored.

    `upto` reviews only the game's first `upto` actions: a game in play up to its last
    settled round, whose cards are public (fair play reads a long `salon` shoe while it
    goes on, fairplay.leak.reviews_settled); the rest is reviewed later, from there."""
    if not isinstance(game, Game):
        game = Game.objects.select_related("table").get(pk=game)
    done = game.reviewed_actions
    total = len(game.actions) if upto is None else min(upto, len(game.actions))
    players = _players(game)
    if game.variant not in REVIEWED or not players or done >= total:
        if done < total:
            Game.objects.filter(pk=game.pk, reviewed_actions__lt=total).update(
                reviewed_actions=total
            )
        return 0
    record = game_record(game)
    if total < len(record["actions"]):
        record = {**record, "actions": record["actions"][:total]}
    decisions = [
        Decision(
            game=game,
            user_id=players[d["seat"]],
            variant=game.variant,
            seat=d["seat"],
            number=d["n"],
            round=d["round"],
            situation=d["situation"],
            options=d["options"],
            chosen=d["chosen"],
            best=d["best"],
            loss=d["loss"],
            timeout=d.get("timeout", False),
        )
        for d in review_record(record, seats=list(players), start=done)
    ]
    with transaction.atomic():
        Decision.objects.bulk_create(decisions, ignore_conflicts=True)
        Game.objects.filter(pk=game.pk, reviewed_actions__lt=total).update(reviewed_actions=total)
    game.reviewed_actions = max(done, total)
    return len(decisions)


def games_review(games: Iterable[Game]) -> tuple[int, int]:
    """Review each game that has actions not reviewed yet; return how many games were
    reviewed and how many decisions stored."""
    reviewed = stored = 0
    for game in games:
        if game.reviewed_actions < len(game.actions):
            stored += game_review(game)
            reviewed += 1
    return reviewed, stored
