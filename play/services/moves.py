"""What players and hosts do to a game: start it, give a client seed, act, pause and
resume it, and a solo player's new game and end of session."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games import engine
from games import fairness as fair
from play import wall
from play.db.locks import lock_table, lock_table_and_game, lock_table_with_host, playing_game
from play.db.seat_reads import read_seats, table_seats
from play.db.selectors import latest_game
from play.frames.viewing import frames_on_commit
from play.models import Game
from play.services.deadlines import decision_due_play
from play.services.errors import PlayError
from play.services.lifecycle import (
    announce_decision_on_commit,
    deal,
    end_game,
    rules_applied,
    start_next,
    transition,
    waiting_for_seeds,
)
from play.services.permissions import require_host
from tables.models import Table
from tables.variants import BLACKJACK, SALON, SOLO


@transaction.atomic
def game_start(*, table: Table, by: Any, rounds: int | None = None) -> Game | None:
    """The host starts the next game now (players need not be ready); in `classic` the
    host may pick the match length (5, 7 or 10 rounds) as they start it. Returns the game
    once dealt, None while its commitment waits for the players' client seeds."""
    table = lock_table(table.pk)
    if (table.variant == BLACKJACK or table.duplicate is not None) and table.seats.filter(
        player=by
    ).exists():
        pass  # a training table's player starts their own session; a heat's, their heat
    else:
        require_host(table, by)
    if rounds is not None:
        lengths = table.variant_spec.match_lengths
        if rounds not in lengths:
            raise PlayError(
                "bad_message",
                _("Длина партии: %(choices)s раздач.")
                % {"choices": ", ".join(map(str, lengths)) or "—"},
            )
        table.match_length = rounds
        table.save(update_fields=["match_length"])
    return start_next(table, wall.now())


@transaction.atomic
def stacks_game_start(*, table: Table) -> Game | None:
    """The owner of a stacks table (a tournament's sit-and-go, which has no host) begins
    its one game: announced for the players' client seeds like any other, dealt once they
    have given them or at `deal_at`."""
    table = lock_table(table.pk)
    if table.stacks is None:
        raise PlayError("not_host", _("Игру начинает хозяин стола."))
    return start_next(table, wall.now())


def client_seed_give(*, table: Table, player: Any, seed: str) -> dict[str, Any]:
    """A player's contribution to the announced game's shuffle (docs/fairness.md). Once
    every player has given one, the cards are dealt.

    Its own transaction, or a client command's without a savepoint (two round trips
    saved): a refusal is decided before anything is written and raised once the block
    is left, so it has nothing to take back."""
    refusal: PlayError | None = None
    with transaction.atomic(savepoint=False):
        table = lock_table_with_host(table.pk)
        try:
            seat = _seed_checked(table, player, seed)
        except PlayError as error:
            refusal = error
        else:
            outcome = _seed_given(table, seat, seed)
    if refusal is not None:
        raise refusal
    return outcome


def _seed_checked(table: Table, player: Any, seed: str) -> Any:
    """The player's seat, if they may give `seed` for the announced game."""
    pending = table.pending
    seat = next((s for s in read_seats(table) if s.player_id == player.pk), None)
    if pending is None:
        raise PlayError("no_shuffle", _("Сейчас колода не тасуется: ключ не нужен."))
    if seat is None or seat.seat_id not in pending["seats"]:
        raise PlayError("not_seated", _("Вы не играете в этой игре."))
    if not isinstance(seed, str) or not fair.CLIENT_SEED.fullmatch(seed):
        raise PlayError(
            "bad_client_seed",
            _("Ключ — от 1 до 64 знаков: латинские буквы, цифры, «_» и «-»."),
        )
    if seat.seat_id in pending["client_seeds"]:
        raise PlayError("seed_given", _("Ваш ключ для этой игры уже принят."))
    return seat


