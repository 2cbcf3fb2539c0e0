"""A table's games from start to end: the shuffle's commitment and the deal, every
transition of the rules engine (AI turns and the deadline of the next decision included),
the end of a game and what follows it, and closing a table. The public services of
play/services/ (seating, moves, deadlines, closing) all come through here.

These are the steps of those services, not services: each expects its caller to hold
the table's row lock (play/db/locks.py) inside the caller's transaction.

Deadlines live in the database (`Game.deadline`, `Table.next_game_at`, `Table.deal_at`);
play/services/deadlines.py plays them through the same code."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import deals, engine
from games import fairness as fair
from games.errors import RulesError
from games.record import replay
from games.shuffle import fresh_seed
from play.db import store
from play.db.locks import playing_game
from play.db.seat_reads import forget_seats, seat_row, table_seats
from play.db.selectors import latest_game
from play.frames.viewing import frames_on_commit, game_start_event
from play.models import Game, GameEvent
from play.services.chips import chips_sync, eligible_seats, eligible_with_wallets
from play.services.errors import PlayError
from play.services.records import OPEN_ENDED, game_record
from play.signals import deal_ended, decision_started, game_ended
from play.wall import seconds
from tables.models import Seat, Table
from tables.signals import table_changed_on_commit
from tables.variants import BANKER36, BLACKJACK, CLASSIC, SALON, SOLO

# Variants whose next game (bank, shoe) follows by itself after a short interlude.
_CONTINUOUS = {SALON, BANKER36, BLACKJACK}

# Reasons a game ends that leave nothing to continue with (nobody can bank or bet).
_DEAD_ENDS = {"no_banker", "nobody_can_hold_the_bank", "no_ponter_can_bet"}

# Fewest seats a game needs.
_MIN_PLAYERS = {CLASSIC: 2, SALON: 2, BANKER36: 2, SOLO: 1, BLACKJACK: 1}


def min_players(variant: str) -> int:
    """The fewest seats (AI seats count) a game of `variant` needs; the table page says
    how many more it waits for by this number."""
    return _MIN_PLAYERS[variant]


def maybe_autostart(table: Table, now: datetime.datetime) -> None:
    """Start when enough players sit and every seated person has said they are ready."""
    if playing_game(table) is not None or table.next_game_at is not None:
        return
    seats = eligible_seats(table)
    humans = [s for s in seats if not s.is_ai]
    if humans and len(seats) >= _MIN_PLAYERS[table.variant] and all(s.ready for s in humans):
        try:
            with transaction.atomic():
                start_next(table, now)
        except PlayError:
            pass  # the players stay seated and ready; the host or a new seat may start it


def engine_options(table: Table) -> dict[str, Any]:
    options: dict[str, Any] = table.engine_options()
    if table.variant == SALON:
        options.update(deals=OPEN_ENDED, cut=True, one_shoe=True)
    elif table.variant == BANKER36:
        options["banks"] = 1
    elif table.variant == BLACKJACK:
        options = {"rounds": OPEN_ENDED, "one_shoe": True}
    if table.stacks is not None:
        # A sit-and-go: one game of `banks` banks, so that every seat holds the bank as
        # often as the others (salon passes it with each new shoe, cut as at any table).
        if table.variant == SALON:
            options = {**table.engine_options(), "deals": OPEN_ENDED, "cut": True}
        options["banks"] = table.stacks["banks"]
    if table.duplicate is not None:
        options = _heat_options(table.variant, options, table.duplicate["rounds"])
    return options


def _heat_options(variant: str, options: dict[str, Any], rounds: int) -> dict[str, Any]:
    """A tournament's duplicate heat: its rounds in one game, round r starting with the
    same cards at every entrant's table (round r is the seed's shuffle r - 1)."""
    if variant == BLACKJACK:  # each round from a shoe of its own, not the running shoe
        return {"rounds": rounds, "fresh_shoe": True}
    if variant == CLASSIC:  # the entrant alone against the dealer, for the match's length
        return {"rounds": rounds, "one_player": True}
    if variant == SOLO:  # a fixed number of rounds, and no new game to start over with
        return {**options, "rounds": rounds}
    return options


def _next_banker(table: Table, players: list[dict[str, Any]]) -> str | None:
    """The seat on the left of the last game's banker (the engine skips a seat that
    cannot hold the bank); None for the first game, when the lot decides."""
    last = latest_game(table)
    if last is None or table.variant not in (SALON, BANKER36) or not players:
        return None
    banker = last.state.get("banker")
    entry = last.player_entry(banker) if banker else None
    if entry is None:
        return None
    after = [p for p in players if p["number"] > entry["number"]]
    return (after or players)[0]["id"]


def start_next(table: Table, now: datetime.datetime) -> Game | None:
    """Begin the next game. Its server seed is drawn and its commitment published first
    (docs/fairness.md); every seated person's client then sends a client seed, and the
    cards are dealt once all have (or at `deal_at`, without the missing ones). With no
    one to wait for — CLIENT_SEED_SECONDS of 0 — it deals at once and returns the game."""
    if not table.is_open:
        raise PlayError("table_closed", _("Стол закрыт."))
    if playing_game(table) is not None or table.pending is not None:
        raise PlayError("game_in_play", _("Игра уже идёт."))
    seats = _check_players(table, eligible_seats(table))
    last = latest_game(table)
    if table.duplicate is not None and last is not None:
        raise PlayError("cannot_start", _("Турнирный заезд — это одна игра: она уже сыграна."))
    if table.stacks is not None and last is not None:
        raise PlayError("cannot_start", _("За турнирным столом играют одну игру: она уже сыграна."))
    number = (last.number + 1) if last is not None else 1
    duplicate = table.duplicate
    if duplicate is not None:
        # A tournament's duplicate shoe: the event's server seed, committed when its
        # registration opened, in the event's context; no client seeds, so every
        # entrant's table deals the same cards.
        server_seed = duplicate["server_seed"]
        context = {"table": duplicate["context_table"], "shoe": number, "variant": table.variant}
    else:
        server_seed = fresh_seed()
        context = {"table": table.pk, "shoe": number, "variant": table.variant}
    table.pending = {
        "number": number,
        "seats": [seat.seat_id for seat in seats],
        "server_seed": server_seed,
        "commitment": fair.commit(server_seed, context),
        "client_seeds": {},
        "context_table": context["table"],
    }
    table.next_game_at = None
    table.deal_at = now + seconds(settings.CLIENT_SEED_SECONDS)
    table.seats.filter(player__isnull=False).update(ready=False)
    forget_seats(table)
    if duplicate is not None or settings.CLIENT_SEED_SECONDS <= 0 or not waiting_for_seeds(table):
        return deal(table, now)
    announce = {"type": "shuffle_commit", "game": number, "commitment": table.pending["commitment"]}
    frames_on_commit(
        table,
        latest_game(table),
        [{**announce, "context": context}],
        saving=["pending", "deal_at"],
        latest_known=True,
    )
    return None


def _check_players(table: Table, seats: list[Seat]) -> list[Seat]:
    # A heat's table seats its entrant alone (classic's match then has the one player).
    need = 1 if table.duplicate is not None else _MIN_PLAYERS[table.variant]
    if len(seats) < need or not any(not s.is_ai for s in seats):
        raise PlayError(
            "not_enough_players",
            _("Для игры нужно игроков: %(n)d (за столом, с фишками не ниже лимита входа).")
            % {"n": need},
        )
    return seats


def waiting_for_seeds(table: Table) -> list[str]:
    """The announced game's human players who have not given a client seed yet."""
    pending = table.pending or {}
    humans = {s.seat_id for s in table_seats(table) if s.player_id is not None and not s.leaving}
    given = pending.get("client_seeds", {})
    return [sid for sid in pending.get("seats", []) if sid in humans and sid not in given]


