"""Writes to tables, seats and live games. Each service is one transaction, named
<thing>_<verb>, taking keyword arguments.

Every change at a live table follows one path: lock the table row (one writer per
table), apply an overdue deadline first, check the client's expected version, call the
rules engine, persist the state, its events and the new version, move chips through the
one ledger function, and broadcast per-viewer frames only once the transaction has
committed (`_touch`). Deadlines live in the database (`Game.deadline`,
`Table.next_game_at`); `deadlines_sweep` — Celery beat every quarter second
(settings.DEADLINE_SWEEP_SECONDS), or the embedded ticker — plays them through the same
code.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Account, LedgerEntry
from accounts.services import ChipsError, chips_transfer, escrow_account, wallet_for
from accounts.throttling import ThrottleHit, throttle_hit, throttle_release
from games import engine
from games import fairness as fair
from games import shoe as shoes
from games.ai import LEVELS as AI_LEVELS
from games.ai import choose_action
from games.errors import RulesError
from games.record import replay
from games.shuffle import fresh_seed
from tables import broadcast
from tables.frames import frame
from tables.models import ClientCommand, Game, GameEvent, Presence, Seat, Table
from tables.signals import game_ended
from tables.variants import BANKER36, BLACKJACK, CLASSIC, SALON, SOLO

logger = logging.getLogger(__name__)

# A one_shoe game's length in the engine: the shoe ends it long before.
_OPEN_ENDED = 1_000_000
# Variants whose next game (bank, shoe) follows by itself after a short interlude.
_CONTINUOUS = {SALON, BANKER36, BLACKJACK}
# Reasons a game ends that leave nothing to continue with (nobody can bank or bet).
_DEAD_ENDS = {"no_banker", "nobody_can_hold_the_bank", "no_ponter_can_bet"}
# Variants whose AI seats play: only those that stake no account chips (an AI has no
# wallet, and chips must come from somebody's).
AI_VARIANTS = {CLASSIC, BLACKJACK}
# Fewest seats a game needs.
_MIN_PLAYERS = {CLASSIC: 2, SALON: 2, BANKER36: 2, SOLO: 1, BLACKJACK: 1}


class SeatError(ValidationError):
    """A player cannot sit down (or leave) here; the message says why."""


class PlayError(Exception):
    """A live-table request refused: `code` is the protocol's error code (docs/protocol.md)
    and the message is in the active language, fit to show the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def _now() -> datetime.datetime:
    return timezone.now()


def _seconds(value: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=value)


# --- tables ----------------------------------------------------------------------------


@transaction.atomic
def table_create(*, created_by: Any = None, **fields: Any) -> Table:
    """Create a table after validating it against its variant's limits."""
    table = Table(created_by=created_by, **fields)
    if table.private and not table.invite_code:
        table.invite_code = secrets.token_urlsafe(12)
    table.full_clean()
    table.save()
    _lobby_changed(table, added=True)
    return table


def _lobby_changed(table: Table, *, added: bool = False) -> None:
    """Once committed, the lobby sockets are told this table changed (or was `added`, or,
    no longer listed, removed): tables.broadcast.lobby_changed. A private table is never
    listed, so nothing is said of it."""
    if table.private:
        return
    table_id = table.pk
    transaction.on_commit(lambda: broadcast.lobby_changed(table_id, added=added))


def table_open(*, by: Any, variant: str, private: bool = False, **fields: Any) -> Table:
    """A signed-in player opens a table from the lobby and becomes its host: the one way
    a player opens a table by hand (the lobby's form, its socket's `open_table`), so that
    the limits of `_may_open` hold for both. (The one-click tables: `table_one_click`.)"""
    return table_open_with(by=by, variant=variant, private=private, fields=fields)


# The fields of a table its opener may set (docs/protocol.md §14, `open_table`).
TABLE_OPEN_FIELDS = frozenset(
    {"name", "seat_count", "stake", "min_bet", "max_bet", "entry_limit"}
    | {"decision_seconds", "reconnect_grace_seconds", "match_length"}
)


def table_open_with(
    *, by: Any, variant: str, private: bool = False, fields: Mapping[str, Any]
) -> Table:
    """`table_open` with the table's fields as one mapping, as a socket message gives
    them: any key of it is a field, refused unless it is one (a key named like an
    argument here — `by`, `one_click` — cannot reach it)."""
    _require_signed_in(by)
    unknown = sorted(set(fields) - TABLE_OPEN_FIELDS)
    if unknown:
        raise PlayError("bad_message", _("Неизвестные поля: %(f)s.") % {"f": ", ".join(unknown)})
    # Raw JSON reaches the model here (no form converts it): a string where a number goes
    # would break Table.clean's comparisons instead of being refused.
    wrong = sorted(
        k for k, v in fields.items() if k != "name" and v is not None and type(v) is not int
    )
    if wrong:
        raise PlayError("bad_message", _("Поля %(f)s — целые числа.") % {"f": ", ".join(wrong)})
    values = {"name": _default_name(by), **fields}
    with transaction.atomic():
        counted = _may_open(by)
        try:
            return table_create(created_by=by, variant=variant, private=private, **values)
        except ValidationError as error:
            _give_back(counted)
            text = "; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items())
            raise PlayError("bad_table", text) from error
        except BaseException:
            _give_back(counted)
            raise


def table_one_click(*, by: Any, variant: str, ai_levels: Sequence[str] = ()) -> Table:
    """The lobby's «Играть»: the player's own private table of `variant` (with AI seats of
    `ai_levels`), the player seated. The one they have, if it is open — seated again if
    they had stood up — or else a new one: one per player and variant, so they never pile
    up, and they are left out of the open-at-once limit (the hourly rate still counts a
    new one). Made whole or not at all, under a lock of the player's row: two clicks at
    once make one table."""
    _require_signed_in(by)
    with transaction.atomic():
        _lock_player(by)
        mine = (
            Table.objects.filter(
                variant=variant, status=Table.Status.OPEN, created_by=by, one_click=True
            )
            .order_by("-pk")
            .first()
        )
        if mine is not None:
            if not mine.seats.filter(player=by).exists():
                # If they cannot sit, the table page says why (it is theirs to watch).
                with contextlib.suppress(PlayError, SeatError):
                    seat_take(table=mine, player=by)
            return mine
        counted = _may_open(by, open_at_once=False)
        try:
            table = table_create(
                created_by=by,
                variant=variant,
                private=True,
                one_click=True,
                name=_default_name(by),
            )
            seat_take(table=table, player=by)
            for level in ai_levels:
                ai_seat_add(table=table, by=by, level=level)
        except BaseException:
            _give_back(counted)  # nothing of it stays: the transaction rolls back
            raise
        return table


def _require_signed_in(by: Any) -> None:
    if not getattr(by, "is_authenticated", False):
        raise PlayError("not_signed_in", _("Откройте стол, войдя в свой аккаунт."))


def _default_name(by: Any) -> str:
    return _("Стол %(user)s") % {"user": by.username}


def _lock_player(by: Any) -> None:
    """Lock the player's row for the transaction: their opens wait for each other."""
    get_user_model().objects.select_for_update().filter(pk=by.pk).first()


def _give_back(counted: ThrottleHit | None) -> None:
    if counted is not None:  # a table that was not made is not an opening
        throttle_release(counted)


