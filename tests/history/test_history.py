"""The hand history pages without a browser: who may see what, pagination, the replay's
steps as one player saw them, the draws «Проверить» compares, and nothing of a game in
play beyond its commitment."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.urls import reverse

from contract.http import Replay
from games import shoe
from games.cards import shoe as fresh_stock
from games.shuffle import shuffled
from history.replays import DECK_OF
from history.views import GAMES_PER_PAGE
from play.models import Game
from play.services import closing, moves, seating
from tables import services
from tests.contract.http_bodies import assert_body
from tests.play.live_helpers import play_game_randomly, playing


def _cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    found: set[str] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= _cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= _cards_in(item)
    elif (
        isinstance(value, str)
        and len(value) == 2
        and value[0] in "23456789TJQKA"
        and value[1] in "SHDC"
    ):
        found.add(value)
    return found


@pytest.fixture
def classic(db, make_user, settings):
    """A two-player classic match played to its end; the next one waits."""
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="classic", name="Классика", created_by=ann)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=ann)
    game = play_game_randomly(table, {ann.pk: ann, bob.pk: bob}, random.Random(5))
    return game, ann, bob


@pytest.fixture
def bank(db, make_user, settings):
    """A banker36 bank in play."""
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="banker36", name="Банк", stake=10, entry_limit=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=make_user("root", is_staff=True))
    return table, ann, bob


def test_the_history_needs_a_signed_in_player(client, classic):
    game, _ann, _bob = classic
    for url in (
        reverse("history"),
        reverse("game_replay", args=[game.pk]),
        reverse("game_replay_data", args=[game.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_history_lists_the_players_finished_games_with_their_result(client, classic, make_user):
    game, ann, _bob = classic
    client.force_login(ann)
    page = client.get(reverse("history")).content.decode()
    assert reverse("game_replay", args=[game.pk]) in page
    row = page[page.index(f'data-game="{game.pk}"') :]
    row = row[: row.index("</tr>")]
    delta = game.result["deltas"]["ann"]
    assert (f"{delta:+g}".replace("-", "−") if delta else "0") + "</span>" in row
    assert "очки" in row and "Классика" in row
    # Someone who did not play sees none of it.
    client.force_login(make_user("eve"))
    page = client.get(reverse("history")).content.decode()
    assert reverse("game_replay", args=[game.pk]) not in page
    assert "Сыгранных игр пока нет" in page


def test_the_history_is_paginated_newest_first(client, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    solo = make_user("solo")
    table = services.table_create(variant="solo", name="Соло")
    seating.seat_take(table=table, player=solo)  # the first game starts by itself
    assert playing(table) is not None
    for _ in range(GAMES_PER_PAGE + 2):  # each «Новая игра» ends a record
        moves.solo_new_game(table=table, player=solo)
    finished = list(
        Game.objects.filter(table=table, status="finished").order_by("-finished_at", "-id")
    )
    assert len(finished) == GAMES_PER_PAGE + 2
    assert playing(table) is not None  # the game in play is not in the history
    client.force_login(solo)
    first = client.get(reverse("history"))
    rows = [g.pk for g in first.context["page"]]
    assert rows == [g.pk for g in finished[:GAMES_PER_PAGE]]
    assert "?page=2" in first.content.decode()
    second = client.get(reverse("history"), {"page": 2})
    assert [g.pk for g in second.context["page"]] == [g.pk for g in finished[GAMES_PER_PAGE:]]
    assert playing(table).pk not in rows + [g.pk for g in second.context["page"]]


def test_another_user_cannot_open_a_replay_and_an_admin_can(client, classic, make_user):
    game, _ann, _bob = classic
    client.force_login(make_user("eve"))
    assert client.get(reverse("game_replay", args=[game.pk])).status_code == 404
    assert client.get(reverse("game_replay_data", args=[game.pk])).status_code == 404
    client.force_login(make_user("boss", is_staff=True))
    assert client.get(reverse("game_replay", args=[game.pk])).status_code == 200
    response = client.get(reverse("game_replay_data", args=[game.pk]))
    replay = assert_body(response, Replay)  # as docs/openapi.yaml's `gameReplay` defines it
    assert replay.seat is None and replay.steps and replay.status == "finished"
    assert replay.verify.seed == game.seed  # type: ignore[union-attr]


def test_a_game_in_play_shows_its_commitment_and_no_seed(client, bank):
    table, ann, _bob = bank
    game = playing(table)
    client.force_login(ann)
    page = client.get(reverse("game_replay", args=[game.pk])).content.decode()
    assert game.commitment in page
    assert game.server_seed not in page and game.seed not in page
    assert "Игра ещё идёт" in page
    data = client.get(reverse("game_replay_data", args=[game.pk]))
    body = data.content.decode()
    assert data.json() == {"game": game.pk, "status": "playing", "commitment": game.commitment}
    assert_body(data, Replay)
    assert game.server_seed not in body and game.seed not in body
    # Nor is a game in play listed in the history.
    assert (
        reverse("game_replay", args=[game.pk])
        not in client.get(reverse("history")).content.decode()
    )


def test_each_step_shows_only_what_the_player_saw_then(client, classic):
    game, ann, bob = classic
    client.force_login(ann)
    response = client.get(reverse("game_replay_data", args=[game.pk]))
    assert_body(response, Replay)
    data = response.json()
    steps = data["steps"]
    assert data["seat"] == "ann"
    assert len(steps) == len(game.actions) + 2  # the deal, one per move, the result
    deal = steps[0]
    # The round in play at the deal (the first, unless a dealer's natural settled it at
    # once): one deck, so no card appears twice among its hands.
    number = int(next(f["value"] for f in deal["scene"]["facts"] if f["label"] == "Раздача"))
    hands = game.result["rounds"][number - 1]["hands"]
    bob_cards = next(h["cards"] for h in hands if h["seat"] == "bob")
    dealer = next(h["cards"] for h in hands if h["seat"] == "dealer")
    ann_cards = next(h["cards"] for h in hands if h["seat"] == "ann")
    seen = _cards_in(deal["scene"]["hands"])
    # Ann sees her two cards and the dealer's up-card; Bob's cards and the hole card are
    # not in her data at all.
    assert set(ann_cards[:2]) | {dealer[0]} == seen
    assert not seen & set(bob_cards), "bob's hidden cards reached ann's replay"
    bob_hand = next(h for h in deal["scene"]["hands"] if h["seat"] == "bob")
    assert bob_hand["cards"] == [] and bob_hand["hidden"] == 2
    dealer_hand = next(h for h in deal["scene"]["hands"] if h["seat"] == "dealer")
    assert dealer_hand["cards"] == dealer[:1] and dealer_hand["hidden"] == 1
    assert not _cards_in(deal["log"][-7:]) & (set(bob_cards) | {dealer[1]})
    # The last step is the record's result: every hand of every round, shown.
    final = steps[-1]
    assert final["final"] is True
    for round_, hands in zip(game.result["rounds"], final["scene"]["rounds"], strict=True):
        assert [h["cards"] for h in hands] == [h["cards"] for h in round_["hands"]]
    # Bob's replay of the same deal shows his cards, not Ann's.
    client.force_login(bob)
    deal = client.get(reverse("game_replay_data", args=[game.pk])).json()["steps"][0]
    seen = _cards_in(deal["scene"]["hands"])
    assert set(bob_cards[:2]) <= seen and not seen & set(ann_cards)


def test_the_replay_page_shows_the_revealed_keys_and_the_record_link(client, classic):
    game, ann, _bob = classic
    client.force_login(ann)
    page = client.get(reverse("game_replay", args=[game.pk])).content.decode()
    for value in (game.commitment, game.server_seed, game.seed):
        assert value in page
    assert reverse("game_record", args=[game.pk]) in page
    assert 'id="verify-form"' in page


def test_the_draws_are_the_seeds_shuffles_card_by_card(client, classic):
    game, ann, _bob = classic
    client.force_login(ann)
    verify = client.get(reverse("game_replay_data", args=[game.pk])).json()["verify"]
    assert verify["seed"] == game.seed
    assert verify["fairness"]["server_seed"] == game.server_seed
    kind, copies = DECK_OF["classic"]
    rounds = game.result["rounds"]
    assert [s["number"] for s in verify["shuffles"]] == list(range(len(rounds)))
    for entry, round_ in zip(verify["shuffles"], rounds, strict=True):
        assert entry["fresh"] and entry["cut"] is None and len(entry["passes"]) == 1
        dealt = entry["passes"][0]
        order = shuffled(fresh_stock(kind, copies), game.seed, entry["number"])
        assert dealt == order[: len(dealt)]
        # Every card of the round's hands was dealt from this shuffle, and nothing else.
        in_hands = sorted(card for hand in round_["hands"] for card in hand["cards"])
        assert sorted(dealt) == in_hands


def test_a_salon_shoe_logs_its_cut_and_a_solo_restart_its_second_pass():
    from games import engine

    seed = "ab" * 32
    with shoe.recording() as log:
        state, _ = engine.new_game(
            "salon",
            seats=[{"id": "ann", "chips": 500}, {"id": "bob", "chips": 500}],
            options={"deals": 1, "cut": True},
            seed=seed,
        )
        state, _ = engine.apply(state, {"seat": state["cutter"], "action": "cut", "position": 30})
    order = shuffled(fresh_stock("standard52", 2), seed, 0)
    cut = order[30:] + order[:30]
    assert log[0]["lot"] == ["ann", "bob"] and log[1]["shuffle"] == 0 and log[2] == {"cut": 30}
    assert [e["card"] for e in log[3:]] == cut[:4]
    with shoe.recording() as log:
        state, _ = engine.new_game("solo", seats=[{"id": "ann"}], seed=seed)
        state, _ = engine.apply(state, {"seat": "ann", "action": "restart"})
    cards = [e.get("card") for e in log if "card" in e]
    assert {"redeal": True} in log and cards[:2] == cards[2:]
    assert shoe._LOG.get() is None  # nothing is kept outside the context


def test_the_replay_json_is_plain_json(client, classic):
    game, ann, _bob = classic
    client.force_login(ann)
    response = client.get(reverse("game_replay_data", args=[game.pk]))
    assert response["Content-Type"].startswith("application/json")
    json.loads(response.content)


def test_a_voided_game_is_listed_as_voided_and_replays_to_where_it_stopped(client, bank):
    table, ann, _bob = bank
    game = closing.game_void(game=playing(table))
    client.force_login(ann)
    page = client.get(reverse("history")).content.decode()
    row = page[page.index(f'data-game="{game.pk}"') :]
    assert "отменена" in row[: row.index("</tr>")]
    data = client.get(reverse("game_replay_data", args=[game.pk])).json()
    assert data["status"] == "voided"
    assert data["steps"][-1]["title"] == "Игра отменена"
    assert data["steps"][-2]["scene"]["turn"] is None  # nobody acts in a voided game
    assert data["verify"]["seed"] == game.seed
