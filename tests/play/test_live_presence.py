"""Connections, drops and the reconnect grace (docs/rules/classic.md §3.1, for every
variant), including connections left behind by a server that died."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from games import engine
from play.clock import sweep
from play.db import seat_reads, selectors
from play.models import Presence
from play.services import moves, presence, seating
from tables import services
from tables.models import Seat
from tests.play.live_helpers import playing


@pytest.fixture
def duel(db, make_user):
    """A banker36 bank in play; returns (table, game, the seat on turn's user)."""
    users = {u.username: u for u in (make_user("ann"), make_user("bob"))}
    table = services.table_create(
        variant="banker36", name="B", stake=10, entry_limit=100, reconnect_grace_seconds=30
    )
    for user in users.values():
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=make_user("root", is_staff=True))
    game = playing(table)
    on_turn = engine.legal_actions(game.state)["seat"]
    return table, game, users[on_turn]


def _age(channel: str, seconds: int) -> None:
    Presence.objects.filter(channel_name=channel).update(
        seen_at=timezone.now() - datetime.timedelta(seconds=seconds)
    )


def test_a_drop_on_turn_extends_the_deadline_by_the_grace_once_per_decision(duel):
    table, game, player = duel
    presence.presence_join(table=table, user=player, channel_name="tab-1")
    before = game.deadline
    presence.presence_leave(table=table, user=player, channel_name="tab-1")
    game.refresh_from_db()
    assert game.deadline > before
    assert game.deadline >= timezone.now() + datetime.timedelta(seconds=28)
    extended = game.deadline
    presence.presence_join(table=table, user=player, channel_name="tab-2")
    presence.presence_leave(table=table, user=player, channel_name="tab-2")
    game.refresh_from_db()
    assert game.deadline == extended  # a second drop in the same decision adds nothing
    assert Seat.objects.get(player=player).away_since is not None


def test_closing_one_of_two_tabs_is_not_a_drop(duel):
    table, game, player = duel
    presence.presence_join(table=table, user=player, channel_name="tab-1")
    presence.presence_join(table=table, user=player, channel_name="tab-2")
    before = game.deadline
    presence.presence_leave(table=table, user=player, channel_name="tab-1")
    game.refresh_from_db()
    assert game.deadline == before and game.grace_version is None


def test_a_connection_of_a_dead_server_expires_as_a_drop(duel):
    table, game, player = duel
    presence.presence_join(table=table, user=player, channel_name="dead-server-tab")
    _age("dead-server-tab", selectors.PRESENCE_TTL_SECONDS + 5)
    before = game.deadline
    assert presence.presences_expire(now=timezone.now()) == 1
    game.refresh_from_db()
    assert not Presence.objects.filter(channel_name="dead-server-tab").exists()
    assert game.deadline > before and game.grace_version == game.state["version"]


def test_a_stale_row_beside_a_live_connection_is_no_drop(duel):
    table, game, player = duel
    presence.presence_join(table=table, user=player, channel_name="dead-server-tab")
    _age("dead-server-tab", selectors.PRESENCE_TTL_SECONDS + 5)
    presence.presence_join(table=table, user=player, channel_name="new-server-tab")
    before = game.deadline
    presence.presences_expire(now=timezone.now())
    game.refresh_from_db()
    assert game.deadline == before and game.grace_version is None
    assert Seat.objects.get(player=player).away_since is None


def test_a_heartbeat_keeps_a_connection_alive(duel):
    table, _game, player = duel
    presence.presence_join(table=table, user=player, channel_name="tab")
    _age("tab", selectors.PRESENCE_TTL_SECONDS + 5)
    presence.presence_touch(channel_name="tab")
    assert presence.presences_expire(now=timezone.now()) == 0


def test_a_heartbeat_writes_nothing_to_the_database(duel, django_assert_num_queries):
    table, _game, player = duel
    presence.presence_join(table=table, user=player, channel_name="quiet-tab")
    with django_assert_num_queries(0):
        presence.presence_touch(channel_name="quiet-tab")