def _may_open(by: Any, *, open_at_once: bool = True) -> ThrottleHit | None:
    """Refuse a player a new table beyond their limits (staff have none): at most
    TABLES_OPEN_PER_USER of theirs open at once, at most TABLE_OPENS_PER_HOUR opened in a
    clock hour. Returns the rate's counted attempt (None for staff).

    The open tables are counted under a lock of the player's row: two opens at once (two
    tabs, a script) would otherwise both count the same tables and both pass the limit.
    One player opening 2,000 tables made the lobby slow and heavy for everyone."""
    if by.is_staff or by.is_superuser:
        return None
    limit = settings.TABLES_OPEN_PER_USER
    if open_at_once:
        _lock_player(by)  # (a one-click open has locked it already)
    mine = Table.objects.filter(created_by=by, status=Table.Status.OPEN, one_click=False)
    if open_at_once and mine.count() >= limit:
        raise PlayError(
            "too_many_tables",
            _("У вас уже открыто столов: %(n)d, больше нельзя. Закройте один из них.")
            % {"n": limit},
        )
    # The rate: the shared cache's atomic counter (accounts.throttling: Redis in
    # production), so that it holds across web processes.
    hit = throttle_hit(scope="table-open", subject=str(by.pk), limit=settings.TABLE_OPENS_PER_HOUR)
    if not hit.allowed:
        raise PlayError(
            "rate_limited",
            _("Слишком много новых столов: не больше %(n)d в час. Попробуйте позже.")
            % {"n": settings.TABLE_OPENS_PER_HOUR},
        )
    return hit


@transaction.atomic
def table_close(*, table: Table) -> Table:
    """Close a table now (an administrator): a game in play is voided (every stake
    returned), seats are freed."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    game = _playing(table)
    _close(table, game, _now())
    _touch(table, game, [{"type": "table_closed"}])
    return table


@transaction.atomic
def table_close_by_host(*, table: Table, by: Any) -> dict[str, Any]:
    """The `close` command. At a chip table whose deal (salon) or bank (banker36) has
    chips in play the table is not closed now — voiding would hand back the stakes of a
    deal everyone has seen, the host's own included — but once that deal or bank settles
    by the rules (`_transition`); the answer says so with `closing`. Anywhere else it
    closes at once. Voiding a game in play is the administrators' (table_close,
    game_void: tables/admin.py)."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    _require_host(table, by)
    game = _playing(table)
    if table.variant_spec.stakes_chips and game is not None and engine.in_play(game.state):
        if not table.closing:
            table.closing = True
            table.save(update_fields=["closing"])
            _touch(table, game, [{"type": "table_closing"}])
        return {"closing": True}
    _close(table, game, _now())
    _touch(table, game, [{"type": "table_closed"}])
    return {}


def _close(table: Table, game: Game | None, now: datetime.datetime) -> None:
    """Close the locked table: a game still in play is voided, an announced one dropped,
    every seat freed."""
    if game is not None and game.is_playing:
        _end_game(table, game, now, status=Game.Status.VOIDED)
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
    _forget_seats(table)
    _lobby_changed(table)  # gone from the lobby, also when no game was in play


