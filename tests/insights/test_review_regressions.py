"""Regressions found in review of the live tables (each test fails without its fix)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from accounts.services import chips_adjust, wallet_for
from games import engine
from play.clock import sweep
from play.models import Game
from play.services import closing, commands, errors, moves, seating
from tables import services
from tests.play.live_helpers import conservation_holds, playing


def _salon_banker_about_to_pay(make_user: Any) -> tuple[Any, Game, dict[int, Any]]:
    """A salon table whose banker is to act, where standing loses chips to a ponter."""
    ann, bob = make_user("ann"), make_user("bob")
    users = {ann.pk: ann, bob.pk: bob}
    table = services.table_create(variant="salon", name="S", min_bet=10, max_bet=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=make_user("root", is_staff=True))
    for _ in range(500):
        game = playing(table)
        if game is None:  # the shoe ran out: the next one starts after the interlude
            sweep.deadlines_sweep(now=timezone.now() + datetime.timedelta(seconds=10))
            continue
        turn = engine.legal_actions(game.state)
        assert turn is not None
        seat, phase = turn["seat"], game.state["phase"]
        player = users[game.player_entry(seat)["user"]]
        if phase == "banker":
            stand = {"seat": seat, "action": "stand"}
            after, _events = engine.apply(game.state, stand)
            if after["deltas"][seat] < game.state["deltas"][seat]:
                return table, game, users
            move = {"action": "stand"}
        elif phase == "cut":
            move = {"action": "cut", "position": 10}
        elif phase == "bet":
            move = {"action": "bet", "amount": turn["actions"][0]["min"]}
        else:
            move = {"action": "stand"}
        moves.game_act(table=table, player=player, action=move, version=None)
    raise AssertionError("no deal where the banker had to pay")


@pytest.mark.django_db
def test_a_table_whose_timeout_cannot_be_played_does_not_stop_the_sweep_for_others(
    make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 0
    # Another table with a decision that is overdue, older than the broken one.
    carol, dave = make_user("carol"), make_user("dave")
    other = services.table_create(variant="banker36", name="B", stake=10, entry_limit=100)
    seating.seat_take(table=other, player=carol)
    seating.seat_take(table=other, player=dave)
    moves.game_start(table=other, by=make_user("admin2", is_staff=True))
    waiting = playing(other)
    assert waiting is not None
    version = waiting.state["version"]

    _table, game, _users = _salon_banker_about_to_pay(make_user)
    banker = game.player_entry(game.deadline_seat)
    assert banker is not None
    # An admin takes the banker's chips while the deal is in play: the banker's stand (by
    # the clock) cannot be settled any more.
    wallet = wallet_for(_user(banker))
    chips_adjust(
        wallet=wallet, amount=-wallet.balance, memo="review", by=None, idempotency_key="take:1"
    )

    later = timezone.now() + datetime.timedelta(seconds=600)
    sweep.deadlines_sweep(now=later)  # must not raise

    waiting.refresh_from_db()
    assert waiting.state["version"] > version  # the other table's timeout was played
    assert conservation_holds()


def _user(entry: dict[str, Any]) -> Any:
    from accounts.models import User

    return User.objects.get(pk=entry["user"])


@pytest.mark.django_db
def test_a_table_whose_timeout_cannot_be_played_can_still_be_closed_by_its_host(
    make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 0
    table, game, _users = _salon_banker_about_to_pay(make_user)
    banker = game.player_entry(game.deadline_seat)
    assert banker is not None
    wallet = wallet_for(_user(banker))
    chips_adjust(
        wallet=wallet, amount=-wallet.balance, memo="review", by=None, idempotency_key="take:2"
    )
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now())  # overdue now
    host = make_user("host", is_staff=True)

    def close() -> dict[str, Any]:
        closing.table_close(table=table)
        return {}

    # Every command plays an overdue deadline first; one that cannot be played must not
    # refuse the host's close (the way out of such a table) with the banker's balance.
    commands.command_run(user=host, table=table, client_id="close-1", run=close)

    game.refresh_from_db()
    assert game.status == Game.Status.VOIDED
    assert conservation_holds()
    from tests.play.live_helpers import escrows_empty

    assert escrows_empty()


@pytest.mark.django_db
def test_a_connected_player_marked_away_by_a_reload_race_is_not_stood_up(make_user):
    # A page reload closes the old socket while the new one opens: when the old socket's
    # presence_leave checks for live connections before the new presence_join commits,
    # and the join read the seat before the leave marked it, the seat keeps `away_since`
    # although its player is connected. The next game must not stand them up for it.
    from play.models import Presence
    from tables.models import Seat, Table

    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="banker36", name="B", stake=10, entry_limit=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    long_ago = timezone.now() - datetime.timedelta(hours=1)
    Seat.objects.filter(table=table).update(away_since=long_ago)
    for user in (ann, bob):
        Presence.objects.create(table=table, user=user, channel_name=f"chan-{user.pk}")
    Table.objects.filter(pk=table.pk).update(next_game_at=timezone.now())

    sweep.deadlines_sweep(now=timezone.now() + datetime.timedelta(seconds=1))

    assert Seat.objects.filter(table=table).count() == 2
    assert playing(table) is not None


@pytest.mark.django_db
def test_admin_cannot_change_the_variant_of_a_table_with_chips_in_play(admin_client, make_user):
    # The services read the table's variant for a game's chips and record: a salon game
    # turned `classic` under its feet kept its bets in escrow for ever.
    from django.urls import reverse

    from tables.models import Table
    from tests.play.live_helpers import escrows_empty

    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="salon", name="S", min_bet=10, max_bet=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=make_user("root", is_staff=True))
    users = {ann.pk: ann, bob.pk: bob}
    # Cut, then bet until a bet stays in play (a deal can settle at once, e.g. two aces,
    # which returns the bet from escrow straight away); stand on any other decision.
    for _ in range(30):
        if not escrows_empty():
            break
        game = playing(table)
        turn = engine.legal_actions(game.state)
        player = users[game.player_entry(turn["seat"])["user"]]
        names = {a["action"] for a in turn["actions"]}
        if "cut" in names:
            move = {"action": "cut", "position": 9}
        elif "bet" in names:
            move = {"action": "bet", "amount": 10}
        else:
            move = {"action": "stand"}
        moves.game_act(table=table, player=player, action=move, version=None)
    assert not escrows_empty()

    form = {
        "variant": "classic",
        "name": "S",
        "status": "open",
        "seat_count": table.seat_count,
        "stake": "",
        "min_bet": "",
        "max_bet": "",
        "entry_limit": 0,
        "decision_seconds": 15,
        "reconnect_grace_seconds": 30,
        "match_length": 5,
        "seats-TOTAL_FORMS": 0,
        "seats-INITIAL_FORMS": 0,
        "seats-MIN_NUM_FORMS": 0,
        "seats-MAX_NUM_FORMS": 1000,
    }
    admin_client.post(reverse("admin:tables_table_change", args=[table.pk]), form)

    table.refresh_from_db()
    assert table.variant == "salon"
    closing.table_close(table=Table.objects.get(pk=table.pk))
    assert escrows_empty() and conservation_holds()


@pytest.mark.django_db
def test_sitting_down_again_while_leaving_is_refused_with_a_clear_code(make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann, bob = make_user("ann2"), make_user("bob2")
    table = services.table_create(variant="banker36", name="L", stake=10, entry_limit=100)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=make_user("boss", is_staff=True))
    seating.seat_leave(table=table, player=ann)
    with pytest.raises(errors.SeatError) as refused:
        seating.seat_take(table=table, player=ann)
    assert refused.value.code == "leaving"


@pytest.mark.django_db
def test_the_admin_cannot_delete_a_seat_behind_the_services(admin_client, make_user):
    from django.urls import reverse

    table = services.table_create(variant="classic", name="C")
    seating.seat_take(table=table, player=make_user("sam"))
    html = admin_client.get(reverse("admin:tables_table_change", args=[table.pk])).content
    assert b"seats-0-DELETE" not in html
