"""Issue 17, item 1: the statistics are correct for 0, 1 and 2 decisions on both backends,
and a part of the lobby or the statistics page that fails degrades alone.

The 500 came from a real game: after a `banker36` bank in which the ponter made one
decision, the lobby's leaderboard took a sample standard deviation over one row, which
SQLite's aggregate (Django's STDDEV_SAMP is `statistics.stdev`) refuses where PostgreSQL
returns NULL. These tests play such banks through the services, as a player would, and
load the pages; they run on SQLite by default and on PostgreSQL with DATABASE_URL set.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from typing import Any

import pytest
from django.urls import reverse

from insights import skill
from insights.models import Decision
from insights.reviews import game_review
from insights.skill import MIN_DECISIONS
from play.models import Game
from play.services import moves, seating
from tables import services
from tables.models import Table
from tests.play.live_helpers import playing


def _bank_played(table: Table, users: dict[str, Any]) -> Game:
    """One bank, played as the ponter would: the bet (the bank of one stake offers one
    amount, so it is no choice and no decision), then «Хватит» — one decision. The game
    ends with the bank; its review is what the task run at its end stores."""
    game = playing(table)
    assert game is not None
    ponter = next(users[p["id"]] for p in game.players if p["id"] != game.state["banker"])
    act = moves.game_act
    act(table=table, player=ponter, action={"action": "bet", "amount": 10}, version=None)
    act(table=table, player=ponter, action={"action": "stand"}, version=None)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    game_review(game)
    return game


def _banker36_table(make_user: Any) -> tuple[Table, dict[str, Any]]:
    host, other = make_user("host"), make_user("other")
    table = services.table_create(
        variant="banker36", name="Банк", stake=10, entry_limit=100, created_by=host
    )
    for user in (host, other):
        seating.seat_take(table=table, player=user)
    return table, {"host": host, "other": other}


def _banks_until(make_user: Any, settings: Any, decisions: int) -> tuple[Table, Any]:
    """Banks played at one table until a player has `decisions` decisions (each bank
    gives its ponter one): the table and that player."""
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = _banker36_table(make_user)
    for _ in range(2 * decisions + 1):
        moves.game_start(table=table, by=users["host"])
        _bank_played(table, users)
        for user in users.values():
            if Decision.objects.filter(user=user).count() == decisions:
                return table, user
    raise AssertionError(f"no player reached {decisions} decisions")


def _board(html: str, variant: str) -> str:
    found = re.search(rf'<div class="board" data-variant="{variant}">.*?</div>', html, re.S)
    assert found, f"no {variant} board"
    return found.group(0)


def _pages_answer(client: Any, user: Any) -> dict[str, str]:
    """`/`, `/lobby.json` and `/stats/` for the signed-in user and `/` for a visitor: all
    200; the pages' text."""
    client.force_login(user)
    pages = {}
    for name in ("lobby", "lobby_state", "stats"):
        response = client.get(reverse(name))
        assert response.status_code == 200, name
        pages[name] = response.content.decode()
    client.logout()
    visitor = client.get(reverse("lobby"))
    assert visitor.status_code == 200
    return pages