def _close_if_settled(
    table: Table, game: Game, now: datetime.datetime, events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A table its host is closing closes as soon as no chip is in play any more: its
    deal or bank settled (or its game ended). The events of the change, with the close."""
    if not table.closing or (game.is_playing and engine.in_play(game.state)):
        return events
    _close(table, game, now)
    return [*events, {"type": "table_closed"}]


@transaction.atomic
def table_reopen(*, table: Table) -> Table:
    table = Table.objects.select_for_update().get(pk=table.pk)
    table.status = Table.Status.OPEN
    table.closed_at = None
    table.closing = False
    table.save(update_fields=["status", "closed_at", "closing"])
    _touch(table, None, [])
    _lobby_changed(table, added=True)
    return table


@transaction.atomic
def game_void(*, game: Game) -> Game:
    """An admin voids a game in play: stakes go back, the record ends where it stood."""
    table = Table.objects.select_for_update().get(pk=game.table_id)
    current = _playing(table)
    if current is None or current.pk != game.pk:
        raise PlayError("no_game", _("Эта игра уже окончена."))
    now = _now()
    _end_game(table, current, now, status=Game.Status.VOIDED)
    table.save(update_fields=["next_game_at"])
    # A table its host was closing waited for this game's deal to settle; voided, it has
    # nothing left to wait for.
    _touch(table, current, _close_if_settled(table, current, now, [{"type": "game_voided"}]))
    return current


# --- seats -----------------------------------------------------------------------------


def _is_host(table: Table, user: Any) -> bool:
    return bool(user.is_staff or (table.created_by_id and table.created_by_id == user.pk))


def _require_host(table: Table, user: Any) -> None:
    if not _is_host(table, user):
        raise PlayError("not_host", _("Это может только ведущий стола или администратор."))


def _free_number(table: Table) -> int:
    taken = set(table.seats.values_list("number", flat=True))
    free = [n for n in range(1, table.seat_count + 1) if n not in taken]
    if not free:
        raise SeatError(_("Свободных мест нет."), code="table_full")
    return free[0]


@transaction.atomic
def seat_take(*, table: Table, player: Any, invite: str | None = None) -> Seat:
    """Sit `player` at the lowest free seat of an open table, if their chips allow."""
    # Lock the table so two players cannot both take its last seat.
    table = Table.objects.select_for_update().get(pk=table.pk)
    if not table.is_open:
        raise SeatError(_("Стол закрыт."), code="table_closed")
    existing = table.seats.filter(player=player).first()
    if existing is not None:
        if existing.leaving:
            raise SeatError(
                _("Вы встали из-за стола: место освободится, когда закончится эта игра."),
                code="leaving",
            )
        return existing
    if table.private and invite != table.invite_code and not _is_host(table, player):
        raise SeatError(_("Это частный стол: нужна ссылка-приглашение."), code="invite_required")
    spec = table.variant_spec
    if spec.stakes_chips:
        # A player's chips are in play at one table at a time, so that what a game counts
        # as theirs is what their wallet holds. The wallet's row lock (to the commit) makes
        # two tabs sitting at two tables at once take turns: this table's lock cannot.
        Account.objects.select_for_update().get(pk=wallet_for(player).pk)
        elsewhere = (
            Seat.objects.filter(player=player, table__status=Table.Status.OPEN)
            .exclude(table=table)
            .filter(table__variant__in=[k for k in (SALON, BANKER36)])
            .select_related("table")
            .first()
        )
        if elsewhere is not None:
            raise SeatError(
                _("Вы уже играете на фишки за столом «%(name)s»: встаньте оттуда сначала.")
                % {"name": elsewhere.table.name},
                code="seated_elsewhere",
            )
    balance = wallet_for(player).balance
    if balance < table.entry_limit:
        raise SeatError(
            _("Чтобы сесть за этот стол, нужно не меньше %(limit)d фишек, у вас %(balance)d.")
            % {"limit": table.entry_limit, "balance": balance},
            code="below_entry_limit",
        )
    number = _free_number(table)
    try:
        with transaction.atomic():
            seat = Seat.objects.create(table=table, number=number, player=player)
    except IntegrityError as exc:  # pragma: no cover - the table lock prevents it
        raise SeatError(_("Место уже занято."), code="seat_taken") from exc
    seat.player = player
    _touch(table, _latest(table), [{"type": "sat_down", "seat": seat.seat_id}])
    _lobby_changed(table)
    if table.variant == SOLO:  # one player, no one to wait for
        _start(table, _now())
    else:
        _maybe_autostart(table, _now())
    return seat


@transaction.atomic
def seat_leave(*, table: Table, player: Any) -> bool:
    """Stand up. Between games the seat is freed at once; during a game the player's
    decisions are played by the clock at once (a forfeit: stand, or sit the duel out) and
    the seat is freed when the game ends — `classic` removes the player from the match and
    `solo` ends its game, as their rules say."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    seat = table.seats.filter(player=player).select_related("player").first()
    if seat is None:
        return False
    _forfeit(table, seat, _now())
    _lobby_changed(table)
    return True


def _forfeit(table: Table, seat: Seat, now: datetime.datetime) -> None:
    game = _playing(table)
    sid = seat.seat_id
    if game is None or sid not in game.seat_ids:
        seat.delete()
        _touch(table, _latest(table), [{"type": "stood_up", "seat": sid}])
        return
    if table.variant == SOLO:
        seat.delete()
        _end_game(table, game, now, status=Game.Status.FINISHED)
        _touch(table, game, [{"type": "stood_up", "seat": sid}])
        return
    if table.variant == CLASSIC and sid in game.state["players"]:
        seat.delete()
        _transition(table, game, {"action": "remove", "target": sid}, now)
        return
    seat.leaving = True
    seat.save(update_fields=["leaving"])
    if game.deadline_seat == sid:
        # The forfeit is played at once — at resume, if the game is paused (its clock
        # then holds no time left), not after the decision time it had left.
        if game.paused:
            game.paused_remaining_ms = 0
            game.save(update_fields=["paused_remaining_ms"])
        else:
            game.deadline = now
            game.save(update_fields=["deadline"])
    _touch(table, game, [{"type": "leaving", "seat": sid}])


@transaction.atomic
def seat_ready(*, table: Table, player: Any, ready: bool = True) -> Seat:
    table = Table.objects.select_for_update().get(pk=table.pk)
    seat = table.seats.filter(player=player).first()
    if seat is None:
        raise PlayError("not_seated", _("Сначала сядьте за стол."))
    seat.ready = ready
    seat.save(update_fields=["ready"])
    _touch(table, _latest(table), [{"type": "ready", "seat": seat.seat_id, "ready": ready}])
    if ready:
        _maybe_autostart(table, _now())
    return seat


@transaction.atomic
def ai_seat_add(*, table: Table, by: Any, level: str) -> Seat:
    table = Table.objects.select_for_update().get(pk=table.pk)
    _require_host_or_trainee(table, by)
    if table.variant not in AI_VARIANTS:
        raise PlayError(
            "no_ai_here",
            _("ИИ играет только на очки и учебные единицы: в классике и блэкджеке."),
        )
    if level not in AI_LEVELS[table.variant]:
        raise PlayError(
            "bad_level",
            _("Уровни ИИ: %(levels)s.") % {"levels": ", ".join(AI_LEVELS[table.variant])},
        )
    if not table.is_open:
        raise PlayError("table_closed", _("Стол закрыт."))
    try:
        number = _free_number(table)
    except SeatError as error:
        raise PlayError("table_full", error.messages[0]) from error
    seat = Seat.objects.create(table=table, number=number, ai_level=level, ready=True)
    _touch(table, _latest(table), [{"type": "sat_down", "seat": seat.seat_id, "ai": level}])
    _lobby_changed(table)
    return seat


@transaction.atomic
def ai_seat_remove(*, table: Table, by: Any, number: int) -> None:
    table = Table.objects.select_for_update().get(pk=table.pk)
    _require_host_or_trainee(table, by)
    seat = table.seats.filter(number=number, player__isnull=True).first()
    if seat is None:
        raise PlayError("not_found", _("За этим местом нет ИИ."))
    _forfeit(table, seat, _now())
    _lobby_changed(table)


def _require_host_or_trainee(table: Table, user: Any) -> None:
    """A blackjack training table's seated player manages its AI seats like a host."""
    if table.variant == BLACKJACK and table.seats.filter(player=user).exists():
        return
    _require_host(table, user)


@transaction.atomic
def player_remove(*, table: Table, by: Any, seat_id: str) -> None:
    """The host (or an admin) removes a player: in `classic` the rules' removal, elsewhere
    the same forfeit as standing up."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    _require_host(table, by)
    seat = next((s for s in table.seats.select_related("player") if s.seat_id == seat_id), None)
    if seat is None:
        raise PlayError("not_found", _("За столом нет игрока %(seat)s.") % {"seat": seat_id})
    _forfeit(table, seat, _now())
    _lobby_changed(table)


# --- games -----------------------------------------------------------------------------


def _locked_table(table_id: int) -> Table:
    """The table, locked for the command that reads it (only its own row: the host, whose
    name goes into every frame (frames.table_info), is read with it, not locked)."""
    return (
        Table.objects.select_for_update(of=("self",))
        .select_related("created_by")
        .only(*_TABLE_FIELDS, "created_by__username")
        .get(pk=table_id)
    )


# A user's name is all a table's frames show of its host and its seated players (their
# seat ids, their labels): the rest of a user row (a password hash, dates, flags) is not
# read with every move.
_TABLE_FIELDS = [f.name for f in Table._meta.concrete_fields]
_SEAT_FIELDS = [f.name for f in Seat._meta.concrete_fields]


def _playing(table: Table) -> Game | None:
    game = Game.objects.select_for_update().filter(table=table, status=Game.Status.PLAYING).first()
    if game is not None:
        game.table = table  # read through game.table (chips, records): not fetched again
    return game


def _latest(table: Table) -> Game | None:
    game = Game.objects.filter(table=table).order_by("-number").first()
    if game is not None:
        game.table = table
    return game


def _eligible(table: Table) -> list[Seat]:
    return _eligible_with_wallets(table, lock=False)[0]


def _eligible_with_wallets(table: Table, *, lock: bool) -> tuple[list[Seat], dict[int, Account]]:
    """The seats that may play the next game (not leaving; at a chip table, with the entry
    limit in their wallets), and at a chip table those wallets (`lock`: for a deal)."""
    seats = [s for s in _seats(table) if not s.leaving]
    if not table.variant_spec.stakes_chips:
        return seats, {}
    wallets = _wallets(seats, lock=lock)
    return [s for s in seats if wallets[s.player_id].balance >= table.entry_limit], wallets


def _wallets(seats: list[Seat], *, lock: bool) -> dict[int, Account]:
    """The wallets of the seats' players by user id, read in one query (locked, in the
    order of their ids, for a deal); a wallet not made yet is made, empty."""
    users = {s.player_id: s.player for s in seats if s.player_id is not None}
    query = Account.objects.filter(owner_id__in=users, kind=Account.Kind.PLAYER).order_by("pk")
    found = {a.owner_id: a for a in (query.select_for_update() if lock else query)}
    for user_id, user in users.items():
        if user_id not in found:
            found[user_id] = wallet_for(user)
    return found


def _maybe_autostart(table: Table, now: datetime.datetime) -> None:
    """Start when enough players sit and every seated person has said they are ready."""
    if _playing(table) is not None or table.next_game_at is not None:
        return
    seats = _eligible(table)
    humans = [s for s in seats if not s.is_ai]
    if humans and len(seats) >= _MIN_PLAYERS[table.variant] and all(s.ready for s in humans):
        try:
            with transaction.atomic():
                _start(table, now)
        except PlayError:
            pass  # the players stay seated and ready; the host or a new seat may start it


@transaction.atomic
def game_start(*, table: Table, by: Any, rounds: int | None = None) -> Game | None:
    """The host starts the next game now (players need not be ready); in `classic` the
    host may pick the match length (5, 7 or 10 rounds) as they start it. Returns the game
    once dealt, None while its commitment waits for the players' client seeds."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.variant == BLACKJACK and table.seats.filter(player=by).exists():
        pass  # a training table's player starts their own session
    else:
        _require_host(table, by)
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
    return _start(table, _now())


def _engine_options(table: Table) -> dict[str, Any]:
    options: dict[str, Any] = table.engine_options()
    if table.variant == SALON:
        options.update(deals=_OPEN_ENDED, cut=True, one_shoe=True)
    elif table.variant == BANKER36:
        options["banks"] = 1
    elif table.variant == BLACKJACK:
        options = {"rounds": _OPEN_ENDED, "one_shoe": True}
    return options


