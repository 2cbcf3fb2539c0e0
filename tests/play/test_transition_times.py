"""A game's transition is told at one time: its update's `at` is its history entry's `at`
(docs/protocol.md §6), so that a page's log shows a line at the same second live and
after a reload."""

from __future__ import annotations

import json
import random

import pytest
from django.utils import timezone

from games import engine
from lib.jsontext import json_text
from play.clock import sweep
from play.frames import broadcast
from play.frames.viewing import game_history
from play.services import commands, moves, presence, seating
from tables import services
from tables.models import Table
from tests.play.live_helpers import playing, random_move, user_of


@pytest.mark.django_db(transaction=True)
def test_each_transitions_update_carries_the_time_its_history_entry_gives(
    make_user, settings, monkeypatch
):
    settings.GAME_INTERLUDE_SECONDS = 0
    sent: list[dict] = []
    monkeypatch.setattr(
        broadcast,
        "send_frames",
        # As the spectators' sockets receive it.
        lambda table_id, spectator, players: sent.append(json.loads(json_text(spectator))),
    )
    users = {u.pk: u for u in (make_user(f"t{i}") for i in range(3))}
    table = services.table_create(variant="banker36", name="Время", stake=10, entry_limit=100)
    for user in users.values():
        seating.seat_take(table=table, player=user)
        presence.presence_join(table=table, user=user, channel_name=f"time-{user.pk}")
    moves.game_start(table=table, by=make_user("host", is_staff=True))
    rng = random.Random(5)
    for step in range(8):
        game = playing(table)
        if game is None:
            sweep.deadlines_sweep(now=timezone.now())
            game = playing(table)
        user = user_of(game, engine.legal_actions(game.state)["seat"], users)
        move = random_move(game, rng)
        by_id = Table(pk=table.pk)
        commands.command_run(
            user=user,
            table=by_id,
            client_id=f"t-{step}",
            run=lambda by_id=by_id, user=user, move=move: moves.game_act(
                table=by_id, player=user, action=move, version=None
            ),
            plays_overdue=True,
        )
    told = [frame for frame in sent if "at" in frame]
    assert len(told) >= 9  # the deal and every move
    for frame in sent:
        if frame["game"] is None or "at" not in frame:
            continue
        game = table.games.get(number=frame["game"]["number"])
        entries = {entry.version: entry.at for entry in game_history(game, None)}
        assert entries[frame["game"]["view"]["version"]] == frame["at"]
    # A change that is not one of the game's transitions carries no `at`.
    assert all("at" not in frame for frame in sent if not frame.get("events"))
