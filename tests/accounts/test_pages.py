"""The account pages: the chip statement's links, the header's balance and its JSON."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from play.services import moves, seating
from tables import services
from tests.play.live_helpers import play_game_randomly


@pytest.fixture
def played(db, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600  # one bank, then nothing
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="banker36", name="Банк", stake=10, created_by=ann)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=ann)
    game = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, random.Random(5))
    return game, ann, bob


def test_each_round_line_of_the_statement_links_to_its_replay(client, played):
    game, ann, bob = played
    for player in (ann, bob):
        client.force_login(player)
        html = client.get(reverse("chips")).content.decode()
        assert f'href="{reverse("game_replay", args=[game.pk])}"' in html
        assert "«Банк», игра 1: повтор" in html


def test_a_statement_entry_links_to_its_replay(client, played):
    game, ann, _bob = played
    client.force_login(ann)
    entry = game.ledger_entries.filter(destination__owner=ann).first() or (
        game.ledger_entries.filter(source__owner=ann).first()
    )
    html = client.get(reverse("chips_entry", args=[entry.pk])).content.decode()
    assert reverse("game_replay", args=[game.pk]) in html


def test_the_header_shows_the_balance_and_links_the_hand_history(client, make_user):
    client.force_login(make_user())
    html = client.get(reverse("lobby")).content.decode()
    assert "data-chip-balance>10\u00a0000<" in html
    assert f'href="{reverse("history")}"' in html


def test_the_history_link_is_for_signed_in_players_only(client, db):
    assert f'href="{reverse("history")}"' not in client.get(reverse("lobby")).content.decode()


def test_the_balance_json_is_read_only_and_fresh(client, make_user):
    assert client.get(reverse("chips_balance")).json() == {"balance": None, "bonus": False}
    client.force_login(make_user())
    response = client.get(reverse("chips_balance"))
    assert response.json() == {"balance": 10_000, "bonus": False}
    assert "no-cache" in response["Cache-Control"] or "no-store" in response["Cache-Control"]
    assert client.post(reverse("chips_balance")).status_code == 405