def _next_banker(table: Table, players: list[dict[str, Any]]) -> str | None:
    """The seat on the left of the last game's banker (the engine skips a seat that
    cannot hold the bank); None for the first game, when the lot decides."""
    last = _latest(table)
    if last is None or table.variant not in (SALON, BANKER36) or not players:
        return None
    banker = last.state.get("banker")
    entry = last.player_entry(banker) if banker else None
    if entry is None:
        return None
    after = [p for p in players if p["number"] > entry["number"]]
    return (after or players)[0]["id"]


def _start(table: Table, now: datetime.datetime) -> Game | None:
    """Begin the next game. Its server seed is drawn and its commitment published first
    (docs/fairness.md); every seated person's client then sends a client seed, and the
    cards are dealt once all have (or at `deal_at`, without the missing ones). With no
    one to wait for — CLIENT_SEED_SECONDS of 0 — it deals at once and returns the game."""
    if not table.is_open:
        raise PlayError("table_closed", _("Стол закрыт."))
    if _playing(table) is not None or table.pending is not None:
        raise PlayError("game_in_play", _("Игра уже идёт."))
    seats = _check_players(table, _eligible(table))
    last = _latest(table)
    number = (last.number + 1) if last is not None else 1
    server_seed = fresh_seed()
    context = {"table": table.pk, "shoe": number, "variant": table.variant}
    table.pending = {
        "number": number,
        "seats": [seat.seat_id for seat in seats],
        "server_seed": server_seed,
        "commitment": fair.commit(server_seed, context),
        "client_seeds": {},
    }
    table.next_game_at = None
    table.deal_at = now + _seconds(settings.CLIENT_SEED_SECONDS)
    table.seats.filter(player__isnull=False).update(ready=False)
    _forget_seats(table)
    if settings.CLIENT_SEED_SECONDS <= 0 or not _waiting_for_seeds(table):
        return _deal(table, now)
    table.save(update_fields=["pending", "deal_at", "next_game_at"])
    announce = {"type": "shuffle_commit", "game": number, "commitment": table.pending["commitment"]}
    _touch(table, _latest(table), [{**announce, "context": context}])
    return None


def _check_players(table: Table, seats: list[Seat]) -> list[Seat]:
    need = _MIN_PLAYERS[table.variant]
    if len(seats) < need or not any(not s.is_ai for s in seats):
        raise PlayError(
            "not_enough_players",
            _("Для игры нужно игроков: %(n)d (за столом, с фишками не ниже лимита входа).")
            % {"n": need},
        )
    return seats


def _waiting_for_seeds(table: Table) -> list[str]:
    """The announced game's human players who have not given a client seed yet."""
    pending = table.pending or {}
    humans = {s.seat_id for s in _seats(table) if s.player_id is not None and not s.leaving}
    given = pending.get("client_seeds", {})
    return [sid for sid in pending.get("seats", []) if sid in humans and sid not in given]


@transaction.atomic
def client_seed_give(*, table: Table, player: Any, seed: str) -> dict[str, Any]:
    """A player's contribution to the announced game's shuffle (docs/fairness.md). Once
    every player has given one, the cards are dealt."""
    table = _locked_table(table.pk)
    pending = table.pending
    seat = next((s for s in _read_seats(table) if s.player_id == player.pk), None)
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
    pending["client_seeds"][seat.seat_id] = seed
    table.pending = pending
    table.save(update_fields=["pending"])
    if not _waiting_for_seeds(table):
        try:
            with transaction.atomic():
                _deal(table, _now())
            return {"game": pending["number"]}
        except PlayError:
            # The players it was announced for are not all here any more: the seed is
            # kept, and the sweep settles the announcement at deal_at.
            table.pending = pending
            table.deal_at = Table.objects.values_list("deal_at", flat=True).get(pk=table.pk)
    _touch(table, _latest(table), [{"type": "client_seed", "seat": seat.seat_id}])
    return {"game": pending["number"]}


def _deal(table: Table, now: datetime.datetime) -> Game:
    """Deal the announced game: its seed is derived from the committed server seed and
    the client seeds given, in seat order (a seat that gave none contributes nothing)."""
    pending = table.pending
    assert pending is not None
    table.pending = None
    table.deal_at = None
    chips = table.variant_spec.stakes_chips
    # The players' wallets, locked (in one query) until the deal's stakes are in escrow.
    eligible, wallets = _eligible_with_wallets(table, lock=True)
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
        if chips:
            entry["chips"] = wallets[seat.player_id].balance
        players.append(entry)
    last = _latest(table)
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
    context = {"table": table.pk, "shoe": number, "variant": table.variant}
    given = pending["client_seeds"]
    client_seeds = [{"seat": p["id"], "seed": given[p["id"]]} for p in players if p["id"] in given]
    seed = fair.derive(pending["server_seed"], context, client_seeds)
    first_banker = _next_banker(table, players)
    try:
        state, events = engine.new_game(
            table.variant,
            seats=[{k: p[k] for k in ("id", "chips") if k in p} for p in players],
            options=_engine_options(table),
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
        options=_engine_options(table),
        first_banker=first_banker or "",
        seed=seed,
        server_seed=pending["server_seed"],
        client_seeds=client_seeds,
        commitment=pending["commitment"],
        carry={k: v for k, v in carry.items() if k in {p["id"] for p in players}},
    )
    GameEvent.objects.create(game=game, version=state["version"], action=None, events=events)
    table.next_game_at = None
    table.save(update_fields=["pending", "deal_at", "next_game_at"])
    _after(table, game, now)
    announce = [{"type": "game_start", "game": number, "commitment": game.commitment}]
    _touch(table, game, announce + events)
    _lobby_changed(table)
    return game


def _transition(
    table: Table, game: Game, action: dict[str, Any], now: datetime.datetime
) -> list[dict[str, Any]]:
    """Apply one action to the game in play and persist everything it changed."""
    try:
        state, events = engine.apply(game.state, action)
    except RulesError as error:
        raise PlayError(error.code, _rules_message(error, game)) from error
    game.state = state
    game.actions = [*game.actions, action]
    GameEvent.objects.create(game=game, version=state["version"], action=action, events=events)
    _after(table, game, now)
    _touch(table, game, _close_if_settled(table, game, now, events))
    return events


def _after(table: Table, game: Game, now: datetime.datetime) -> None:
    """Chips, then the end of the game or the next decision's deadline; saves the game."""
    state = game.state
    _sync_chips(game, void=False)
    if state["finished"]:
        _end_game(table, game, now, status=Game.Status.FINISHED)
        return
    turn = engine.legal_actions(state)
    seat_id = turn["seat"] if turn else ""
    game.deadline_seat = seat_id
    game.grace_version = None
    entry = game.player_entry(seat_id) or {}
    seat = _seat_row(table, entry)
    module = engine.find_variant(game.variant)
    if entry.get("ai"):
        wait: float | None = settings.AI_DECISION_SECONDS
    elif seat is None or seat.leaving:
        wait = 0
    elif module.CLOCK:
        wait = table.decision_seconds
    else:
        wait = None  # solo: the player takes their time
    if game.paused:
        game.deadline = None
        game.paused_remaining_ms = int((wait or 0) * 1000)
    else:
        game.deadline = None if wait is None else now + _seconds(wait)
    # What a transition changes (every other field is saved where it is changed): not the
    # game's players, options and seeds again with every move.
    game.save(update_fields=_TRANSITION_FIELDS)