@pytest.mark.django_db
def test_with_no_decision_the_lobby_the_lobby_json_and_the_statistics_page_answer(
    client, make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = _banker36_table(make_user)
    moves.game_start(table=table, by=users["host"])
    assert not Decision.objects.exists()
    pages = _pages_answer(client, users["host"])
    board = _board(pages["lobby"], "banker36")
    assert f"Пока ни у кого нет {MIN_DECISIONS} решений" in board
    assert skill.player_skills(users["host"]) == {}
    assert skill.leaderboard("banker36") == []


@pytest.mark.django_db
def test_after_a_banker36_bank_with_one_decision_every_page_answers_and_nobody_is_rated(
    client, make_user, settings
):
    table, player = _banks_until(make_user, settings, decisions=1)
    decision = Decision.objects.get(user=player)
    assert decision.variant == "banker36" and decision.situation.startswith("total")
    pages = _pages_answer(client, player)
    assert f"Пока ни у кого нет {MIN_DECISIONS} решений" in _board(pages["lobby"], "banker36")
    assert [row["id"] for row in json.loads(pages["lobby_state"])["tables"]] == [table.pk]
    assert 'data-figure="decisions"' in pages["stats"]
    assert skill.player_skills(player) == {"banker36": (1, None)}
    assert skill.leaderboard("banker36") == []


@pytest.mark.django_db
def test_one_decision_rated_when_the_threshold_is_one_has_no_spread(
    client, make_user, settings, monkeypatch
):
    """Below the real threshold nobody is rated; with the threshold at one, the one
    decision gives its loss as the rating and no interval around it (a spread needs two)."""
    _table, player = _banks_until(make_user, settings, decisions=1)
    monkeypatch.setattr(skill, "MIN_DECISIONS", 1)
    loss = Decision.objects.get(user=player).loss
    [row] = skill.leaderboard("banker36")
    assert row["username"] == player.username
    assert row["skill"].decisions == 1
    assert row["skill"].lost_per_100 == pytest.approx(100 * loss)
    assert row["skill"].high == pytest.approx(100 * loss)
    assert _pages_answer(client, player)["lobby"].count(f'data-player="{player.username}"') == 1


@pytest.mark.django_db
def test_two_decisions_give_the_sample_standard_deviation_of_two(
    client, make_user, settings, monkeypatch
):
    _table, player = _banks_until(make_user, settings, decisions=2)
    monkeypatch.setattr(skill, "MIN_DECISIONS", 2)
    losses = list(Decision.objects.filter(user=player).values_list("loss", flat=True))
    mean, deviation = statistics.mean(losses), statistics.stdev(losses)
    count, rating = skill.player_skills(player)["banker36"]
    assert count == 2 and rating is not None
    assert rating.lost_per_100 == pytest.approx(100 * mean)
    assert rating.high == pytest.approx(100 * (mean + 1.96 * deviation / math.sqrt(2)), abs=1e-9)
    [row] = skill.leaderboard("banker36")
    assert row["skill"].high == pytest.approx(rating.high)
    pages = _pages_answer(client, player)
    assert f'data-player="{player.username}"' in _board(pages["lobby"], "banker36")


@pytest.mark.django_db
def test_two_decisions_with_different_losses_give_their_spread(db, make_user, settings):
    """The spread itself, on stored rows with losses that differ (a real bank's two
    «Хватит» often cost the same): s of {0, 3} is √4.5."""
    _table, player = _banks_until(make_user, settings, decisions=2)
    first, second = Decision.objects.filter(user=player).order_by("pk")
    Decision.objects.filter(pk=first.pk).update(loss=0.0)
    Decision.objects.filter(pk=second.pk).update(loss=3.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(skill, "MIN_DECISIONS", 2)
        _count, rating = skill.player_skills(player)["banker36"]
        [row] = skill.leaderboard("banker36")
    margin = 1.96 * math.sqrt(4.5) / math.sqrt(2)
    assert rating is not None
    assert rating.lost_per_100 == pytest.approx(150.0)
    assert rating.high == pytest.approx(100 * (1.5 + margin))
    assert row["skill"].high == pytest.approx(100 * (1.5 + margin))


# --- a part that fails degrades alone ----------------------------------------------------

NOTE = "Эта часть страницы сейчас недоступна"


def _failing_query(**_filters: Any) -> Any:
    """A real database error, as a broken aggregate gives one (on PostgreSQL it aborts
    the transaction it runs in, unless its part has a savepoint of its own)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM tables_decision")
    raise AssertionError("the query should have failed")


@pytest.fixture
def lobby_with_a_table(make_user: Any) -> tuple[Table, Any]:
    table, users = _banker36_table(make_user)
    return table, users["host"]


@pytest.mark.django_db
def test_a_failing_leaderboard_leaves_the_lobby_rendering_with_its_tables_and_a_note(
    client, lobby_with_a_table, monkeypatch, caplog
):
    table, host = lobby_with_a_table
    monkeypatch.setattr(skill, "leaderboard", lambda variant, size=10: _failing_query())
    client.force_login(host)
    with caplog.at_level("ERROR", logger="tables.parts"):
        response = client.get(reverse("lobby"))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-table-id="{table.pk}"' in html  # the tables are all there
    assert 'id="open-table"' in html  # and the form to open one
    assert NOTE in html and 'data-unavailable="leaderboards"' in html
    assert 'data-unavailable="tables"' not in html
    assert '<div class="board"' not in html
    [record] = [r for r in caplog.records if r.name == "tables.parts"]
    assert "leaderboards" in record.getMessage() and record.exc_info is not None
    # The same for a visitor, and the note in English.
    client.logout()
    client.cookies["django_language"] = "en"
    english = client.get(reverse("lobby"))
    assert english.status_code == 200
    assert "This part of the page is unavailable right now" in english.content.decode()


@pytest.mark.django_db
def test_a_failing_table_list_leaves_the_leaderboards_and_says_so_in_place_of_the_list(
    client, lobby_with_a_table, monkeypatch, caplog
):
    import lobby.views

    _table, host = lobby_with_a_table
    monkeypatch.setattr(lobby.views, "lobby_listing", _failing_query)
    client.force_login(host)
    with caplog.at_level("ERROR", logger="tables.parts"):
        html = client.get(reverse("lobby")).content.decode()
        state = client.get(reverse("lobby_state"))
    assert 'data-unavailable="tables"' in html and '<div class="board"' in html
    assert state.status_code == 200
    body = state.json()
    assert body["tables"] == [] and body["unavailable"] == ["tables"]
    assert body["me"]["balance"] > 0  # the viewer's part still answers
    assert len([r for r in caplog.records if r.name == "tables.parts"]) == 2


@pytest.mark.django_db
def test_a_failing_players_part_leaves_the_table_list_and_says_so_in_its_own_place(
    client, lobby_with_a_table, monkeypatch
):
    import lobby.views

    table, host = lobby_with_a_table
    monkeypatch.setattr(lobby.views, "player_lobby_state", lambda _user: _failing_query())
    client.force_login(host)
    html = client.get(reverse("lobby")).content.decode()
    body = client.get(reverse("lobby_state")).json()
    assert 'data-unavailable="me"' in html and 'data-unavailable="tables"' not in html
    assert f'data-table-id="{table.pk}"' in html
    assert body["unavailable"] == ["me"] and body["me"] is None
    assert [t["id"] for t in body["tables"]] == [table.pk]


@pytest.mark.django_db
def test_one_table_row_that_fails_leaves_the_other_tables_listed(
    client, make_user, monkeypatch, caplog
):
    good = services.table_create(variant="classic", name="Хороший", match_length=7)
    bad = services.table_create(variant="classic", name="Сломанный", match_length=7)
    real = Table.stakes_label

    def stakes(table: Table) -> str:
        if table.pk == bad.pk:
            raise ValueError("a row that cannot be built")
        return real(table)

    monkeypatch.setattr(Table, "stakes_label", stakes)
    with caplog.at_level("ERROR", logger="tables.parts"):
        response = client.get(reverse("lobby"))
        state = client.get(reverse("lobby_state")).json()
    html = response.content.decode()
    assert response.status_code == 200
    assert f'data-table-id="{good.pk}"' in html and f'data-table-id="{bad.pk}"' not in html
    assert [t["id"] for t in state["tables"]] == [good.pk] and state["unavailable"] == []
    assert any(f"table {bad.pk}" in r.getMessage() for r in caplog.records)


@pytest.mark.django_db
def test_failing_figures_leave_the_statistics_page_rendering_with_a_note(
    client, make_user, settings, monkeypatch, caplog
):
    import insights.stats

    _table, player = _banks_until(make_user, settings, decisions=1)
    monkeypatch.setattr(insights.stats, "player_skills", lambda user: _failing_query())
    client.force_login(player)
    with caplog.at_level("ERROR", logger="tables.parts"):
        response = client.get(reverse("stats"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-unavailable="stats"' in html and NOTE in html
    assert "Сыгранных игр пока нет" not in html  # no false «nothing yet»
    assert any("stats" in r.getMessage() for r in caplog.records if r.name == "tables.parts")
