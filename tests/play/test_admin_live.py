"""The admin's view of live games: read-only, the full state for admins only, the hand
record, the events and the chips of each game, and voiding through the services."""

from __future__ import annotations

import json
import random
from html import unescape
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from accounts.models import Account, LedgerEntry
from accounts.services import wallet_for
from games import engine
from play.models import Game
from play.services import closing, moves, records, seating
from tables import services
from tables.models import Table
from tests.play.live_helpers import (
    conservation_holds,
    escrows_empty,
    ledger_for,
    playing,
    random_move,
    sweep_after,
    user_of,
)

pytestmark = pytest.mark.django_db


class Live:
    """A banker36 table of three players, played through the services."""

    def __init__(self, make_user: Any) -> None:
        self.players = [make_user(name) for name in ("ann", "bob", "cy")]
        self.users = {user.pk: user for user in self.players}
        self.host = make_user("host", is_staff=True)
        self.table = services.table_create(
            variant="banker36", name="Банк у окна", stake=10, entry_limit=100
        )
        for user in self.players:
            seating.seat_take(table=self.table, player=user)
        moves.game_start(table=self.table, by=self.host)
        self.rng = random.Random(21)

    def play_until(self, done: Any, limit: int = 500) -> Game:
        """Random legal moves until `done(game)` holds for the game in play; a game that
        ends first is followed by the next one (the interlude is 0 s)."""
        for _ in range(limit):
            game = playing(self.table)
            if game is None:
                if not sweep_after(None):
                    moves.game_start(table=self.table, by=self.host)
                continue
            if done(game):
                return game
            seat_id = engine.legal_actions(game.state)["seat"]
            moves.game_act(
                table=self.table,
                player=user_of(game, seat_id, self.users),
                action=random_move(game, self.rng),
                version=None,
            )
        raise AssertionError("no game reached the wanted state")


def _moved(game: Game) -> bool:
    return len(game.actions) >= 2 and bool(ledger_for(game))


def _settled_and_staked(game: Game) -> bool:
    """Chips already settled between seats, and more staked and not yet settled."""
    return any(game.state["deltas"].values()) and bool(engine.in_play(game.state))


@pytest.fixture
def live(make_user: Any, settings: Any) -> Live:
    settings.GAME_INTERLUDE_SECONDS = 0
    return Live(make_user)


