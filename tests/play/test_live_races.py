"""Races at a live table: two requests at once must give exactly one outcome.

The threaded tests run against the real PostgreSQL (the `postgres` fixture: skipped on
the embedded SQLite stack, a failure in CI when it is missing), where row locks are what
keeps one writer per table: each thread has its own connection (Django's connections are
per thread, closed when the thread's job ends) and every transaction commits for real
(transaction=True). Each race is run several times, on fresh decisions, so that the
threads meet in different orders.

The sequential tests at the end play the same interleavings one step after another, on
any database, including the embedded SQLite.
"""

from __future__ import annotations

import datetime
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.db import connections
from django.utils import timezone

from games import engine
from play import wall
from play.clock.sweep import deadlines_sweep
from play.models import ClientCommand, Game, GameEvent
from play.services import commands, errors, moves, seating
from tables import services
from tables.models import Seat, Table
from tests.play.live_helpers import conservation_holds, playing

ROUNDS = 8

Answer = Any  # an outcome dict, or the PlayError / SeatError a request was refused with


def concurrently(*jobs: Callable[[], Any]) -> list[Answer]:
    """Run the jobs on as many threads, released together; their answers, in order."""
    barrier = threading.Barrier(len(jobs))

    def run(job: Callable[[], Any]) -> Answer:
        try:
            barrier.wait(timeout=30)
            return job()
        except (errors.PlayError, ValidationError) as refusal:
            return refusal
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [pool.submit(run, job) for job in jobs]
        return [future.result(timeout=60) for future in futures]


def code_of(answer: Answer) -> str | None:
    if isinstance(answer, errors.PlayError):
        return answer.code
    if isinstance(answer, ValidationError):
        return str(getattr(answer, "code", None))
    return None


def without_repeat(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "repeat"}


def version_of(table: Table) -> int:
    return int(Table.objects.values_list("version", flat=True).get(pk=table.pk))


def events_sound(game: Game) -> None:
    """One GameEvent per engine version, none twice, none missing; one action each."""
    game.refresh_from_db()
    versions = list(
        GameEvent.objects.filter(game=game).order_by("version").values_list("version", flat=True)
    )
    assert versions == list(range(game.state["version"] + 1))
    assert len(game.actions) == game.state["version"]


def bank_table(make_user: Callable[..., Any], players: int = 2) -> tuple[Table, list[Any]]:
    """A banker36 table (chips) with a bank in play."""
    users = [make_user() for _ in range(players)]
    table = services.table_create(
        variant="banker36", name="bank", stake=10, entry_limit=100, created_by=users[0]
    )
    for user in users:
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=users[0])
    return table, users


def classic_table(make_user: Callable[..., Any]) -> tuple[Table, list[Any]]:
    """A classic table (hit or stand) with a match in play."""
    users = [make_user(), make_user()]
    table = services.table_create(
        variant="classic", name="classic", match_length=5, created_by=users[0]
    )
    for user in users:
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=users[0])
    return table, users


def on_turn(table: Table, users: list[Any]) -> tuple[Any, Game, dict[str, Any]]:
    """The player to act, the game and the first legal move (a bet: the smallest)."""
    game = playing(table)
    assert game is not None
    turn = engine.legal_actions(game.state)
    assert turn is not None
    entry = game.player_entry(turn["seat"])
    assert entry is not None
    user = next(u for u in users if u.pk == entry["user"])
    first = turn["actions"][0]
    move: dict[str, Any] = {"action": first["action"]}
    if "amounts" in first:
        move["amount"] = first["amounts"][0]
    elif "min" in first:
        move["amount"] = first["min"]
    return user, game, move


def act(
    table: Table, user: Any, client_id: str, move: dict[str, Any], version: int | None
) -> Callable[[], dict[str, Any]]:
    """One tab's `action` message, as the consumer runs it."""

    def job() -> dict[str, Any]:
        by_id = Table(pk=table.pk)  # a move reads its table itself, under its lock
        return commands.command_run(
            user=user,
            table=by_id,
            client_id=client_id,
            run=lambda: moves.game_act(table=by_id, player=user, action=move, version=version),
            plays_overdue=True,
        )

    return job


