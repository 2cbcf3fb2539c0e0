"""A player's public profile at /players/<name>/ (issue 21, item 3): the facts of games
that are over, for anyone, with replays linked only for those who played."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.services import wallet_for
from insights.models import Decision
from insights.skill import player_skills
from play.models import Game
from play.services import moves, seating
from tables import services
from tests.play.live_helpers import game_over, playing

pytestmark = pytest.mark.django_db


def _decisions(user: Any, game: Game, losses: list[float]) -> None:
    """Stored decisions with the given losses (the review's rows, written directly)."""
    Decision.objects.bulk_create(
        Decision(
            game=game,
            user=user,
            variant=game.variant,
            seat=user.username,
            number=1000 + i,
            round=1,
            situation="total15",
            options=[{"action": "hit", "value": 0.0}, {"action": "stand", "value": -loss}],
            chosen={"action": "stand"},
            best={"action": "hit"},
            loss=loss,
        )
        for i, loss in enumerate(losses)
    )


def _row(html: str, attribute: str, value: Any) -> str:
    found = re.search(rf'<tr data-{attribute}="{value}">.*?</tr>', html, re.S)
    assert found, f"no row {attribute}={value}"
    return found.group(0)


def _figure(row: str, name: str) -> str:
    found = re.search(rf'data-figure="{name}"[^>]*>(.*?)</td>', row, re.S)
    assert found, f"no figure {name}"
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


@pytest.fixture
def played(make_user, settings):
    """ann and bob, who played a banker36 bank (for chips) and a classic match."""
    settings.GAME_INTERLUDE_SECONDS = 3600  # no next game starts behind the finished one
    ann, bob = make_user("ann"), make_user("bob")
    bank = game_over("banker36", [ann, bob], stake=10, entry_limit=100)
    match = game_over("classic", [ann, bob], match_length=5)
    return ann, bob, bank, match


def test_anyone_signed_in_or_not_sees_the_facts_of_a_played_account(played):
    ann, _bob, bank, match = played
    _decisions(ann, match, [0.0] * 50 + [2.0] * 10)  # enough for a classic rating

    response = Client().get(reverse("people:profile", args=["ann"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>ann</h1>" in html
    # The page shows the date in the site's time zone (Moscow): after 21:00 UTC that is
    # already the next day.
    joined = timezone.localtime(ann.date_joined).date().isoformat()
    assert re.search(rf'data-figure="member-since"><time datetime="{joined}', html)
    assert re.search(r'data-figure="games">2<', html)
    banker36, classic = _row(html, "variant", "banker36"), _row(html, "variant", "classic")
    assert _figure(banker36, "games") == _figure(classic, "games") == "1"
    # The net result in chips is the ledger's: the wallet's change over the bank.
    net = wallet_for(ann).balance - 10_000
    assert net == bank.result["deltas"]["ann"]
    shown = _figure(banker36, "net").replace("\u2212", "-").replace("\u00a0", "")
    assert int(shown) == net
    assert _figure(classic, "net") == "—"  # classic is played for points, not chips
    skill = player_skills(ann)["classic"][1]
    margin = f"{skill.margin:.2f}".replace(".", ",")
    assert f"± {margin}" in _figure(classic, "skill")
    assert "интервал от" in _figure(classic, "skill")
    assert "нет: решений 0 из 50" in _figure(banker36, "skill")
    for game in (bank, match):
        assert f'data-game="{game.pk}"' in html


def test_an_unknown_or_deactivated_name_is_not_found(client, make_user):
    make_user("gone", is_active=False)
    for name in ("nobody", "gone", "a\x00b"):
        assert client.get(reverse("people:profile", args=[name])).status_code == 404


def test_a_new_player_without_games_has_a_profile_that_says_so(client, make_user):
    make_user("novice")
    html = client.get(reverse("people:profile", args=["novice"])).content.decode()
    assert "Оконченных игр пока нет." in html and 'data-figure="games">0<' in html


def test_replays_are_linked_only_for_viewers_who_played_in_the_game(played, make_user):
    _ann, bob, bank, match = played
    url = reverse("people:profile", args=["ann"])
    replays = {reverse("game_replay", args=[game.pk]) for game in (bank, match)}

    for viewer in (None, make_user("carl")):
        client = Client()
        if viewer:
            client.force_login(viewer)
        html = client.get(url).content.decode()
        assert f'data-game="{bank.pk}"' in html
        assert not any(replay in html for replay in replays)
        assert "/history/" not in html.split("<main", 1)[1]

    client = Client()
    client.force_login(bob)  # played in both, looking at ann's page
    html = client.get(url).content.decode()
    assert all(f'href="{replay}"' in html for replay in replays)


def test_a_private_tables_game_is_listed_only_for_those_who_played_it(make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann, bob = make_user("ann"), make_user("bob")
    secret = game_over("classic", [ann, bob], private=True, match_length=5)
    url = reverse("people:profile", args=["ann"])

    outsider = Client()
    html = outsider.get(url).content.decode()
    assert f'data-game="{secret.pk}"' not in html and secret.table.name not in html
    assert _figure(_row(html, "variant", "classic"), "games") == "1"  # counted, not named

    guest = Client()
    guest.force_login(bob)
    assert f'data-game="{secret.pk}"' in guest.get(url).content.decode()


def test_a_game_in_play_is_neither_listed_nor_counted(make_user, settings):
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(
        variant="banker36", name="Идёт", stake=10, entry_limit=100, created_by=ann
    )
    for player in (ann, bob):
        seating.seat_take(table=table, player=player)
    moves.game_start(table=table, by=ann)
    game = playing(table)
    assert game is not None
    assert wallet_for(ann).balance + wallet_for(bob).balance < 20_000  # the bank is staked
    _decisions(ann, game, [0.0] * 60)

    html = Client().get(reverse("people:profile", args=["ann"])).content.decode()

    assert f'data-game="{game.pk}"' not in html
    assert 'data-variant="banker36"' not in html and "Оконченных игр пока нет." in html


def test_the_lobby_leaderboard_links_each_name_to_the_profile(client, played, monkeypatch):
    from insights import skill

    monkeypatch.setattr(skill, "MIN_DECISIONS", 10)
    ann, _bob, _bank, match = played
    _decisions(ann, match, [0.5] * 20)
    html = client.get(reverse("lobby")).content.decode()
    board = re.search(r'<div class="board" data-variant="classic">.*?</div>', html, re.S)
    assert f'<a href="{reverse("people:profile", args=["ann"])}">ann</a>' in board.group(0)