def _seed_given(table: Table, seat: Any, seed: str) -> dict[str, Any]:
    pending = table.pending
    assert pending is not None
    pending["client_seeds"][seat.seat_id] = seed
    table.pending = pending
    if not waiting_for_seeds(table):
        try:
            with transaction.atomic():
                deal(table, wall.now())  # saves the table (its pending game dealt)
            return {"game": pending["number"]}
        except PlayError:
            # The players it was announced for are not all here any more: the seed is
            # kept, and the sweep settles the announcement at deal_at.
            table.pending = pending
            table.deal_at = Table.objects.values_list("deal_at", flat=True).get(pk=table.pk)
    frames_on_commit(
        table,
        latest_game(table),
        [{"type": "client_seed", "seat": seat.seat_id}],
        saving=["pending"],
        latest_known=True,
        later=True,
    )
    return {"game": pending["number"]}


# What a client may send with an action, per argument name.
_ACTION_ARGUMENTS = ("amount", "position", "target")


def game_act(
    *, table: Table, player: Any, action: dict[str, Any], version: int | None
) -> dict[str, Any]:
    """A seated player's move. A decision that fell due before it is played first.

    Its own transaction, or a client command's without a savepoint (two round trips
    saved): a refusal is decided before anything of the move is written and raised once
    the block is left, so it takes nothing back."""
    now = wall.now()
    refusal: PlayError | None = None
    with transaction.atomic(savepoint=False):
        table, game = lock_table_and_game(table.pk)
        if game is not None and game.deadline is not None and game.deadline <= now:
            # Due under the lock the move waited for (rather than skipping the table as
            # the sweepers do: whoever held it may not be about to play the deadline, and
            # a move that skipped it would be applied past its deadline). It stands when
            # the move is refused; a move that fails as it writes takes it back with it,
            # and the sweep plays it again.
            decision_due_play(table, game, now)
            if not game.is_playing:
                game = None
        try:
            move = _move_checked(table, game, player, action, version)
        except PlayError as error:
            refusal = error
        else:
            outcome = move()
    if refusal is not None:
        raise refusal
    return outcome


def version_expected(now: int, version: int | None) -> None:
    """A command decided on table version `version` (None: the client named none) is
    refused once the table has moved on."""
    if version is not None and version != now:
        raise PlayError(
            "stale_version",
            _("Стол изменился (версия %(now)d, у вас %(yours)d): вот свежее состояние.")
            % {"now": now, "yours": version},
        )


def _move_checked(
    table: Table,
    game: Game | None,
    player: Any,
    action: dict[str, Any],
    version: int | None,
) -> Callable[[], dict[str, Any]]:
    """The move's checks, the rules' among them, with nothing written yet: the move to
    make, or its refusal raised."""
    if game is None:
        raise PlayError("no_game", _("Сейчас за столом нет игры."))
    version_expected(table.version, version)
    # Read with the lock (lock_table_and_game: a game is in play).
    seat = next((s for s in table_seats(table) if s.player_id == player.pk), None)
    if seat is None or seat.seat_id not in game.seat_ids:
        raise PlayError("not_seated", _("Вы не играете в этой игре."))
    if game.paused:
        raise PlayError("paused", _("Игра на паузе."))
    name = action.get("action")
    if table.variant == SOLO and name == "new_game":
        _solo_new_game_allowed(table, game)
        return lambda: _solo_new_game(table, game)
    if name == "remove" or name == "timeout" or (name == "cut" and table.variant != SALON):
        raise PlayError("illegal_action", _("Этот ход нельзя сделать самому."))
    move = {"seat": seat.seat_id, "action": name}
    move.update({k: action[k] for k in _ACTION_ARGUMENTS if k in action})
    applied = rules_applied(game, move)

    def made() -> dict[str, Any]:
        transition(table, game, move, wall.now(), applied=applied)
        return {"version": table.version}

    return made


def _solo_new_game_allowed(table: Table, game: Game) -> None:
    if table.duplicate is not None:
        # A tournament heat is one game: a new one would end it with what it has won so
        # far, or start it over when it went badly.
        raise PlayError("illegal_action", _("Турнирный заезд — одна игра: новую не начинают."))
    if game.state.get("bet") is not None:
        raise PlayError("illegal_action", _("Новую игру нельзя начать, пока ставка в игре."))