def sit(table: Table, user: Any, client_id: str = "sit") -> Callable[[], dict[str, Any]]:
    def job() -> dict[str, Any]:
        fresh = Table.objects.get(pk=table.pk)
        return commands.command_run(
            user=user,
            table=fresh,
            client_id=client_id,
            run=lambda: {"seat": seating.seat_take(table=fresh, player=user).seat_id},
        )

    return job


# --- (a) one action id from two tabs ---------------------------------------------------


@pytest.mark.parametrize("with_version", [True, False], ids=["version", "no_version"])
@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_one_action_id_sent_by_two_tabs_at_once_is_applied_once(postgres, make_user, with_version):
    for n in range(ROUNDS):
        table, users = bank_table(make_user)
        user, game, move = on_turn(table, users)
        version = version_of(table)
        sent = act(table, user, f"dup-{n}", move, version if with_version else None)

        answers = concurrently(sent, sent)

        assert all(isinstance(a, dict) for a in answers), answers
        first, second = answers
        assert without_repeat(first) == without_repeat(second) == {"version": version + 1}
        assert sorted(bool(a.get("repeat")) for a in answers) == [False, True]
        assert version_of(table) == version + 1
        events_sound(game)
        assert game.state["version"] == 1 and game.actions[-1]["action"] == move["action"]
        assert ClientCommand.objects.filter(user=user, client_id=f"dup-{n}").count() == 1
        assert conservation_holds()


# --- (b) two actions from two tabs, on one version -------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_different_actions_from_two_tabs_on_one_version_apply_exactly_one(postgres, make_user):
    for n in range(ROUNDS):
        table, users = classic_table(make_user)
        user, game, _move = on_turn(table, users)
        version = version_of(table)
        hit = {"action": "hit"}
        stand = {"action": "stand"}

        answers = concurrently(
            act(table, user, f"hit-{n}", hit, version),
            act(table, user, f"stand-{n}", stand, version),
        )

        applied = [a for a in answers if isinstance(a, dict)]
        refused = [a for a in answers if not isinstance(a, dict)]
        assert len(applied) == 1 and len(refused) == 1, answers
        assert applied[0] == {"version": version + 1}
        assert code_of(refused[0]) in {"stale_version", "not_your_turn"}, refused
        won = [hit, stand][answers.index(applied[0])]
        events_sound(game)
        assert game.state["version"] == 1
        assert {k: v for k, v in game.actions[0].items() if k != "seat"} == won
        assert version_of(table) == version + 1
        stored = ClientCommand.objects.filter(user=user, client_id__endswith=f"-{n}")
        assert stored.count() == 1  # a refused command is not stored


# --- (c) the last seat -----------------------------------------------------------------


@pytest.mark.parametrize("variant", ["classic", "banker36"])
@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_players_racing_for_the_last_seat_seat_exactly_one(postgres, make_user, variant):
    fields = {"classic": {"match_length": 5}, "banker36": {"stake": 10, "entry_limit": 100}}
    for _ in range(ROUNDS):
        host = make_user()
        table = services.table_create(
            variant=variant, name="last seat", seat_count=2, created_by=host, **fields[variant]
        )
        seating.seat_take(table=table, player=host)
        racers = [make_user() for _ in range(3)]
        version = version_of(table)

        answers = concurrently(*(sit(table, racer) for racer in racers))

        seated = [a for a in answers if isinstance(a, dict)]
        refused = [a for a in answers if not isinstance(a, dict)]
        assert len(seated) == 1, answers
        assert [code_of(r) for r in refused] == ["table_full", "table_full"], refused
        winner = racers[answers.index(seated[0])]
        assert set(Seat.objects.filter(table=table).values_list("player", flat=True)) == {
            host.pk,
            winner.pk,
        }
        assert version_of(table) == version + 1