_TRANSITION_FIELDS = (
    "state",
    "actions",
    "escrowed",
    "deadline",
    "deadline_seat",
    "grace_version",
    "paused_remaining_ms",
)


def _seat_row(table: Table, entry: dict[str, Any]) -> Seat | None:
    if not entry:
        return None
    return next((s for s in _seats(table) if s.number == entry["number"]), None)


def _seats(table: Table) -> list[Seat]:
    """The table's seats by number, with their players: those a move read under the
    table's lock (`_read_seats`), else read now."""
    known: list[Seat] | None = getattr(table, "_seats_read", None)
    if known is not None:
        return known
    return list(table.seats.select_related("player").order_by("number"))


def _read_seats(table: Table) -> list[Seat]:
    """Read the seats of a table just locked, once for every step of the command that
    follows (its own seat, the next decision's, every frame): seat rows change only under
    that lock, and a step that changes them keeps the list true (`_end_game`) or has it
    read again (`_forget_seats`, `_start`). Three reads of the same rows were a sixth of a
    move's queries."""
    seats = list(
        table.seats.select_related("player")
        .only(*_SEAT_FIELDS, "player__username")
        .order_by("number")
    )
    table._seats_read = seats  # type: ignore[attr-defined]
    return seats


def _forget_seats(table: Table) -> None:
    """Seat rows of `table` were written: the next `_seats` reads them again."""
    table.__dict__.pop("_seats_read", None)


def _end_game(table: Table, game: Game, now: datetime.datetime, *, status: str) -> None:
    """The record is over: settle chips, reveal the seed (no card depends on it any more),
    store the hand record's result, free the seats of those who left, and schedule the
    next game where play goes on by itself."""
    voided = status == Game.Status.VOIDED
    _sync_chips(game, void=voided)
    game.status = status
    game.finished_at = now
    game.deadline = None
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
        and table.variant in _CONTINUOUS
        and game.state["finished"]
        and reason not in _DEAD_ENDS
    ):
        table.next_game_at = now + _seconds(settings.GAME_INTERLUDE_SECONDS)
    else:
        table.next_game_at = None
    _lobby_changed(table)
    # Announced, not called: what follows a game (its decision review) subscribes to the
    # signal, so live play imports none of it (tables/signals.py).
    transaction.on_commit(lambda: _announce_ended(game.pk), robust=True)


def _announce_ended(game_id: int) -> None:
    game_ended.send_robust(sender=Game, game_id=game_id)


def _last_events(game: Game) -> list[dict[str, Any]]:
    event = GameEvent.objects.filter(game=game).order_by("-version").first()
    return list(event.events) if event else []


def _sync_chips(game: Game, *, void: bool) -> None:
    """Keep the game's escrow equal to the chips in play, through the one ledger function.

    A seat that began with c chips holds c + deltas − in_play (games.engine.in_play), so
    its net chips in escrow are in_play − deltas. Whatever differs from what is already
    escrowed moves now, into the escrow first so it never runs short; the idempotency key
    is (game, engine version, seat), so a retried settlement never pays twice. Voiding
    returns what is in play to whoever staked it; settled results stand.
    """
    if not game.table.variant_spec.stakes_chips:
        return
    state = game.state
    staked = {} if void else engine.in_play(state)
    target = {sid: staked.get(sid, 0) - state["deltas"][sid] for sid in game.seat_ids}
    moves = sorted(
        ((sid, target[sid] - game.escrowed.get(sid, 0)) for sid in game.seat_ids),
        key=lambda move: -move[1],
    )
    escrow = None
    for sid, amount in moves:
        if amount == 0:
            continue
        if escrow is None:
            escrow = escrow_account(f"escrow:game:{game.pk}")
        entry = game.player_entry(sid)
        assert entry is not None and entry["user"] is not None
        wallet = Account.objects.get(owner_id=entry["user"], kind=Account.Kind.PLAYER)
        key = f"game:{game.pk}:v{state['version']}:{sid}" + (":void" if void else "")
        common = {"idempotency_key": key, "round_ref": f"game:{game.pk}", "game": game}
        try:
            if amount > 0:
                chips_transfer(
                    source=wallet,
                    destination=escrow,
                    amount=amount,
                    reason=LedgerEntry.Reason.STAKE,
                    **common,
                )
            else:
                reason = LedgerEntry.Reason.REFUND if void else LedgerEntry.Reason.PAYOUT
                chips_transfer(
                    source=escrow, destination=wallet, amount=-amount, reason=reason, **common
                )
        except ChipsError as error:
            # Not the ledger's own message: it names a balance, maybe another player's.
            raise PlayError(error.code, _("Не хватает фишек для этого хода.")) from error
    game.escrowed = target


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


# What a client may send with an action, per argument name.
_ACTION_ARGUMENTS = ("amount", "position", "target")


def game_act(
    *, table: Table, player: Any, action: dict[str, Any], version: int | None
) -> dict[str, Any]:
    """A seated player's move. An overdue deadline is played first (in its own
    transaction, so it stands whatever happens to this move)."""
    # The move looks for a due deadline under the table's lock, which it waits for
    # rather than skipping the table as the sweepers do: whoever holds it may not be
    # about to play the deadline (another player's command, or a sweep whose worker died
    # mid-transaction and whose lock stays until PostgreSQL notices), and a move that
    # skipped the check would then be applied past its deadline.
    now = _now()
    try:
        return _act(table, player, action, version, now)
    except _DueMeanwhile:
        # Nothing of the move was written: play the overdue decision (its own
        # transaction, so it stands whatever happens to the move), then the move.
        _apply_due(table.pk, now, wait=True)
        return _act(table, player, action, version, None)


def _version_expected(now: int, version: int | None) -> None:
    """A command decided on table version `version` (None: the client named none) is
    refused once the table has moved on."""
    if version is not None and version != now:
        raise PlayError(
            "stale_version",
            _("Стол изменился (версия %(now)d, у вас %(yours)d): вот свежее состояние.")
            % {"now": now, "yours": version},
        )


class _DueMeanwhile(Exception):
    pass


def _act(
    table: Table,
    player: Any,
    action: dict[str, Any],
    version: int | None,
    checked_at: datetime.datetime | None,
) -> dict[str, Any]:
    with transaction.atomic():
        table = _locked_table(table.pk)
        game = _playing(table)
        if (
            checked_at is not None
            and game is not None
            and game.deadline is not None
            and game.deadline <= checked_at
        ):
            raise _DueMeanwhile()
        if game is None:
            raise PlayError("no_game", _("Сейчас за столом нет игры."))
        _version_expected(table.version, version)
        seat = next((s for s in _read_seats(table) if s.player_id == player.pk), None)
        if seat is None or seat.seat_id not in game.seat_ids:
            raise PlayError("not_seated", _("Вы не играете в этой игре."))
        if game.paused:
            raise PlayError("paused", _("Игра на паузе."))
        name = action.get("action")
        if table.variant == SOLO and name == "new_game":
            return _solo_new_game(table, game)
        if name == "remove" or name == "timeout" or (name == "cut" and table.variant != SALON):
            raise PlayError("illegal_action", _("Этот ход нельзя сделать самому."))
        move = {"seat": seat.seat_id, "action": name}
        move.update({k: action[k] for k in _ACTION_ARGUMENTS if k in action})
        _transition(table, game, move, _now())
        return {"version": table.version}


def _solo_new_game(table: Table, game: Game) -> dict[str, Any]:
    """«Новая игра»: the current game's record ends (its seed is revealed) and a fresh game
    with a fresh seed begins. Refused while a confirmed bet is in play (rules/solo.md)."""
    if game.state.get("bet") is not None:
        raise PlayError("illegal_action", _("Новую игру нельзя начать, пока ставка в игре."))
    now = _now()
    _end_game(table, game, now, status=Game.Status.FINISHED)
    _start(table, now)
    return {"version": table.version}


