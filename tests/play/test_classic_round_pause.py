"""`classic`: the pause after a settled round (CLASSIC_ROUND_PAUSE_SECONDS). The next
round's first decision clock starts only after it, so the table can read the round's
summary; moves sent during it are accepted. The clock is the services' (`wall.now`)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from games import engine
from play import wall
from play.clock.sweep import deadlines_sweep
from play.frames.build import epoch_ms, game_info
from play.models import Game, GameEvent
from play.services import moves, seating
from tables import services
from tables.models import Table

S = datetime.timedelta(seconds=1)
DECISION = 20
PAUSE = 4


class Clock:
    """The services' clock, moved only by the test."""

    def __init__(self) -> None:
        self.now = timezone.now().replace(microsecond=0)

    def __call__(self) -> datetime.datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Clock:
    settings.CLASSIC_ROUND_PAUSE_SECONDS = PAUSE
    settings.GAME_INTERLUDE_SECONDS = 3600
    fake = Clock()
    monkeypatch.setattr(wall, "now", fake)
    return fake


def classic_match(make_user: Any) -> tuple[Table, dict[str, Any]]:
    users = {"host": make_user("host"), "other": make_user("other")}
    table = services.table_create(
        variant="classic",
        name="C",
        created_by=users["host"],
        match_length=5,
        decision_seconds=DECISION,
    )
    for user in users.values():
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=users["host"])
    return table, users


def game_of(table: Table) -> Game:
    return Game.objects.get(table=table, status=Game.Status.PLAYING)


def stand(table: Table, users: dict[str, Any]) -> tuple[Game | None, list[str]]:
    """The player on turn stands; the game after it (None once over) and the move's events."""
    game = game_of(table)
    seat = engine.legal_actions(game.state)["seat"]
    user = next(u for u in users.values() if game.player_entry(seat)["user"] == u.pk)
    moves.game_act(table=table, player=user, action={"action": "stand"}, version=None)
    last = GameEvent.objects.filter(game=game).order_by("-id").first()
    after = Game.objects.filter(pk=game.pk, status=Game.Status.PLAYING).first()
    return after, [e.get("type") for e in last.events]


def stand_until_a_round_settles(table: Table, users: dict[str, Any], clock: Clock) -> Game:
    """Stands (a second apart) until a move settles a round and deals the next; checks that
    every move inside a round starts the next clock at once."""
    for _ in range(20):
        clock.now += S
        game, types = stand(table, users)
        assert game is not None, "the match ended before a round settled into the next"
        if "settle" in types and "round_start" in types:
            return game
        assert game.clock_starts_at is None
        assert game.deadline == clock.now + DECISION * S
    raise AssertionError("no round settled")


@pytest.mark.django_db
def test_a_settled_classic_round_holds_the_next_rounds_clock_back_by_the_pause(make_user, clock):
    table, users = classic_match(make_user)
    game = game_of(table)
    # The match's first round has nothing to read before it: its clock starts at once.
    assert game.clock_starts_at is None and game.deadline == clock.now + DECISION * S

    game = stand_until_a_round_settles(table, users, clock)
    settled_at = clock.now
    assert game.clock_starts_at == settled_at + PAUSE * S
    assert game.deadline == settled_at + (PAUSE + DECISION) * S
    info = game_info(game, None)
    assert info is not None
    assert info.clock_starts == epoch_ms(settled_at + PAUSE * S)
    assert info.deadline == epoch_ms(settled_at + (PAUSE + DECISION) * S)

    # A decision's time after the settle is not yet a timeout: the pause came first.
    version = game.state["version"]
    assert deadlines_sweep(now=settled_at + DECISION * S) == 0
    assert deadlines_sweep(now=settled_at + (PAUSE + DECISION) * S) == 1
    game.refresh_from_db()
    assert game.state["version"] > version


@pytest.mark.django_db
def test_a_move_sent_during_the_round_pause_is_accepted_and_starts_the_next_clock(make_user, clock):
    table, users = classic_match(make_user)
    stand_until_a_round_settles(table, users, clock)
    clock.now += S  # still inside the pause
    game, _types = stand(table, users)
    if game is not None:
        assert game.clock_starts_at in (None, clock.now + PAUSE * S)
        assert game.deadline in (clock.now + DECISION * S, clock.now + (PAUSE + DECISION) * S)


@pytest.mark.django_db
def test_no_round_pause_when_the_setting_is_zero(make_user, clock, settings):
    settings.CLASSIC_ROUND_PAUSE_SECONDS = 0
    table, users = classic_match(make_user)
    for _ in range(20):
        clock.now += S
        game, types = stand(table, users)
        if game is None:
            break
        assert game.clock_starts_at is None
        assert game.deadline == clock.now + DECISION * S
        assert game_info(game, None).clock_starts is None  # type: ignore[union-attr]
        if "settle" in types and "round_start" in types:
            break
    else:
        raise AssertionError("no round settled")


@pytest.mark.django_db
def test_the_hosts_pause_during_the_round_pause_keeps_the_whole_decision_time(make_user, clock):
    table, users = classic_match(make_user)
    stand_until_a_round_settles(table, users, clock)
    clock.now += S
    moves.game_pause(table=table, by=users["host"])
    game = game_of(table)
    assert game.paused_remaining_ms == DECISION * 1000 and game.clock_starts_at is None
    clock.now += 60 * S
    moves.game_resume(table=table, by=users["host"])
    game.refresh_from_db()
    assert game.deadline == clock.now + DECISION * S
    assert game_info(game, None).clock_starts is None  # type: ignore[union-attr]


@pytest.mark.django_db
def test_a_settled_blackjack_round_holds_the_next_rounds_clock_back_by_its_own_pause(
    make_user, clock, settings
):
    """In blackjack the move that settles a round deals the next: its own pause
    (BLACKJACK_ROUND_PAUSE_SECONDS) keeps the settled hands readable before the clock."""
    settings.BLACKJACK_ROUND_PAUSE_SECONDS = 3
    users = {"host": make_user("host"), "other": make_user("other")}
    table = services.table_create(
        variant="blackjack", name="B", created_by=users["host"], decision_seconds=DECISION
    )
    for user in users.values():
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=users["host"])
    game = game_of(table)
    assert game.clock_starts_at is None
    game = stand_until_a_round_settles(table, users, clock)
    assert game.clock_starts_at == clock.now + 3 * S
    assert game.deadline == clock.now + (3 + DECISION) * S
    assert game_info(game, None).clock_starts == epoch_ms(clock.now + 3 * S)  # type: ignore[union-attr]