def deal(table: Table, now: datetime.datetime) -> Game:
    """Deal the announced game: its seed is derived from the committed server seed and
    the client seeds given, in seat order (a seat that gave none contributes nothing)."""
    pending = table.pending
    assert pending is not None
    table.pending = None
    table.deal_at = None
    chips = table.variant_spec.stakes_chips
    # The players' wallets, locked (in one query) until the deal's stakes are in escrow.
    eligible, wallets = eligible_with_wallets(table, lock=True)
    still = {seat.seat_id: seat for seat in eligible}
    seats = _check_players(table, [still[sid] for sid in pending["seats"] if sid in still])
    players: list[dict[str, Any]] = []
    for seat in seats:
        entry: dict[str, Any] = {
            "id": seat.seat_id,
            "number": seat.number,
            "user": seat.player_id,
            "ai": seat.ai_level,
        }
        if chips and table.stacks is not None:
            entry["chips"] = table.stack_of(seat.player_id)
        elif chips:
            entry["chips"] = wallets[seat.player_id].balance
        players.append(entry)
    last = latest_game(table)
    carry: dict[str, Any] = {}
    if (
        table.variant == BLACKJACK
        and last is not None
        and last.result is not None
        and last.result["status"] == "finished"  # the shoe ran out: the session goes on
    ):
        carry = dict(last.carry)
        for sid, units in last.result["deltas"].items():
            carry[sid] = carry.get(sid, 0) + units
    number = pending["number"]
    context_table = pending.get("context_table", table.pk)
    context = {"table": context_table, "shoe": number, "variant": table.variant}
    given = pending["client_seeds"]
    client_seeds = [{"seat": p["id"], "seed": given[p["id"]]} for p in players if p["id"] in given]
    seed = fair.derive(pending["server_seed"], context, client_seeds)
    first_banker = _next_banker(table, players)
    try:
        state, events = engine.new_game(
            table.variant,
            seats=[{k: p[k] for k in ("id", "chips") if k in p} for p in players],
            options=engine_options(table),
            first_banker=first_banker,
            seed=seed,
        )
    except RulesError as error:  # a table the engine refuses: say so plainly
        raise PlayError("cannot_start", error.message) from error
    game = Game.objects.create(
        table=table,
        number=number,
        variant=table.variant,
        state=state,
        players=players,
        options=engine_options(table),
        first_banker=first_banker or "",
        seed=seed,
        server_seed=pending["server_seed"],
        client_seeds=client_seeds,
        commitment=pending["commitment"],
        carry={k: v for k, v in carry.items() if k in {p["id"] for p in players}},
        context_table=None if context_table == table.pk else context_table,
        sealed=table.duplicate is not None,
    )
    dealt = store.event_insert(
        GameEvent(game=game, version=state["version"], action=None, events=events)
    )
    table.next_game_at = None
    _after(table, game, now)
    # The table's pending game, now dealt, is saved with its version.
    frames_on_commit(
        table,
        game,
        [game_start_event(game), *events],
        saving=["pending", "deal_at"],
        at=dealt.created_at,
    )
    table_changed_on_commit(table)
    return game