@transaction.atomic
def solo_new_game(*, table: Table, player: Any) -> dict[str, Any]:
    """«Новая игра» at a solo table between games (after a game is over)."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.variant != SOLO:  # elsewhere it would end the game in play for everyone
        raise PlayError("illegal_action", _("«Новая игра» бывает только в игре против банкира."))
    if not table.seats.filter(player=player).exists():
        raise PlayError("not_seated", _("Сначала сядьте за стол."))
    game = _playing(table)
    if game is not None:
        if game.paused:
            raise PlayError("paused", _("Игра на паузе."))
        return _solo_new_game(table, game)
    _start(table, _now())
    return {"version": table.version}


@transaction.atomic
def session_end(*, table: Table, player: Any) -> dict[str, Any]:
    """Blackjack: the player ends the training session (a round in play counts nothing)."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.variant != BLACKJACK:
        raise PlayError("illegal_action", _("Сессия бывает только в блэкджеке."))
    game = _playing(table)  # checked first, as for a move (game_act)
    if game is None:
        raise PlayError("no_game", _("Сейчас за столом нет игры."))
    if not table.seats.filter(player=player).exists():
        raise PlayError("not_seated", _("Сначала сядьте за стол."))
    _end_game(table, game, _now(), status=Game.Status.FINISHED)
    table.next_game_at = None
    table.save(update_fields=["next_game_at"])
    _touch(table, game, [{"type": "session_end"}])
    return {"version": table.version}


@transaction.atomic
def game_pause(*, table: Table, by: Any) -> dict[str, Any]:
    """Every clock stops; the running decision's remaining time is kept."""
    table = Table.objects.select_for_update().get(pk=table.pk)
    _require_host(table, by)
    game = _playing(table)
    if game is None:
        raise PlayError("no_game", _("Сейчас за столом нет игры."))
    if game.paused:
        return {"version": table.version}
    now = _now()
    left = 0 if game.deadline is None else max(0, (game.deadline - now).total_seconds())
    game.paused_remaining_ms = int(left * 1000)
    game.deadline = None
    game.save(update_fields=["paused_remaining_ms", "deadline"])
    _touch(table, game, [{"type": "paused"}])
    return {"version": table.version}


@transaction.atomic
def game_resume(*, table: Table, by: Any) -> dict[str, Any]:
    table = Table.objects.select_for_update().get(pk=table.pk)
    _require_host(table, by)
    game = _playing(table)
    if game is None or not game.paused:
        raise PlayError("not_paused", _("Игра не на паузе."))
    clockless = not engine.find_variant(game.variant).CLOCK and not game.deadline_seat.startswith(
        "ai:"
    )
    remaining = game.paused_remaining_ms or 0
    game.paused_remaining_ms = None
    game.deadline = None if clockless else _now() + datetime.timedelta(milliseconds=remaining)
    game.save(update_fields=["paused_remaining_ms", "deadline"])
    _touch(table, game, [{"type": "resumed"}])
    return {"version": table.version}


# --- deadlines -------------------------------------------------------------------------


def deadlines_sweep(*, now: datetime.datetime) -> int:
    """Play every decision whose deadline has passed (the rules' timeout, or an AI seat's
    choice) and start every game whose interlude is over; returns how many it played.

    Called every DEADLINE_SWEEP_SECONDS (a quarter second) by Celery beat
    (tables.tasks.sweep_deadlines) or, in embedded mode, by the in-process ticker. Safe
    with several sweepers at once: each table is locked with SKIP LOCKED and its deadline
    re-read under the lock, so a decision is played once.
    """
    applied = 0
    due = Game.objects.filter(status=Game.Status.PLAYING, deadline__lte=now)
    for table_id in list(due.values_list("table_id", flat=True)):
        applied += _swept(_apply_due, table_id, now)
    starting = Table.objects.filter(status=Table.Status.OPEN, next_game_at__lte=now)
    for table_id in list(starting.values_list("pk", flat=True)):
        applied += _swept(_start_due, table_id, now)
    dealing = Table.objects.filter(status=Table.Status.OPEN, deal_at__lte=now)
    for table_id in list(dealing.values_list("pk", flat=True)):
        applied += _swept(_deal_due, table_id, now)
    # Heartbeats keep the wall clock, whatever `now` the caller sweeps for.
    presences_expire(now=_now())
    client_commands_forget(now=_now())
    return applied


def _swept(step: Callable[[int, datetime.datetime], int], table_id: int, now: Any) -> int:
    """One table's part of a sweep. A table whose deadline cannot be played (its chips
    cannot move, a bug) is logged and left for an admin, not allowed to stop the clock of
    every table swept after it; its own transaction has rolled back."""
    try:
        return step(table_id, now)
    except Exception:
        logger.exception("sweep of table %s failed", table_id)
        return 0


def _locked_or_skip(table_id: int, *, wait: bool = False) -> Table | None:
    return Table.objects.select_for_update(skip_locked=not wait).filter(pk=table_id).first()


def _apply_due_if_any(table_id: int, now: datetime.datetime) -> int:
    return _apply_due(table_id, now, look_first=True)


def _apply_due(
    table_id: int, now: datetime.datetime, *, wait: bool = False, look_first: bool = False
) -> int:
    # `look_first`: when nothing is due (the common case before a move), one read, with
    # no lock and no transaction.
    if (
        look_first
        and not Game.objects.filter(
            table_id=table_id, status=Game.Status.PLAYING, deadline__lte=now
        ).exists()
    ):
        return 0
    with transaction.atomic():
        table = _locked_or_skip(table_id, wait=wait)
        if table is None:
            return 0  # another sweeper (or a move) holds this table right now
        game = _playing(table)
        if game is None or game.deadline is None or game.deadline > now:
            return 0
        _read_seats(table)
        seat_id = game.deadline_seat
        entry = game.player_entry(seat_id) or {}
        if entry.get("ai"):
            turn = engine.legal_actions(game.state)
            assert turn is not None and turn["seat"] == seat_id
            view = engine.view(game.state, seat_id)
            action = choose_action(game.variant, entry["ai"], view, turn["actions"])
        else:
            action = {"seat": seat_id, "action": "timeout"}
        _transition(table, game, action, now)
        return 1


def _start_due(table_id: int, now: datetime.datetime) -> int:
    with transaction.atomic():
        table = _locked_or_skip(table_id)
        if table is None or table.next_game_at is None or table.next_game_at > now:
            return 0
        table.next_game_at = None
        _stand_up_absent(table, now)
        try:
            with transaction.atomic():
                _start(table, now)
        except PlayError:
            table.save(update_fields=["next_game_at"])
            _touch(table, _latest(table), [{"type": "waiting_for_players"}])
            return 0
        return 1


def _deal_due(table_id: int, now: datetime.datetime) -> int:
    """The client-seed window of an announced game is over: deal without the missing."""
    with transaction.atomic():
        table = _locked_or_skip(table_id)
        if table is None or table.pending is None or table.deal_at is None or table.deal_at > now:
            return 0
        try:
            with transaction.atomic():
                _deal(table, now)
        except PlayError:  # the players it was announced for have gone
            table.pending = None
            table.deal_at = None
            table.save(update_fields=["pending", "deal_at"])
            _touch(table, _latest(table), [{"type": "waiting_for_players"}])
            return 0
        return 1


