import random

import pytest

from accounts.services import wallet_for
from games.record import replay
from play.models import Game
from play.services import commands, moves, records, seating
from tables import services
from tests.play.live_helpers import (
    conservation_holds,
    escrows_empty,
    play_game_randomly,
    playing,
)


@pytest.mark.django_db
def test_banker36_bank_played_through_services_moves_chips_through_escrow(make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 0
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="banker36", name="B", stake=10, entry_limit=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=make_user("host", is_staff=True))
    game = playing(table)
    assert game is not None
    rng = random.Random(1)
    finished = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, rng)
    assert finished.status == Game.Status.FINISHED
    assert conservation_holds() and escrows_empty()
    record = records.game_record(finished)
    assert replay(record)["result"] == finished.result
    total = wallet_for(ann).balance + wallet_for(bob).balance
    assert total == 20_000
    assert wallet_for(ann).balance - 10_000 == finished.result["deltas"]["ann"]


VARIANT_TABLES = {
    "classic": ({"match_length": 5}, 2, ["easy"]),
    "salon": ({"min_bet": 10, "max_bet": 100, "entry_limit": 100}, 3, []),
    "solo": ({}, 1, []),
    "blackjack": ({}, 1, ["hard", "medium"]),
    "banker36": ({"stake": 10, "entry_limit": 100}, 3, []),
}


@pytest.mark.django_db
@pytest.mark.parametrize("variant", sorted(VARIANT_TABLES))
def test_every_variant_plays_a_whole_game_live_and_its_record_replays(variant, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 0
    fields, humans, ais = VARIANT_TABLES[variant]
    host = make_user("host")
    table = services.table_create(variant=variant, name=variant, created_by=host, **fields)
    users = {}
    for n in range(humans):
        user = host if n == 0 else make_user(f"p{n}")
        users[user.pk] = user
        seating.seat_take(table=table, player=user)
    for level in ais:
        seating.ai_seat_add(table=table, by=host, level=level)
    if playing(table) is None:
        moves.game_start(table=table, by=host)
    finished = play_game_randomly(table, users, random.Random(7))
    assert finished.status == Game.Status.FINISHED
    assert replay(records.game_record(finished))["result"] == finished.result
    assert conservation_holds() and escrows_empty()


@pytest.mark.django_db
def test_a_stored_game_state_comes_back_exactly_key_order_included(make_user):
    # jsonb (PostgreSQL) reorders object keys; the engine's state must round-trip exactly.
    import json

    players = [make_user(name) for name in ("zed", "amy", "mo")]
    table = services.table_create(variant="banker36", name="B", stake=10, entry_limit=100)
    for user in players:
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=make_user("root", is_staff=True))
    game = playing(table)
    in_memory = json.dumps(game.state)
    game.refresh_from_db()
    assert json.dumps(game.state) == in_memory
    assert list(game.state["chips"]) == ["zed", "amy", "mo"]


@pytest.mark.django_db
def test_command_ids_are_forgotten_after_a_day_at_most_once_a_minute(make_user, monkeypatch):
    import datetime

    from django.utils import timezone

    from play.models import ClientCommand

    user = make_user("ida")
    table = services.table_create(variant="classic", name="C")
    old = ClientCommand.objects.create(user=user, table=table, client_id="old", outcome={})
    ClientCommand.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - commands.COMMAND_MEMORY - datetime.timedelta(minutes=1)
    )
    ClientCommand.objects.create(user=user, table=table, client_id="new", outcome={})
    monkeypatch.setattr(commands, "_commands_forgotten_at", None)
    now = timezone.now()
    commands.client_commands_forget(now=now)
    assert list(ClientCommand.objects.values_list("client_id", flat=True)) == ["new"]
    ClientCommand.objects.filter(client_id="new").update(created_at=now - commands.COMMAND_MEMORY)
    commands.client_commands_forget(now=now + datetime.timedelta(seconds=30))
    assert ClientCommand.objects.filter(client_id="new").exists()  # not again within a minute