def test_a_beating_connection_counts_as_connected_and_the_sweep_refreshes_its_row(duel):
    table, _game, player = duel
    presence.presence_join(table=table, user=player, channel_name="beating-tab")
    _age("beating-tab", selectors.PRESENCE_TTL_SECONDS + 5)
    presence.presence_touch(channel_name="beating-tab")
    now = timezone.now()
    assert player.pk in selectors.connected_users(table, now)
    assert presence.presences_expire(now=now) == 0
    seen = Presence.objects.get(channel_name="beating-tab").seen_at
    assert seen >= now - datetime.timedelta(seconds=selectors.PRESENCE_TTL_SECONDS)


def test_an_aged_row_without_beats_is_not_connected(duel):
    table, _game, player = duel
    presence.presence_join(table=table, user=player, channel_name="silent-tab")
    _age("silent-tab", selectors.PRESENCE_TTL_SECONDS + 5)
    assert player.pk not in selectors.connected_users(table, timezone.now())


def test_players_away_longer_than_the_grace_are_stood_up_before_the_next_game(duel, settings):
    table, game, player = duel
    settings.GAME_INTERLUDE_SECONDS = 0
    presence.presence_join(table=table, user=player, channel_name="tab")
    presence.presence_leave(table=table, user=player, channel_name="tab")
    # Nobody plays: every decision runs out, the bank ends, the next one is due.
    later = timezone.now()
    for _ in range(50):
        game.refresh_from_db()
        if not game.is_playing:
            break
        later = max(later, game.deadline) + datetime.timedelta(seconds=1)
        sweep.deadlines_sweep(now=later)
    assert not game.is_playing
    sweep.deadlines_sweep(now=later + datetime.timedelta(seconds=60))
    assert not Seat.objects.filter(player=player).exists()
    assert playing(table) is None  # one player left: no next bank


@pytest.mark.asyncio
@pytest.mark.parametrize("consumer_class", ["TableConsumer", "LobbyConsumer"])
async def test_a_frame_to_a_client_that_just_closed_does_not_kill_the_consumer(consumer_class):
    """daphne raises autobahn's Disconnected when a broadcast reaches a consumer whose
    client closed before the websocket.disconnect was delivered (CI saw it: the consumer
    died, its disconnect never ran, and the drop was never announced). The frame is
    dropped; the consumer lives on to run its disconnect."""
    from autobahn.exception import Disconnected

    from lobby.consumers import LobbyConsumer
    from play.edge.consumers import TableConsumer

    consumer = {"TableConsumer": TableConsumer, "LobbyConsumer": LobbyConsumer}[consumer_class]()

    async def gone(message):
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.base_send = gone
    await consumer.send(text_data='{"type": "presence"}')  # no exception

    async def broken(message):
        raise RuntimeError("not a disconnect")

    consumer.base_send = broken
    with pytest.raises(RuntimeError):  # anything else still surfaces
        await consumer.send(text_data='{"type": "presence"}')


def test_who_is_connected_read_with_the_seats_agrees_with_the_presence_rows(db, make_user):
    """A move reads its seats' presence in the same statement as the seats
    (play.db.seat_reads.read_seats): a fresh row counts, a row aged past the TTL counts only while
    its connection beats in the cache, as `connected_users` says."""
    users = [make_user(f"c{i}") for i in range(4)]
    table = services.table_create(variant="banker36", name="C", stake=10, entry_limit=100)
    for user in users:
        seating.seat_take(table=table, player=user)
    fresh, aged_beating, aged_silent, _absent = users
    for user in (fresh, aged_beating, aged_silent):
        presence.presence_join(table=table, user=user, channel_name=f"tab-{user.pk}")
    for user in (aged_beating, aged_silent):
        _age(f"tab-{user.pk}", selectors.PRESENCE_TTL_SECONDS + 5)
    presence.presence_touch(channel_name=f"tab-{aged_beating.pk}")
    now = timezone.now()
    expected = {fresh.pk, aged_beating.pk}
    assert selectors.connected_users(table, now) == expected
    seat_reads.read_seats(table)
    assert seat_reads.seats_read_connected(table) == expected
    _age(f"tab-{aged_beating.pk}", 0)  # the sweep copied its beat: no aged row is left
    _age(f"tab-{aged_silent.pk}", 0)
    seat_reads.read_seats(table)
    assert seat_reads.seats_read_connected(table) == {fresh.pk, aged_beating.pk, aged_silent.pk}
    seat_reads.forget_seats(table)
    assert seat_reads.seats_read_connected(table) is None
