"""The decision review stored with the hand history, and the coach's JSON for a seated
player of a solo or blackjack table: values from the seat's own view, the last round's
mistakes and the session's summary."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games import engine
from games.strategy import solo
from games.strategy.review import assess
from insights.coach import situation_label
from insights.models import Decision
from insights.reviews import game_review
from lobby import services as lobby_services
from play.models import Game
from play.services import moves, records, seating
from tables import services as tables_services
from tests.play.live_helpers import classic_started, play_game_randomly, playing


@pytest.fixture
def solo_table(db, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann = make_user("ann")
    table = lobby_services.table_open(by=ann, variant="solo", private=True)
    seating.seat_take(table=table, player=ann)
    return table, ann


def _act(table, user, **action):
    return moves.game_act(table=table, player=user, action=action, version=None)


def test_the_coach_shows_the_values_of_the_bet_and_then_of_draw_and_stand(client, solo_table):
    table, ann = solo_table
    client.force_login(ann)
    game = playing(table)
    first = game.state["hand"][0]
    data = client.get(reverse("coach_state", args=[table.pk])).json()
    assert data["type"] == "coach" and data["unit"] == "coins"
    hint = data["hint"]
    assert hint["situation"].startswith("bet:")
    ev = solo.first_card_ev(first)
    amounts = {o["amount"]: o["value"] for o in hint["options"]}
    assert amounts[1] == pytest.approx(ev, abs=1e-4)
    best = max(amounts, key=amounts.get)
    assert next(o for o in hint["options"] if o["best"])["amount"] == best
    assert hint["chosen"] is None and hint["loss"] is None
    # Any amount in the range is a choice: the bounds and one coin's value value it.
    assert hint["bet"] == {"min": 1, "max": 300, "per_coin": pytest.approx(ev, abs=1e-6)}
    assert data["game"] == game.number and data["last_round"] is None
    # The figures are at least as new as the table version they carry.
    table.refresh_from_db()
    assert data["version"] == table.version

    _act(table, ann, action="bet", amount=100)
    hint = client.get(reverse("coach_state", args=[table.pk])).json()["hint"]
    assert {o["action"] for o in hint["options"]} == {"hit", "stand"}
    stand, draw = solo.compute_strategy().values([first])
    values = {o["action"]: o["value"] for o in hint["options"]}
    assert values == {
        "hit": pytest.approx(100 * draw, abs=1e-3),
        "stand": pytest.approx(100 * stand, abs=1e-3),
    }
    assert {o["label"] for o in hint["options"]} == {"Ещё карту", "Хватит"}


def test_a_finished_round_is_reviewed_with_its_mistakes_and_the_session_summary(client, solo_table):
    table, ann = solo_table
    client.force_login(ann)
    game = playing(table)
    # Stand on the first card whatever it is: below 11 drawing is always better, so a
    # stand on a 6..9 or J/Q/K is a mistake the review must show with its cost.
    _act(table, ann, action="bet", amount=10)
    _act(table, ann, action="stand")
    data = client.get(reverse("coach_state", args=[table.pk])).json()
    assert data["hint"] is None  # the round is over: nothing to decide but the next round
    last = data["last_round"]
    assert last["round"] == 1 and last["decisions"] == 2 and len(last["review"]) == 2
    stand = last["review"][1]
    assert stand["chosen"] == "Хватит"
    first = game.state["hand"][0]
    s, d = solo.compute_strategy().values([first])
    assert stand["loss"] == pytest.approx(max(0.0, 10 * (d - s)), abs=1e-3)
    assert stand["mistake"] == (d > s)
    session = data["session"]
    assert session["decisions"] == 2
    stored = Decision.objects.filter(game=game, user=ann).order_by("number")
    assert [d.number for d in stored] == [0, 1]
    assert stored[0].situation == f"bet:{'T' if first[0] == 'T' else first[0]}"


def test_the_coach_is_for_seated_players_of_training_tables_only(client, solo_table, make_user):
    table, _ann = solo_table
    bob = make_user("bob")
    client.force_login(bob)
    response = client.get(reverse("coach_state", args=[table.pk]))
    assert response.status_code == 403 and response.json()["code"] == "not_seated"
    classic = tables_services.table_create(variant="classic", name="К", created_by=bob)
    response = client.get(reverse("coach_state", args=[classic.pk]))
    assert response.status_code == 400 and response.json()["code"] == "not_coached"
    client.logout()
    assert client.get(reverse("coach_state", args=[table.pk])).status_code == 302


def test_a_game_that_ends_is_reviewed_once_with_every_human_decision(
    db, make_user, settings, django_capture_on_commit_callbacks, monkeypatch
):
    # The task runs where it is sent: in this process, as a worker would run it (with
    # REDIS_URL set the suite's Celery app would otherwise queue it for a worker).
    from config.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user)
    ann, bob = users.values()
    with django_capture_on_commit_callbacks(execute=True):
        game = play_game_randomly(table, users, random.Random(3))
    assert game.status == Game.Status.FINISHED
    game.refresh_from_db()
    assert game.reviewed_actions == len(game.actions)  # the task ran on commit
    decisions = list(Decision.objects.filter(game=game).order_by("number"))
    hits_and_stands = [
        n for n, a in enumerate(game.actions) if a["action"] in ("hit", "stand", "timeout")
    ]
    assert [d.number for d in decisions] == hits_and_stands
    assert {d.user_id for d in decisions} == {ann.pk, bob.pk}
    assert all(d.loss >= 0 and d.situation[:4] in ("hard", "soft", "pair") for d in decisions)
    assert game_review(game) == 0  # nothing new: each decision is stored once
    assert Decision.objects.filter(game=game).count() == len(decisions)
    # Each stored value is the one the seat's own view gives at that point of the replay.
    record = records.game_record(game)
    state, _ = engine.new_game(
        "classic", seats=record["seats"], options=record["options"], seed=record["seed"]
    )
    by_number = {d.number: d for d in decisions}
    for n, action in enumerate(record["actions"]):
        if n in by_number:
            assessment = assess("classic", engine.view(state, action["seat"]))
            stored = {o["action"]: o["value"] for o in by_number[n].options}
            assert stored == {o.action: round(o.value, 4) for o in assessment.options}
        state, _ = engine.apply(state, action)


def test_the_replay_shows_each_of_the_viewers_decisions_with_its_values(
    client, db, make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user)
    ann, _bob = users.values()
    game = play_game_randomly(table, users, random.Random(8))
    client.force_login(ann)
    data = client.get(reverse("game_replay_data", args=[game.pk])).json()
    assert data["unit"] == "очки"
    shown = {n - 1: step["decision"] for n, step in enumerate(data["steps"]) if "decision" in step}
    mine = {d.number: d for d in Decision.objects.filter(game=game, user=ann)}
    assert mine and set(shown) == set(mine)  # every one of ann's, none of bob's
    for number, decision in shown.items():
        stored = mine[number]
        assert [o["value"] for o in decision["options"]] == [o["value"] for o in stored.options]
        assert sum(o["chosen"] for o in decision["options"]) == 1
        assert sum(o["best"] for o in decision["options"]) >= 1
        assert decision["loss"] == stored.loss and decision["mistake"] == (stored.loss > 1e-9)
        assert {o["label"] for o in decision["options"]} <= {"Ещё карту", "Хватит"}
        assert game.actions[number]["seat"] == "ann"
    review = data["steps"][-1]["review"]
    assert review["decisions"] == len(mine)
    assert review["lost"] == pytest.approx(sum(d.loss for d in mine.values()), abs=1e-3)


def test_a_total_is_named_with_its_russian_plural_form():
    assert [situation_label(f"total{n}") for n in (2, 5, 11, 12, 21, 22, 25)] == [
        "2 очка",
        "5 очков",
        "11 очков",
        "12 очков",
        "21 очко",
        "22 очка",
        "25 очков",
    ]
    assert situation_label("hard16:T") == "16 против десятки"
    assert situation_label("pairT:A") == "пара 10 против туза"
