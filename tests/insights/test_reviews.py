"""Operating the decision review: the backfill command and the read-only admin list,
which never shows a decision of a game still in play."""

from __future__ import annotations

import io
import random

from django.core.management import call_command
from django.urls import reverse

from games import engine
from insights.models import Decision
from play.models import Game
from play.services import moves
from tests.play.live_helpers import classic_started, play_game_randomly, playing


def _review_games() -> str:
    out = io.StringIO()
    call_command("review_games", stdout=out)
    return out.getvalue()


def test_review_games_stores_the_decisions_of_games_not_reviewed_yet(db, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user, "ann1", "bob1")
    game = play_game_randomly(table, users, random.Random(2))
    assert not Decision.objects.filter(game=game).exists()  # no task ran: nothing committed
    count_line = _review_games()
    count = Decision.objects.filter(game=game).count()
    assert count > 0 and f"stored {count} decision(s)" in count_line
    assert "reviewed 0 game(s), stored 0 decision(s)" in _review_games()


def test_the_admin_lists_decisions_of_games_over_but_not_of_a_game_in_play(
    client, db, make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user, "ann3", "bob3")
    over = play_game_randomly(table, users, random.Random(4))
    other, others = classic_started(make_user, "ann5", "bob5")
    game = playing(other)
    seat = engine.legal_actions(game.state)["seat"]
    mover = others[game.player_entry(seat)["user"]]
    moves.game_act(table=other, player=mover, action={"action": "stand"}, version=None)
    _review_games()
    in_play = Game.objects.get(pk=game.pk)
    assert in_play.is_playing
    hidden = Decision.objects.get(game=in_play)
    shown = list(Decision.objects.filter(game=over))
    assert shown

    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:insights_decision_changelist") + "?all=").content.decode()
    for decision in shown[:5]:
        assert reverse("admin:insights_decision_change", args=[decision.pk]) in page
    assert reverse("admin:insights_decision_change", args=[hidden.pk]) not in page
    response = client.get(reverse("admin:insights_decision_change", args=[hidden.pk]))
    assert response.status_code in (302, 404)
    opened = client.get(reverse("admin:insights_decision_change", args=[shown[0].pk]))
    assert opened.status_code == 200 and shown[0].situation in opened.content.decode()
