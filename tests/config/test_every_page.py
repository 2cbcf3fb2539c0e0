"""Every page a player can open answers, in Russian and in English, for a player with
games over: a catalogue entry whose placeholders the template cannot fill breaks a page
in one language only, and only once there is something to show."""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.bots import bot_create
from accounts.models import LedgerEntry
from accounts.services import wallet_for
from lobby import services as lobby_services
from play.models import Game
from play.services import moves, seating
from tables.variants import VARIANTS
from tests.play.live_helpers import game_over, play_step, playing
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

# Named URLs that are no page to GET: what a form or a script posts, and the admin's.
NOT_PAGES = {
    "set_language",
    "logout",
    "bonus_claim",
    "access_token_revoke",
    "table_new",
    "quick_start",
    "quick_seat",
    "people:block",
    "people:unblock",
    "people:friend_request",
    "people:friend_accept",
    "people:friend_decline",
    "people:friend_cancel",
    "people:friend_remove",
    "people:invite_send",
    "people:invite_dismiss",
    "moderation:notice_read",
    "tournament_register",
    "tournament_withdraw",
    "push_subscriptions",
}


def _named_urls(patterns: list[Any], namespace: str = "") -> Iterator[str]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _named_urls(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}{pattern.name}"


@pytest.fixture
def veteran(make_user, settings):
    """ann, with games over at four variants' tables, each with rounds played, and
    the tables, games and a ledger entry to open pages of."""
    settings.GAME_INTERLUDE_SECONDS = 3600  # no next game starts behind a finished one
    ann, bob = make_user("ann"), make_user("bob")
    games = {
        "banker36": game_over("banker36", [ann, bob], stake=10, entry_limit=100),
        "classic": game_over("classic", [ann, bob], match_length=5),
    }
    bob_leaves = Game.objects.get(pk=games["banker36"].pk).table
    seating.seat_leave(table=bob_leaves, player=bob)
    seating.seat_leave(table=bob_leaves, player=ann)

    solo = lobby_services.table_one_click(by=ann, variant="solo")
    rng = random.Random(3)
    game = playing(solo)
    for _ in range(6):
        play_step(solo, {ann.pk: ann}, rng, game.number)
    moves.solo_new_game(table=solo, player=ann)
    games["solo"] = Game.objects.get(pk=game.pk)

    training = lobby_services.table_one_click(by=ann, variant="blackjack", ai_levels=("medium",))
    moves.game_start(table=training, by=ann)
    game = playing(training)
    for _ in range(12):
        play_step(training, {ann.pk: ann}, rng, game.number)
    moves.session_end(table=training, player=ann)
    games["blackjack"] = Game.objects.get(pk=game.pk)

    for variant, game in games.items():
        assert game.status == Game.Status.FINISHED and game.state["rounds"], variant
    entry = LedgerEntry.objects.for_account(wallet_for(ann)).order_by("-id").first()
    return ann, bob, games, entry