def _stand_up_absent(table: Table, now: datetime.datetime) -> None:
    """Before a game that starts by itself: players gone longer than the reconnect grace
    lose their seats, so a table of absent players does not play on for ever."""
    cutoff = now - _seconds(table.reconnect_grace_seconds)
    # A seat can keep `away_since` while its player is connected (a reload's new socket
    # joining as the old one leaves): a live connection says they are here.
    online = _connected(table, _now())
    gone = list(
        table.seats.filter(away_since__lt=cutoff)
        .exclude(player_id__in=list(online))
        .select_related("player")
    )
    for seat in gone:
        seat.delete()
    if gone:
        _touch(
            table,
            _latest(table),
            [{"type": "stood_up", "seat": s.seat_id, "reason": "away"} for s in gone],
        )
        _lobby_changed(table)


# --- connections -----------------------------------------------------------------------


@transaction.atomic
def presence_join(*, table: Table, user: Any, channel_name: str) -> None:
    Presence.objects.update_or_create(
        channel_name=channel_name, defaults={"table": table, "user": user}
    )
    cache.delete(_beat_key(channel_name))  # a beat left by an earlier use of the name
    seat = table.seats.filter(player=user).first()
    if seat is not None:
        if seat.away_since is not None:
            seat.away_since = None
            seat.save(update_fields=["away_since"])
        transaction.on_commit(
            lambda: broadcast.send_presence(
                table.pk,
                {
                    "type": "presence",
                    "version": table.version,
                    "seat": seat.seat_id,
                    "connected": True,
                },
            )
        )


# A connection's presence row is written when it opens and deleted when it closes. In
# between, its consumer beats every PRESENCE_HEARTBEAT_SECONDS; a connection whose last
# sign of life (the row's `seen_at`, or its last beat) is older than PRESENCE_TTL_SECONDS
# belongs to a server that died without closing it (a SIGKILL, a crash), and counts as a
# dropped connection.
#
# The beats go to the cache (Redis, shared by every web process and the Celery workers;
# in-process memory in embedded mode, where the ticker sweeps in the same process), not
# to the database: a write per socket every 20 s was a fifth of the web process's
# database work at 400 players (make bench-live). The sweep copies a beat into `seen_at`
# once a row has aged past the TTL, so most reads need only the row.
PRESENCE_HEARTBEAT_SECONDS = 20
PRESENCE_TTL_SECONDS = 60
# How long a command id is remembered (docs/protocol.md).
COMMAND_MEMORY = datetime.timedelta(days=1)


def _beat_key(channel_name: str) -> str:
    return f"presence-beat:{channel_name}"


def _last_beats(rows: list[tuple[Any, ...]]) -> dict[str, float]:
    """channel name -> its last beat (epoch seconds), for (channel name, …) rows."""
    if not rows:
        return {}
    keys = {_beat_key(row[0]): row[0] for row in rows}
    return {keys[key]: float(value) for key, value in cache.get_many(list(keys)).items()}


def _connected(table: Table, now: datetime.datetime) -> set[int]:
    """The users with a live connection at `table`."""
    cutoff = now - _seconds(PRESENCE_TTL_SECONDS)
    rows = list(
        Presence.objects.filter(table=table).values_list("channel_name", "user_id", "seen_at")
    )
    aged = [row for row in rows if row[2] < cutoff]
    beats = _last_beats(aged)
    return {
        user_id
        for channel, user_id, seen_at in rows
        if seen_at >= cutoff or beats.get(channel, 0.0) >= cutoff.timestamp()
    }


def presence_touch(*, channel_name: str) -> None:
    """The consumer's heartbeat: this connection is still open (in the cache only)."""
    cache.set(
        _beat_key(channel_name),
        _now().timestamp(),
        timeout=PRESENCE_TTL_SECONDS + PRESENCE_HEARTBEAT_SECONDS,
    )


@transaction.atomic
def presence_leave(*, table: Table, user: Any, channel_name: str) -> None:
    """A connection closed. If it was the player's last one and their decision is
    running, the table's reconnect grace counts from now (once per decision)."""
    Presence.objects.filter(channel_name=channel_name).delete()
    _presence_drop(table, user, _now())


def presences_expire(*, now: datetime.datetime) -> int:
    """Forget connections whose server died without closing them, as drops. Part of
    every sweep. A row aged past the TTL whose connection still beats gets its beat's
    time as `seen_at` instead."""
    cutoff = now - _seconds(PRESENCE_TTL_SECONDS)
    aged = list(
        Presence.objects.filter(seen_at__lt=cutoff).values_list(
            "channel_name", "pk", "table_id", "user_id"
        )
    )
    beats = _last_beats(aged)
    stale, alive = [], []
    for channel, pk, table_id, user_id in aged:
        beat = beats.get(channel)
        if beat is not None and beat >= cutoff.timestamp():
            alive.append((beat, pk))
        else:
            stale.append((pk, table_id, user_id))
    if alive:  # one statement: the oldest of their beats (never later than any of them)
        seen = datetime.datetime.fromtimestamp(min(beat for beat, _pk in alive), tz=datetime.UTC)
        Presence.objects.filter(pk__in=[pk for _beat, pk in alive]).update(seen_at=seen)
    for pk, table_id, user_id in stale:
        with transaction.atomic():
            Presence.objects.filter(pk=pk).delete()
            table = Table.objects.filter(pk=table_id).first()
            if table is not None:
                _presence_drop(table, user_id, now)
    return len(stale)


_commands_forgotten_at: datetime.datetime | None = None


def client_commands_forget(*, now: datetime.datetime) -> None:
    """Drop command ids older than COMMAND_MEMORY — at most once a minute per process,
    not on every sweep."""
    global _commands_forgotten_at
    if _commands_forgotten_at is not None and now - _commands_forgotten_at < _seconds(60):
        return
    ClientCommand.objects.filter(created_at__lt=now - COMMAND_MEMORY).delete()
    _commands_forgotten_at = now


def _presence_drop(table: Table, user: Any, now: datetime.datetime) -> None:
    """`user` (a user or its pk) has no open connection at `table` any more."""
    if getattr(user, "pk", user) in _connected(table, now):
        return
    table = Table.objects.select_for_update().get(pk=table.pk)
    seat = table.seats.filter(player=user).select_related("player").first()
    if seat is None:
        return
    sid = seat.seat_id
    game = _playing(table)
    seat.away_since = now
    seat.save(update_fields=["away_since"])
    grace = table.reconnect_grace_seconds
    if (
        game is not None
        and game.deadline_seat == sid
        and game.deadline is not None
        and grace > 0
        and game.grace_version != game.state["version"]
    ):
        game.grace_version = game.state["version"]
        game.deadline = max(game.deadline, now + _seconds(grace))
        game.save(update_fields=["grace_version", "deadline"])
        _touch(table, game, [{"type": "away", "seat": sid}])
        return
    version = table.version
    transaction.on_commit(
        lambda: broadcast.send_presence(
            table.pk, {"type": "presence", "version": version, "seat": sid, "connected": False}
        )
    )


# --- broadcasting ----------------------------------------------------------------------


def _touch(table: Table, game: Game | None, events: list[dict[str, Any]]) -> None:
    """A new table version: save it and, once committed, send each viewer its frame."""
    table.version += 1
    table.save(update_fields=["version", "next_game_at"])
    common = _viewing(table, game)
    players = {
        s.player_id: frame("update", seat=s.seat_id, events=events, **common)
        for s in common["seats"]
        if s.player_id is not None
    }
    spectator = frame("update", seat=None, events=events, **common)
    table_id = table.pk
    transaction.on_commit(lambda: broadcast.send_frames(table_id, spectator, players))


def _viewing(
    table: Table, game: Game | None = None, *, connected: set[int] | None = None
) -> dict[str, Any]:
    """What every frame of the table is built from: its seats, who is connected, and the
    game shown — the one in play or, between games, the last (the latest number)."""
    return {
        "table": table,
        "seats": _seats(table),
        "connected": connected if connected is not None else _connected(table, _now()),
        "game": game if game is not None else _latest(table),
    }