def _messages(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_staff_sees_the_game_list_with_filters_and_search(admin_client, live):
    game = live.play_until(_moved)
    url = reverse("admin:play_game_changelist")
    page = admin_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Банк у окна" in html and "ann, bob, cy" in html
    assert reverse("admin:play_game_change", args=[game.pk]) in html
    shown = admin_client.get(url, {"variant__exact": "banker36", "status__exact": "playing"})
    assert list(shown.context["cl"].result_list) == [game]
    assert not admin_client.get(url, {"status__exact": "voided"}).context["cl"].result_list
    assert admin_client.get(url, {"q": "у окна"}).context["cl"].result_count >= 1
    assert admin_client.get(url, {"q": "нет такого"}).context["cl"].result_count == 0


def test_change_page_shows_the_full_state_record_events_and_ledger(admin_client, live):
    game = live.play_until(_moved)
    page = admin_client.get(reverse("admin:play_game_change", args=[game.pk]))
    assert page.status_code == 200
    text = unescape(page.content.decode())
    # The full engine state, hidden cards (the shoe) included, pretty-printed.
    assert game.state["shoe"]["cards"] in text
    assert json.dumps(game.state, ensure_ascii=False, indent=2) in text
    assert game.seed in text and game.commitment in text
    # The hand record, with its seed, and the link to download it.
    record = records.game_record(game)
    assert json.dumps(record, ensure_ascii=False, indent=2) in text
    assert reverse("game_record", args=[game.pk]) in text
    download = admin_client.get(reverse("game_record", args=[game.pk]))
    assert download.status_code == 200 and download.json()["table"]["id"] == live.table.pk
    # Every event of the game, and every ledger entry with its balances after.
    inlines = {f.opts.__class__.__name__: f for f in page.context["inline_admin_formsets"]}
    events = inlines["GameEventInline"].formset.queryset
    assert [e.version for e in events] == list(range(len(game.actions) + 1))
    entries = ledger_for(game)
    assert list(inlines["GameLedgerInline"].formset.queryset) == entries
    assert f"escrow:game:{game.pk}" in text
    for entry in entries:
        assert entry.get_reason_display() in text
        assert str(entry.destination_balance_after) in text
    # The players, with links to their accounts.
    for user in live.players:
        assert reverse("admin:accounts_user_change", args=[user.pk]) in text


def test_change_page_is_read_only(admin_client, live):
    game = live.play_until(_moved)
    url = reverse("admin:play_game_change", args=[game.pk])
    html = admin_client.get(url).content.decode()
    for control in ('name="_save"', 'name="_continue"', 'name="_addanother"', "deletelink"):
        assert control not in html
    assert reverse("admin:play_game_void", args=[game.pk]) in html
    before = (game.state, game.status)
    assert admin_client.post(url, {"status": "voided"}).status_code == 403
    assert admin_client.get(reverse("admin:play_game_add")).status_code == 403
    delete = reverse("admin:play_game_delete", args=[game.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    game.refresh_from_db()
    assert (game.state, game.status) == before


def test_non_staff_are_sent_to_the_admin_login(client, live):
    game = live.play_until(_moved)
    login = reverse("admin:login")
    urls = [
        reverse("admin:play_game_changelist"),
        reverse("admin:play_game_change", args=[game.pk]),
        reverse("admin:play_game_void", args=[game.pk]),
    ]
    client.force_login(live.players[0])
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith(login)
    response = client.post(reverse("admin:play_game_void", args=[game.pk]))
    assert response.status_code == 302 and response.url.startswith(login)
    game.refresh_from_db()
    assert game.is_playing


def test_an_admin_playing_in_the_game_does_not_see_its_hidden_cards(client, live):
    game = live.play_until(_moved)
    ann = live.players[0]
    ann.is_staff = ann.is_superuser = True
    ann.save()
    client.force_login(ann)
    page = client.get(reverse("admin:play_game_change", args=[game.pk]))
    assert page.status_code == 200
    text = unescape(page.content.decode())
    assert game.state["shoe"]["cards"] not in text and game.seed not in text
    assert "пока она идёт" in text


def test_void_action_returns_every_stake_and_schedules_no_next_game(admin_client, live):
    game = live.play_until(_settled_and_staked)
    start = {p["id"]: p["chips"] for p in game.players}
    response = admin_client.post(
        reverse("admin:play_game_changelist"),
        {"action": "void_games", "_selected_action": [game.pk]},
    )
    assert response.status_code == 302
    assert any("ставки в ней возвращены" in m for m in _messages(response))
    game.refresh_from_db()
    table = Table.objects.get(pk=live.table.pk)
    assert game.status == Game.Status.VOIDED and table.next_game_at is None
    assert Account.objects.get(code=f"escrow:game:{game.pk}").balance == 0
    assert escrows_empty() and conservation_holds()
    for sid, chips in start.items():
        user = user_of(game, sid, live.users)
        assert wallet_for(user).balance == chips + game.state["deltas"][sid]
    assert LedgerEntry.objects.filter(game=game, reason=LedgerEntry.Reason.REFUND).exists()
    # Nothing starts by itself afterwards: the players are seated, but no game follows.
    assert sweep_after(None, seconds=3600) == 0 and playing(live.table) is None


def test_void_button_confirms_then_voids_and_a_second_void_is_refused(admin_client, live):
    game = live.play_until(_moved)
    url = reverse("admin:play_game_void", args=[game.pk])
    confirm = admin_client.get(url)
    assert confirm.status_code == 200 and 'method="post"' in confirm.content.decode()
    game.refresh_from_db()
    assert game.is_playing
    response = admin_client.post(url)
    assert response.status_code == 302
    assert response.url == reverse("admin:play_game_change", args=[game.pk])
    game.refresh_from_db()
    assert game.status == Game.Status.VOIDED and escrows_empty()
    again = admin_client.post(url)
    assert any("Эта игра уже окончена." in m for m in _messages(again))
    html = admin_client.get(reverse("admin:play_game_change", args=[game.pk])).content
    assert url not in html.decode()


def test_void_action_on_a_finished_game_is_refused_politely(admin_client, live):
    game = live.play_until(_moved)
    closing.game_void(game=game)
    entries = LedgerEntry.objects.count()
    response = admin_client.post(
        reverse("admin:play_game_changelist"),
        {"action": "void_games", "_selected_action": [game.pk]},
        follow=True,
    )
    assert response.status_code == 200
    texts = [str(m) for m in response.context["messages"]]
    assert texts == [f"«{game}» не отменена: Эта игра уже окончена."]
    assert LedgerEntry.objects.count() == entries


def test_table_admin_lists_its_games_and_close_voids_the_game_in_play(admin_client, live):
    game = live.play_until(_moved)
    page = admin_client.get(reverse("admin:tables_table_change", args=[live.table.pk]))
    html = page.content.decode()
    assert reverse("admin:play_game_change", args=[game.pk]) in html
    assert f"table__id__exact={live.table.pk}" in html
    response = admin_client.post(
        reverse("admin:tables_table_changelist"),
        {"action": "close_tables", "_selected_action": [live.table.pk]},
    )
    assert response.status_code == 302
    (message,) = _messages(response)
    assert "Закрыт 1 стол." in message and "ставки в ней возвращены" in message
    game.refresh_from_db()
    assert game.status == Game.Status.VOIDED and escrows_empty() and conservation_holds()
    for player in game.players:
        user = user_of(game, player["id"], live.users)
        assert wallet_for(user).balance == player["chips"] + game.state["deltas"][player["id"]]


def test_ledger_admin_links_and_filters_entries_by_game(admin_client, live):
    game = live.play_until(_moved)
    url = reverse("admin:accounts_ledgerentry_changelist")
    page = admin_client.get(url, {"game__id__exact": game.pk})
    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == ledger_for(game)[::-1]
    assert reverse("admin:play_game_change", args=[game.pk]) in page.content.decode()
    grants = admin_client.get(url, {"game__isempty": "1"}).context["cl"].result_list
    assert grants and all(entry.game_id is None for entry in grants)
    found = admin_client.get(url, {"q": "Банк у окна"}).context["cl"].result_list
    assert set(found) == set(LedgerEntry.objects.filter(game__table=live.table))


def test_a_staff_member_granted_the_game_permissions_sees_the_events_and_may_void(
    client, make_user, live
):
    """Not a superuser: a staff member whose group was given the games' permissions (on the
    content type that moved to `play` with the model) sees the events and voids a game."""
    from django.contrib.auth.models import Permission

    clerk = make_user("clerk", is_staff=True)
    clerk.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="play", codename__in=["view_game", "change_game"]
        )
    )
    client.force_login(clerk)
    game = live.play_until(_moved)
    page = client.get(reverse("admin:play_game_change", args=[game.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "События игры" in html
    void = reverse("admin:play_game_void", args=[game.pk])
    assert void in html
    assert client.post(void).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.VOIDED and escrows_empty()