def _solo_new_game(table: Table, game: Game) -> dict[str, Any]:
    """«Новая игра»: the current game's record ends (its seed is revealed) and a fresh game
    with a fresh seed begins. Refused while a confirmed bet is in play (docs/rules/solo.md §5.2)."""
    _solo_new_game_allowed(table, game)
    now = wall.now()
    end_game(table, game, now, status=Game.Status.FINISHED)
    start_next(table, now)
    return {"version": table.version}


@transaction.atomic
def solo_new_game(*, table: Table, player: Any) -> dict[str, Any]:
    """«Новая игра» at a solo table between games (after a game is over)."""
    table = lock_table(table.pk)
    if table.variant != SOLO:  # elsewhere it would end the game in play for everyone
        raise PlayError("illegal_action", _("«Новая игра» бывает только в игре против банкира."))
    if not table.seats.filter(player=player).exists():
        raise PlayError("not_seated", _("Сначала сядьте за стол."))
    game = playing_game(table)
    if game is not None:
        if game.paused:
            raise PlayError("paused", _("Игра на паузе."))
        return _solo_new_game(table, game)
    start_next(table, wall.now())
    return {"version": table.version}


@transaction.atomic
def session_end(*, table: Table, player: Any) -> dict[str, Any]:
    """Blackjack: the player ends the training session (a round in play counts nothing)."""
    table = lock_table(table.pk)
    if table.variant != BLACKJACK:
        raise PlayError("illegal_action", _("Сессия бывает только в блэкджеке."))
    if table.duplicate is not None:
        # A tournament heat is played to its last round (or the clock plays it): ending it
        # when ahead would lock a result the other entrants must play on for.
        raise PlayError("illegal_action", _("Турнирный заезд не заканчивают досрочно."))
    game = playing_game(table)  # checked first, as for a move (game_act)
    if game is None:
        raise PlayError("no_game", _("Сейчас за столом нет игры."))
    if not table.seats.filter(player=player).exists():
        raise PlayError("not_seated", _("Сначала сядьте за стол."))
    end_game(table, game, wall.now(), status=Game.Status.FINISHED)
    table.next_game_at = None
    table.save(update_fields=["next_game_at"])
    frames_on_commit(table, game, [{"type": "session_end"}])
    return {"version": table.version}


@transaction.atomic
def game_pause(*, table: Table, by: Any) -> dict[str, Any]:
    """Every clock stops; the running decision's remaining time is kept."""
    table = lock_table(table.pk)
    require_host(table, by)
    game = playing_game(table)
    if game is None:
        raise PlayError("no_game", _("Сейчас за столом нет игры."))
    if game.paused:
        return {"version": table.version}
    now = wall.now()
    # A clock that had not started yet (the pause after a classic round) keeps its whole
    # decision time: the host's pause holds the table now.
    start = max(now, game.clock_starts_at or now)
    left = 0 if game.deadline is None else max(0, (game.deadline - start).total_seconds())
    game.paused_remaining_ms = int(left * 1000)
    game.deadline = None
    game.clock_starts_at = None
    game.save(update_fields=["paused_remaining_ms", "deadline", "clock_starts_at"])
    frames_on_commit(table, game, [{"type": "paused"}])
    return {"version": table.version}


@transaction.atomic
def game_resume(*, table: Table, by: Any) -> dict[str, Any]:
    table = lock_table(table.pk)
    require_host(table, by)
    game = playing_game(table)
    if game is None or not game.paused:
        raise PlayError("not_paused", _("Игра не на паузе."))
    clockless = not engine.find_variant(game.variant).CLOCK and not game.deadline_seat.startswith(
        "ai:"
    )
    remaining = game.paused_remaining_ms or 0
    game.paused_remaining_ms = None
    game.deadline = None if clockless else wall.now() + datetime.timedelta(milliseconds=remaining)
    game.save(update_fields=["paused_remaining_ms", "deadline"])
    frames_on_commit(table, game, [{"type": "resumed"}])
    # A person's clock runs again: their decision is announced (a «Ваш ход» push, if
    # they are not looking), as when a transition starts it — a decision reached during
    # the pause was never announced.
    entry = game.player_entry(game.deadline_seat) or {}
    if game.deadline is not None and remaining and entry.get("user") and not entry.get("ai"):
        announce_decision_on_commit(table, game, game.deadline_seat, entry["user"])
    return {"version": table.version}