def table_snapshot(*, table: Table, user: Any) -> dict[str, Any]:
    """The full picture for one connection (on connect, on a gap, after a refusal)."""
    common = _viewing(table)
    user_id = getattr(user, "pk", None)
    # An anonymous viewer (no pk) must not match an AI seat, whose player is None too.
    seat_id = next(
        (s.seat_id for s in common["seats"] if user_id is not None and s.player_id == user_id),
        None,
    )
    return frame("snapshot", seat=seat_id, **common)


# --- idempotent commands ---------------------------------------------------------------


def command_once(
    *,
    user: Any,
    table: Table,
    client_id: str,
    run: Callable[[], dict[str, Any]],
    version: int | None = None,
) -> dict[str, Any]:
    """Run a client's command once per (user, table, id): a resend of an id that was
    accepted gets the first answer (``"repeat": true``) and changes nothing. A refused
    command stores nothing (it changed nothing), so it may be sent again. With `version`
    (the table version the client decided on) the command is refused with
    `stale_version` if the table has moved on: checked under the table's row lock, which
    the command's service then holds until it commits (a service locks the table first)."""
    # A resent id is not looked for first (a query for every command, to catch a few
    # resends): it runs again, and its stored answer wins — the store's unique key
    # refuses the second row and everything the run did rolls back (_Repeat), or, when
    # the run is refused (the move was made already), the stored answer is looked for.
    refusal: PlayError | ValidationError | None = None
    with transaction.atomic():
        try:
            if version is not None:
                now = (
                    Table.objects.select_for_update()
                    .filter(pk=table.pk)
                    .values_list("version", flat=True)
                    .get()
                )
                _version_expected(now, version)
            outcome = run()
        except (PlayError, ValidationError) as error:
            # Every service rolls its own writes back when it refuses; what stays is an
            # overdue decision played first (game_act), which must stand: so commit.
            refusal = error
        else:
            try:
                # No savepoint (a round trip each way): a duplicate id abandons the whole
                # transaction anyway (_Repeat rolls it back).
                with transaction.atomic(savepoint=False):
                    ClientCommand.objects.create(
                        user=user, table=table, client_id=client_id, outcome=outcome
                    )
            except IntegrityError:
                # The same id from another tab won the race; its outcome is the answer,
                # and this attempt's changes roll back with the outer transaction.
                raise _Repeat() from None
    if refusal is not None:
        # Refused because the same id from another tab was accepted while this one waited
        # for the table (its move made this one stale, or not this seat's turn): that
        # tab's outcome is the answer, as for any resend.
        if ClientCommand.objects.filter(user=user, table=table, client_id=client_id).exists():
            raise _Repeat() from refusal
        raise refusal
    return outcome


class _Repeat(Exception):
    pass


def command_run(
    *,
    user: Any,
    table: Table,
    client_id: str,
    run: Callable[[], dict[str, Any]],
    version: int | None = None,
    plays_overdue: bool = False,
) -> dict[str, Any]:
    # An overdue decision is played before anything else. One that cannot be played is
    # not this command's refusal (its message would be another seat's, a balance
    # included): a move still meets it in game_act, while stand, close and the like go on.
    # Looked for first, without a lock or a transaction: nothing is due before most
    # commands, and the locked look cost every command three more round trips. Not here
    # for a command whose service looks itself, under the table's lock, or needs no look
    # (`plays_overdue`: a move, game_act; a client seed, given between games).
    if not plays_overdue:
        _swept(_apply_due_if_any, table.pk, _now())
    try:
        return command_once(user=user, table=table, client_id=client_id, run=run, version=version)
    except _Repeat:
        stored = ClientCommand.objects.get(user=user, table=table, client_id=client_id)
        return {**stored.outcome, "repeat": True}


# --- records ---------------------------------------------------------------------------


def game_record(game: Game) -> dict[str, Any]:
    """The game's hand record (specs/hand-record.md), with the seed: for the server's own
    use until the game is over (`public_record` is what players get)."""
    state = game.state
    options = dict(game.options)
    if options.pop("one_shoe", False):
        # The engine played this shoe open-ended (`one_shoe`, a live-only option); the
        # record states the same play with the spec's own length: the deals or rounds
        # played, and the one in progress if the record ended mid-round.
        played = len(state["rounds"]) + (0 if state["finished"] else 1)
        length = next(key for key, value in options.items() if value == _OPEN_ENDED)
        options[length] = max(1, played)
    chips = game.table.variant_spec.stakes_chips
    record: dict[str, Any] = {
        "variant": game.variant,
        "options": options,
        "seats": [
            {"id": p["id"], **({"chips": p["chips"]} if chips else {})} for p in game.players
        ],
    }
    if game.first_banker:
        record["first_banker"] = game.first_banker
    record["seed"] = game.seed
    record["fairness"] = _fairness(game, revealed=True)
    record["actions"] = list(game.actions)
    return record


def _fairness(game: Game, *, revealed: bool) -> dict[str, Any]:
    return fair.fairness_object(
        server_seed=game.server_seed if revealed else None,
        commitment=game.commitment,
        context={"table": game.table_id, "shoe": game.number, "variant": game.variant},
        client_seeds=game.client_seeds,
    )


def _cut_as_order(record: dict[str, Any], *, with_deck: bool) -> dict[str, Any]:
    """A live `salon` record as specs/hand-record.md has it: the cut is live-only (in a
    record it is an `illegal_action`), and the record states the shoe in its order after
    the cut instead — `deck`, with the lot's seat as `first_banker` (required with a
    deck). The engine played the shoe with the live option `cut` and the cutter's move
    (`cut`, or the clock's `timeout`); both leave the record, and the shoe's order after
    the cut is read from the engine's own replay. `with_deck` False (a game in play): no
    deck, which would show the shoe's cards still to come."""
    if record["variant"] != SALON or not record["options"].get("cut"):
        return record
    with shoes.recording() as log:
        state, events = engine.new_game(
            SALON,
            seats=record["seats"],
            options=record["options"],
            first_banker=record.get("first_banker"),
            seed=record["seed"],
        )
        first_banker = next(event["seat"] for event in events if event["type"] == "lot")
        actions, deck = [], None
        for action in record["actions"]:
            before = len(log)
            state, events = engine.apply(state, action)
            if not any(event["type"] == "cut" for event in events):
                actions.append(action)
                continue
            # The cut and the deal it lets start are one transition: the shoe after the cut
            # is what this transition dealt, then what is left of the stock.
            after_cut = next(i for i in range(before, len(log)) if "cut" in log[i])
            dealt = [entry["card"] for entry in log[after_cut:] if "card" in entry]
            deck = dealt + shoes.split_cards(state["shoe"]["cards"])
    stated: dict[str, Any] = {
        "variant": record["variant"],
        "options": {name: value for name, value in record["options"].items() if name != "cut"},
        "seats": record["seats"],
        "first_banker": first_banker,
    }
    if with_deck and deck is not None:
        stated["deck"] = deck
    stated.update(seed=record["seed"], fairness=record["fairness"], actions=actions)
    return stated


def public_record(game: Game) -> dict[str, Any]:
    """What a player may download: the record with its result once the game is over; the
    seed stays out while the game is in play."""
    record = _cut_as_order(game_record(game), with_deck=not game.is_playing)
    if game.is_playing:
        record.pop("seed")
        record["fairness"] = _fairness(game, revealed=False)
        record["result"] = None
    else:
        record["result"] = game.result
    record["table"] = {"id": game.table_id, "game": game.number, "status": game.status}
    return record