def rules_applied(game: Game, action: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """The game's state and events after `action`, or the rules' refusal as a PlayError:
    nothing is written, so a refusal here takes nothing back."""
    try:
        state, events = engine.apply(game.state, action)
    except RulesError as error:
        raise PlayError(error.code, _rules_message(error, game)) from error
    return state, events


def transition(
    table: Table,
    game: Game,
    action: dict[str, Any],
    now: datetime.datetime,
    *,
    applied: tuple[dict[str, Any], list[Any]] | None = None,
) -> list[dict[str, Any]]:
    """Apply one action to the game in play and persist everything it changed
    (`applied`: the rules' answer, `rules_applied`, when the caller has it already)."""
    state, events = applied if applied is not None else rules_applied(game, action)
    game.state = state
    game.actions = [*game.actions, action]
    # A move's writes (the event, the game, the table's version) wait, and in a client's
    # command go to the database in one statement with the command's id (play.db.store).
    made = store.event_insert(
        GameEvent(game=game, version=state["version"], action=action, events=events), later=True
    )
    _after(table, game, now, events, later=True)
    if not game.state["finished"] and deals.ends_a_deal(events):
        # A finished game announces its deal's end in end_game, with a voided one's.
        _announce_deal_ended_on_commit(table.pk, game.pk)
    shown = close_if_settled(table, game, now, events)
    frames_on_commit(table, game, shown, at=made.created_at, later=True)
    return events


def _after(
    table: Table,
    game: Game,
    now: datetime.datetime,
    events: Sequence[dict[str, Any]] = (),
    *,
    later: bool = False,
) -> None:
    """Chips, then the end of the game or the next decision's deadline; saves the game.

    In `classic` and `blackjack`, a move that settled a round and dealt the next one holds
    the next decision's clock back by the variant's round pause (CLASSIC_ROUND_PAUSE_SECONDS,
    BLACKJACK_ROUND_PAUSE_SECONDS), so the table can read the settled round: the clock starts
    at `clock_starts_at` and runs out a decision's time after it."""
    state = game.state
    chips_sync(game, void=False)
    if state["finished"]:
        end_game(table, game, now, status=Game.Status.FINISHED)
        return
    turn = engine.legal_actions(state)
    seat_id = turn["seat"] if turn else ""
    game.deadline_seat = seat_id
    game.grace_version = None
    entry = game.player_entry(seat_id) or {}
    seat = seat_row(table, entry)
    module = engine.find_variant(game.variant)
    if entry.get("ai"):
        wait: float | None = settings.AI_DECISION_SECONDS
    elif seat is None or seat.leaving:
        wait = 0
    elif module.CLOCK:
        wait = table.decision_seconds
    else:
        wait = None  # solo: the player takes their time
    pause = _round_pause(game, events)
    game.clock_starts_at = None
    if game.paused:  # the host's pause holds the table anyway: no round pause on top
        game.deadline = None
        game.paused_remaining_ms = int((wait or 0) * 1000)
    elif wait is None:
        game.deadline = None
    else:
        if pause:
            game.clock_starts_at = now + seconds(pause)
        game.deadline = now + seconds(pause + wait)
        if wait and not entry.get("ai") and entry.get("user"):
            announce_decision_on_commit(table, game, seat_id, entry["user"])
    # What a transition changes (every other field is saved where it is changed): not the
    # game's players, options and seeds again with every move.
    store.row_update(game, list(_TRANSITION_FIELDS), later=later)


def _round_pause(game: Game, events: Sequence[dict[str, Any]]) -> float:
    """The pause before the next round's first decision: only in `classic` and `blackjack`,
    only when this move settled a round and the next one was dealt (the game goes on)."""
    setting = _ROUND_PAUSES.get(game.variant)
    if setting is None or game.state["finished"]:
        return 0
    types = [e.get("type") for e in events]
    if "settle" not in types or "round_start" not in types:
        return 0
    return max(0.0, float(getattr(settings, setting)))


_ROUND_PAUSES = {
    "classic": "CLASSIC_ROUND_PAUSE_SECONDS",
    "blackjack": "BLACKJACK_ROUND_PAUSE_SECONDS",
}


_TRANSITION_FIELDS = (
    "state",
    "actions",
    "escrowed",
    "deadline",
    "clock_starts_at",
    "deadline_seat",
    "grace_version",
    "paused_remaining_ms",
)


def end_game(table: Table, game: Game, now: datetime.datetime, *, status: str) -> None:
    """The record is over: settle chips, reveal the seed (no card depends on it any more),
    store the hand record's result, free the seats of those who left, and schedule the
    next game where play goes on by itself."""
    store.send_waiting()  # the game's last event is read below
    voided = status == Game.Status.VOIDED
    chips_sync(game, void=voided)
    game.status = status
    game.finished_at = now
    game.deadline = None
    game.clock_starts_at = None
    game.deadline_seat = ""
    game.paused_remaining_ms = None
    game.result = replay(game_record(game))["result"]
    game.save()
    table.seats.filter(leaving=True).delete()
    if "_seats_read" in table.__dict__:  # read by this command: still true without them
        table._seats_read = [s for s in table._seats_read if not s.leaving]  # type: ignore[attr-defined]
    reason = next(
        (e.get("reason") for e in _last_events(game) if e.get("type") == "finished"), None
    )
    if (
        not voided
        and table.duplicate is None  # a heat is one game
        and table.stacks is None  # so is a sit-and-go
        and table.variant in _CONTINUOUS
        and game.state["finished"]
        and reason not in _DEAD_ENDS
    ):
        table.next_game_at = now + seconds(settings.GAME_INTERLUDE_SECONDS)
    else:
        table.next_game_at = None
    table_changed_on_commit(table)
    # Announced, not called: what follows a game (its decision review) subscribes to the
    # signal, so live play imports none of it (play/signals.py).
    _announce_deal_ended_on_commit(table.pk, game.pk)
    transaction.on_commit(lambda: _announce_ended(game.pk), robust=True)


def _announce_ended(game_id: int) -> None:
    game_ended.send_robust(sender=Game, game_id=game_id)


def announce_decision_on_commit(table: Table, game: Game, seat_id: str, user_id: int) -> None:
    """`play.signals.decision_started`, once this transaction commits: a transition gave a
    person's decision its clock, or the host's resume restarted it."""
    if not decision_started.has_listeners(Game):
        return
    started = {
        "table_id": table.pk,
        "game_id": game.pk,
        "seat_id": seat_id,
        "user_id": user_id,
        "version": game.state["version"],
        "deadline": game.deadline,
    }
    transaction.on_commit(lambda: decision_started.send_robust(sender=Game, **started), robust=True)


def _announce_deal_ended_on_commit(table_id: int, game_id: int) -> None:
    """`play.signals.deal_ended`, once this transaction commits."""
    transaction.on_commit(
        lambda: deal_ended.send_robust(sender=Game, table_id=table_id, game_id=game_id),
        robust=True,
    )


def _last_events(game: Game) -> list[dict[str, Any]]:
    event = GameEvent.objects.filter(game=game).order_by("-version").first()
    return list(event.events) if event else []


def _rules_message(error: RulesError, game: Game) -> str:
    """The engine's refusal in the player's language, naming only what the acting seat
    may know (its own legal moves)."""
    turn = engine.legal_actions(game.state)
    names = ", ".join(a["action"] for a in turn["actions"]) if turn else ""
    if error.code == "not_your_turn":
        return _("Сейчас не ваш ход.")
    if error.code == "bad_amount":
        return _("Такую ставку сделать нельзя: %(detail)s") % {"detail": _allowed(turn)}
    if error.code == "illegal_action":
        if not turn:
            return _("Сейчас ходов нет.")
        return _("Этот ход сейчас невозможен; можно: %(names)s.") % {"names": names}
    return _("Ход не принят (%(code)s).") % {"code": error.code}


def _allowed(turn: dict[str, Any] | None) -> str:
    for entry in (turn or {}).get("actions", []):
        if "amounts" in entry:
            return _("можно %(list)s.") % {"list": ", ".join(map(str, entry["amounts"]))}
        if "min" in entry:
            return _("от %(min)d до %(max)d.") % {"min": entry["min"], "max": entry["max"]}
    return ""


def close_locked_table(table: Table, game: Game | None, now: datetime.datetime) -> None:
    """Close the locked table: a game still in play is voided, an announced one dropped,
    every seat freed."""
    store.send_waiting()  # the rows written below, written in order
    if game is not None and game.is_playing:
        end_game(table, game, now, status=Game.Status.VOIDED)
    if table.status != Table.Status.CLOSED or table.closed_at is None:
        table.status = Table.Status.CLOSED
        table.closed_at = timezone.now()
    table.closing = False
    table.next_game_at = None
    table.pending = None
    table.deal_at = None
    table.save(
        update_fields=["status", "closed_at", "closing", "next_game_at", "pending", "deal_at"]
    )
    table.seats.all().delete()
    forget_seats(table)
    table_changed_on_commit(table)  # gone from the lobby, also when no game was in play


def close_if_settled(
    table: Table, game: Game, now: datetime.datetime, events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A table its host is closing closes as soon as no chip is in play any more: its
    deal or bank settled (or its game ended). The events of the change, with the close."""
    if not table.closing or (game.is_playing and engine.in_play(game.state)):
        return events
    close_locked_table(table, game, now)
    return [*events, {"type": "table_closed"}]