# --- (d) the clock against the player --------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_timeout_racing_the_players_move_at_the_deadline_applies_exactly_one(
    postgres, make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 600
    rng = random.Random(21)
    for _ in range(ROUNDS * 2):
        # Three players: the first ponter's timeout leaves the game going (the second's turn).
        table, users = bank_table(make_user, players=3)
        user, game, move = on_turn(table, users)
        seat_id = game.deadline_seat
        version = version_of(table)
        at = timezone.now() + datetime.timedelta(milliseconds=150)
        Game.objects.filter(pk=game.pk).update(deadline=at)
        # The sweeper at the deadline; the player a little before or after it.
        lag = [rng.uniform(-0.002, 0.002), rng.uniform(-0.015, 0.005)]

        def wait(seconds: float, at: datetime.datetime = at) -> None:
            time.sleep(max(0.0, (at - timezone.now()).total_seconds() + seconds))

        def sweeper(lag: float = lag[0], at: datetime.datetime = at) -> int:
            wait(lag)
            return deadlines_sweep(now=at)

        move_job = act(table, user, "move", move, version)

        def player(lag: float = lag[1], job: Callable[[], Any] = move_job) -> Any:
            wait(lag)
            return job()

        swept, answer = concurrently(sweeper, player)

        events_sound(game)
        assert game.state["version"] == 1, game.actions  # exactly one decision made
        assert version_of(table) == version + 1
        if isinstance(answer, dict):
            assert answer == {"version": version + 1}
            assert swept == 0
            assert game.actions == [{"seat": seat_id, **move}]
        else:
            # The clock won: played by the sweeper, or by the move's own overdue check.
            assert code_of(answer) == "stale_version", answer
            assert swept in (0, 1)
            assert game.actions == [{"seat": seat_id, "action": "timeout"}]
        assert conservation_holds()


# --- (e) two sweepers ------------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_sweepers_at_once_apply_every_due_timeout_exactly_once(postgres, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 600  # a bank that ends is not followed by the next
    tables = [bank_table(make_user, players=3)[0] for _ in range(8)]
    tables += [classic_table(make_user)[0] for _ in range(8)]
    games = [playing(t) for t in tables]
    for round_number in range(1, 4):
        now = timezone.now()
        Game.objects.filter(pk__in=[g.pk for g in games]).update(
            deadline=now - datetime.timedelta(seconds=1)
        )
        waiting = {g.pk: Game.objects.get(pk=g.pk).deadline_seat for g in games}
        versions = {t.pk: version_of(t) for t in tables}

        def sweep(now: datetime.datetime = now) -> int:
            return deadlines_sweep(now=now)

        swept = concurrently(sweep, sweep)

        assert sum(swept) == len(tables), swept
        for game in games:
            events_sound(game)
            if game.status != Game.Status.PLAYING:
                continue
            assert game.state["version"] == round_number
            assert game.actions[-1] == {"seat": waiting[game.pk], "action": "timeout"}
        for table in tables:
            assert version_of(table) == versions[table.pk] + 1
        assert conservation_holds()
        games = [g for g in games if g.status == Game.Status.PLAYING]
        tables = [t for t in tables if any(g.table_id == t.pk for g in games)]
        # Something is left to sweep in the next round. Not "the 8 classic matches": a
        # 5-round match can end within three timeouts when naturals settle rounds by
        # themselves (seen once in CI: 7 of 8 left), which the deal's seed decides.
        assert games, "every game ended: nothing left for the next round's sweepers"


# --- chips at one table at a time ------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_one_player_sitting_at_two_chip_tables_at_once_sits_at_one(postgres, make_user):
    for _ in range(ROUNDS):
        player = make_user()
        first = services.table_create(variant="banker36", name="one", stake=10, entry_limit=100)
        second = services.table_create(variant="salon", name="two")

        answers = concurrently(sit(first, player), sit(second, player))

        seated = [a for a in answers if isinstance(a, dict)]
        refused = [a for a in answers if not isinstance(a, dict)]
        assert len(seated) == 1, answers
        assert [code_of(r) for r in refused] == ["seated_elsewhere"], refused
        assert Seat.objects.filter(player=player).count() == 1


# --- the same interleavings, one step after another (any database) ---------------------


