"""Helpers for live-table tests: play a table through its services, check the ledger."""

from __future__ import annotations

import datetime
import random
from typing import Any

from django.utils import timezone

from accounts.models import Account, LedgerEntry
from accounts.services import GRANTS_ACCOUNT_CODE, chips_in_circulation
from games import engine
from play.clock import sweep
from play.models import Game
from play.services import moves, seating
from tables import services
from tables.models import Table


def conservation_holds() -> bool:
    """Every wallet plus every escrow equals what grants put in."""
    granted = -Account.objects.get(code=GRANTS_ACCOUNT_CODE).balance
    return chips_in_circulation() == granted


def escrows_empty() -> bool:
    return not Account.objects.filter(kind=Account.Kind.ESCROW).exclude(balance=0).exists()


def playing(table: Table) -> Game | None:
    return Game.objects.filter(table=table, status=Game.Status.PLAYING).first()


def latest(table: Table) -> Game:
    return Game.objects.filter(table=table).order_by("-number").first()


def user_of(game: Game, seat_id: str, users: dict[int, Any]) -> Any:
    entry = game.player_entry(seat_id)
    assert entry is not None
    return users[entry["user"]]


def random_move(game: Game, rng: random.Random) -> dict[str, Any]:
    turn = engine.legal_actions(game.state)
    assert turn is not None
    choice = rng.choice(turn["actions"])
    move: dict[str, Any] = {"action": choice["action"]}
    if "amounts" in choice:
        move["amount"] = rng.choice(choice["amounts"])
    elif "min" in choice:
        key = "position" if choice["action"] == "cut" else "amount"
        move[key] = rng.randint(choice["min"], choice["max"])
    return move


def play_game_randomly(table: Table, users: dict[int, Any], rng: random.Random, limit=2000):
    """Play the game in play to its end with random legal moves of the seats on turn."""
    game = playing(table)
    assert game is not None
    for _ in range(limit):
        if not play_step(table, users, rng, game.number):
            return Game.objects.get(table=table, number=game.number)
    raise AssertionError("the game did not end")


def play_step(table: Table, users: dict[int, Any], rng: random.Random, number: int) -> bool:
    """One move of game `number` (a random legal move, or the sweep for an AI seat);
    False once that game is over."""
    game = playing(table)
    if game is None or game.number != number:
        return False
    seat_id = engine.legal_actions(game.state)["seat"]
    entry = game.player_entry(seat_id)
    if entry["ai"]:
        sweep_after(game.deadline)
        return True
    move = random_move(game, rng)
    if move["action"] == "new_game":
        move = {"action": "next_round"} if game.state.get("phase") == "over" else move
    moves.game_act(table=table, player=users[entry["user"]], action=move, version=None)
    return True


def sweep_after(moment: datetime.datetime | None, seconds: float = 0.001) -> int:
    now = (moment or timezone.now()) + datetime.timedelta(seconds=seconds)
    return sweep.deadlines_sweep(now=now)


def ledger_for(game: Game) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(game=game).order_by("id"))


def classic_started(make_user: Any, ann: str = "ann", bob: str = "bob") -> tuple[Table, dict]:
    """A classic match of two new players, dealt: the table and its users by pk."""
    first, second = make_user(ann), make_user(bob)
    table = services.table_create(variant="classic", name=f"Классика {ann}", created_by=first)
    seating.seat_take(table=table, player=first)
    seating.seat_take(table=table, player=second)
    moves.game_start(table=table, by=first)
    return table, {first.pk: first, second.pk: second}


def game_over(variant: str, players: list[Any], *, private: bool = False, **fields: Any) -> Game:
    """A whole game of `variant` played through live play's services by `players`."""
    table = services.table_create(
        variant=variant,
        name=f"{variant} {players[0]}",
        private=private,
        created_by=players[0],
        **fields,
    )
    for player in players:
        seating.seat_take(table=table, player=player, invite=table.invite_code or None)
    if playing(table) is None:
        moves.game_start(table=table, by=players[0])
    game = play_game_randomly(table, {p.pk: p for p in players}, random.Random(5))
    assert game.status == Game.Status.FINISHED
    return game