def _pages(ann: Any, bob: Any, games: dict[str, Game], entry: LedgerEntry) -> dict[str, list]:
    """Each named URL with the paths of it to open (one per game, table or variant)."""
    tables = {variant: game.table_id for variant, game in games.items()}
    ids = [game.pk for game in games.values()]
    bot = ann.bots.first() or bot_create(owner=ann, username="ann_bot")
    event = Tournament.objects.filter(name="Заезд").first() or _an_event(ann, bob)
    return {
        "web_manifest": [reverse("web_manifest")],
        "service_worker": [reverse("service_worker")],
        "offline": [reverse("offline")],
        "javascript-catalog": [reverse("javascript-catalog")],
        "signup": [reverse("signup")],
        "login": [reverse("login")],
        "password_change": [reverse("password_change")],
        "password_change_done": [reverse("password_change_done")],
        "password_reset": [reverse("password_reset")],
        "password_reset_done": [reverse("password_reset_done")],
        "password_reset_confirm": [reverse("password_reset_confirm", args=["MQ", "stale"])],
        "password_reset_complete": [reverse("password_reset_complete")],
        "chips": [reverse("chips")],
        "access_tokens": [reverse("access_tokens")],
        "bot_accounts": [reverse("bot_accounts")],
        "bot_tokens": [reverse("bot_tokens", args=[bot.pk])],
        "bot_ratings": [reverse("bot_ratings")],
        "chips_balance": [reverse("chips_balance")],
        "chips_entry": [reverse("chips_entry", args=[entry.pk])],
        "lobby": [reverse("lobby"), reverse("lobby") + "?open=1"],
        "lobby_state": [reverse("lobby_state")],
        "rules_index": [reverse("rules_index")],
        "privacy": [reverse("privacy")],
        "rules": [reverse("rules", args=[variant]) for variant in VARIANTS],
        "table": [reverse("table", args=[pk]) for pk in tables.values()],
        "table_screen": [reverse("table_screen", args=[tables["classic"]])],
        "table_qr": [reverse("table_qr", args=[tables["classic"]])],
        "history": [reverse("history")],
        "game_replay": [reverse("game_replay", args=[pk]) for pk in ids],
        "game_replay_data": [reverse("game_replay_data", args=[pk]) for pk in ids],
        "game_record": [reverse("game_record", args=[pk]) for pk in ids],
        "stats": [reverse("stats")],
        "stats_of": [reverse("stats_of", args=[ann.username])],  # one's own: the same page
        "coach_state": [reverse("coach_state", args=[tables[v]]) for v in ("solo", "blackjack")],
        "people:profile": [
            reverse("people:profile", args=[name]) for name in ("ann", "bob", bot.username)
        ],
        "people:friends": [reverse("people:friends")],
        "people:friends_panel": [reverse("people:friends_panel")],
        "people:friends_json": [reverse("people:friends_json")],
        "moderation:report": [reverse("moderation:report") + "?player=bob"],
        "tournaments": [reverse("tournaments"), reverse("tournaments") + "?variant=solo"],
        "tournament": [reverse("tournament", args=[event.pk])],
        "tournament_compare": [reverse("tournament_compare", args=[event.pk])],
    }


def _an_event(ann: Any, bob: Any) -> Any:
    """A finished tournament ann won against bob: every part of its page is shown."""
    from django.utils import timezone

    from tournaments.models import Entry
    from tournaments.services import (
        entry_register,
        tournament_finish,
        tournament_registration_open,
        tournament_start,
    )

    now = timezone.now()
    event = Tournament.objects.create(
        name="Заезд",
        variant="blackjack",
        format=Tournament.Format.DUPLICATE,
        registration_opens_at=now,
        starts_at=now + datetime.timedelta(minutes=1),
        ends_at=now + datetime.timedelta(hours=1),
        buy_in=10,
        min_account_age_days=1,
        min_games_played=0,
    )
    tournament_registration_open(tournament=event)
    joined = now + datetime.timedelta(days=2)  # the accounts are a day old by then
    for user in (ann, bob):
        entry_register(tournament_id=event.pk, player=user, now=joined)
    tournament_start(tournament=event)
    Entry.objects.filter(tournament=event, player=ann).update(stack=2000)
    return tournament_finish(tournament=event)


def test_the_list_of_pages_names_every_named_url_but_the_posted_ones(veteran):
    named = set(_named_urls(get_resolver().url_patterns))
    assert set(_pages(*veteran)) == named - NOT_PAGES


@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_page_answers_in_both_languages_for_a_player_with_games_over(veteran, language):
    ann, *_rest = veteran
    client = Client(raise_request_exception=False)  # a page's failure is listed, not raised
    client.force_login(ann)
    if language != settings.LANGUAGE_CODE:  # as the header's switch does
        client.post(reverse("set_language"), {"language": language, "next": "/"})

    answers, other_language = {}, []
    for path in [path for paths in _pages(*veteran).values() for path in paths]:
        response = client.get(path, follow=True)
        answers[path] = response.status_code
        html = response.content.decode() if response.status_code == 200 else ""
        if "<html" in html and f'<html lang="{language}"' not in html:  # a page, not a part
            other_language.append(path)
    assert answers == dict.fromkeys(answers, 200)
    assert other_language == []


def test_a_signed_out_visitor_gets_the_open_pages_in_both_languages(veteran):
    for language in ("ru", "en"):
        client = Client(raise_request_exception=False)
        client.post(reverse("set_language"), {"language": language, "next": "/"})
        paths = [reverse(name) for name in ("lobby", "login", "signup", "rules_index", "privacy")]
        paths += [reverse("people:profile", args=[player]) for player in ("ann", "bob")]
        answers = {path: client.get(path).status_code for path in paths}
        assert answers == dict.fromkeys(paths, 200), language