@pytest.mark.django_db
@pytest.mark.parametrize("with_version", [True, False], ids=["version", "no_version"])
def test_one_action_id_sent_again_after_it_was_applied_gets_the_first_answer(
    make_user, with_version
):
    table, users = bank_table(make_user)
    user, game, move = on_turn(table, users)
    version = version_of(table)
    sent = act(table, user, "again", move, version if with_version else None)

    first = sent()
    second = sent()

    assert first == {"version": version + 1}
    assert second == {**first, "repeat": True}
    assert version_of(table) == version + 1
    events_sound(game)
    assert game.state["version"] == 1


@pytest.mark.django_db
@pytest.mark.parametrize("with_version", [True, False], ids=["version", "no_version"])
def test_an_action_id_sent_again_gets_the_first_answer_and_is_not_played_again(
    make_user, with_version
):
    """A resent id is not looked for before it runs (commands.command_once): it runs, is
    refused (stale, or not this seat's turn any more), and the stored answer is the
    reply — not the refusal, and not a second move."""
    table, users = bank_table(make_user)
    user, game, move = on_turn(table, users)
    version = version_of(table)
    sent = act(table, user, "dup", move, version if with_version else None)

    first = sent()
    second = sent()

    assert first == {"version": version + 1}
    assert second == {**first, "repeat": True}
    assert version_of(table) == version + 1
    events_sound(game)
    assert game.state["version"] == 1


@pytest.mark.django_db
def test_a_command_id_sent_again_whose_run_would_succeed_again_changes_nothing(make_user):
    """`ready` is accepted twice over; resent with its id, the second run is rolled back
    when the command store refuses the id a second time, and the first answer is sent."""
    host, other = make_user(), make_user()
    table = services.table_create(variant="blackjack", name="bj", created_by=host)
    seating.seat_take(table=table, player=other)

    def ready() -> dict[str, Any]:
        fresh = Table.objects.get(pk=table.pk)
        return commands.command_run(
            user=other,
            table=fresh,
            client_id="ready-1",
            run=lambda: (seating.seat_ready(table=fresh, player=other, ready=False), {})[1],
        )

    first = ready()
    version = version_of(table)
    second = ready()

    assert second == {**first, "repeat": True}
    assert version_of(table) == version  # the second run's change rolled back
    assert ClientCommand.objects.filter(user=other, client_id="ready-1").count() == 1


@pytest.mark.django_db
def test_a_deadline_that_passes_while_the_move_waits_is_played_once_and_stands(make_user):
    """The clock against the player: the move comes at its deadline, before any sweep.
    Under the table's lock it finds the decision due, plays the timeout first and is
    then refused as stale. The timeout must stand (exactly one of them applied), not
    roll back with the refused move."""
    table, users = bank_table(make_user, players=3)
    user, game, move = on_turn(table, users)
    seat_id = game.deadline_seat
    version = version_of(table)
    deadline = Game.objects.get(pk=game.pk).deadline

    with (
        mock.patch.object(wall, "now", lambda: deadline),
        pytest.raises(errors.PlayError) as refused,
    ):
        act(table, user, "late", move, version)()

    assert refused.value.code == "stale_version"
    events_sound(game)
    assert game.actions == [{"seat": seat_id, "action": "timeout"}]
    assert version_of(table) == version + 1
    assert deadlines_sweep(now=deadline) == 0  # nothing left to play
    assert not ClientCommand.objects.filter(user=user, client_id="late").exists()
    assert conservation_holds()


@pytest.mark.django_db
def test_the_last_seat_taken_by_one_player_is_refused_to_the_next(make_user):
    host, ann, bob = make_user(), make_user(), make_user()
    table = services.table_create(
        variant="banker36", name="last", stake=10, entry_limit=100, seat_count=2, created_by=host
    )
    seating.seat_take(table=table, player=host)

    first = sit(table, ann)()
    with pytest.raises(ValidationError) as refused:
        sit(table, bob)()

    assert first == {"seat": ann.username}
    assert refused.value.code == "table_full"
    assert not ClientCommand.objects.filter(user=bob).exists()
    assert sit(table, ann)() == {**first, "repeat": True}  # a resend changes nothing
    assert Seat.objects.filter(table=table).count() == 2
