"""A game's hand record as a JSON download, for its players (and admins) only."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from contract.table_out import HandRecord
from games.record import replay
from play.services import moves, seating
from tables import services
from tests.contract.http_bodies import assert_body
from tests.play.live_helpers import play_game_randomly, playing


@pytest.fixture
def bank(db, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600  # the next bank waits: one game to look at
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="banker36", name="B", stake=10, entry_limit=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=make_user("root", is_staff=True))
    return table, ann, bob


def test_a_player_downloads_the_record_without_its_seed_while_the_game_is_in_play(client, bank):
    table, ann, _bob = bank
    game = playing(table)
    client.force_login(ann)
    response = client.get(reverse("game_record", args=[game.pk]))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    record = response.json()
    assert_body(response, HandRecord)  # as contract.http's handRecord endpoint defines it
    assert "seed" not in record and record["result"] is None
    assert record["fairness"]["commitment"] == game.commitment
    assert record["fairness"]["server_seed"] is None
    assert game.seed not in response.content.decode()


def test_once_over_the_downloaded_record_replays_to_its_stored_result(client, bank):
    table, ann, bob = bank
    game = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, random.Random(3))
    client.force_login(bob)
    response = client.get(reverse("game_record", args=[game.pk]))
    assert_body(response, HandRecord)
    record = response.json()
    assert record["seed"] == game.seed
    stored = record.pop("result")
    record.pop("table")
    assert replay(record)["result"] == stored


def test_someone_who_did_not_play_gets_not_found_and_a_visitor_the_sign_in_page(
    client, bank, make_user
):
    table, _ann, _bob = bank
    game = playing(table)
    url = reverse("game_record", args=[game.pk])
    assert client.get(url).status_code == 302
    client.force_login(make_user("eve"))
    assert client.get(url).status_code == 404


def test_the_chip_statement_links_a_stake_to_its_game_record(client, bank):
    table, ann, _bob = bank
    game = playing(table)
    client.force_login(ann if game.state["banker"] == "ann" else _bob)
    html = client.get(reverse("chips")).content.decode()
    assert reverse("game_record", args=[game.pk]) in html


def test_a_program_downloads_a_record_with_a_read_token(bank):
    from django.test import Client

    from accounts import tokens

    table, ann, _bob = bank
    game = playing(table)
    _token, secret = tokens.token_create(user=ann, name="bot", scopes=["read"])
    response = Client().get(
        reverse("game_record", args=[game.pk]), HTTP_AUTHORIZATION=f"Bearer {secret}"
    )
    assert response.status_code == 200
    assert assert_body(response, HandRecord).fairness.commitment == game.commitment


def test_a_program_reads_a_replays_data_with_a_read_token_and_not_with_a_chat_one(bank):
    from django.test import Client

    from accounts import tokens
    from contract.http import ErrorBody, Replay

    table, ann, _bob = bank
    game = playing(table)
    url = reverse("game_replay_data", args=[game.pk])
    _token, secret = tokens.token_create(user=ann, name="bot", scopes=["read"])
    response = Client().get(url, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    assert assert_body(response, Replay).commitment == game.commitment
    _token, chat_only = tokens.token_create(user=ann, name="chat", scopes=["chat"])
    response = Client().get(url, HTTP_AUTHORIZATION=f"Bearer {chat_only}")
    assert response.status_code == 403
    assert assert_body(response, ErrorBody).error.code == "scope_missing"
