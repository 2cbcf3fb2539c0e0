"""Sitting down, standing up, being ready, AI seats and removing a player. A seat is
part of live play: taking one can start a game, leaving one during a game is a forfeit."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, replace
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import Account
from accounts.services import wallet_for
from accounts.templatetags.numbers import number as number_text
from games.ai import LEVELS as AI_LEVELS
from play import wall
from play.db.locks import lock_table, playing_game
from play.db.selectors import latest_game
from play.frames.viewing import frames_on_commit
from play.models import Game
from play.services.errors import PlayError, SeatError
from play.services.lifecycle import end_game, maybe_autostart, start_next, transition
from play.services.permissions import is_host, require_host, require_host_or_trainee
from play.signals import seat_requested
from tables.models import Seat, Table
from tables.signals import table_changed_on_commit
from tables.variants import BLACKJACK, CHIP_VARIANTS, CLASSIC, SOLO

# Variants whose AI seats play: only those that stake no account chips (an AI has no
# wallet, and chips must come from somebody's).
AI_VARIANTS = {CLASSIC, BLACKJACK}


def _free_number(table: Table) -> int:
    taken = set(table.seats.values_list("number", flat=True))
    free = [n for n in range(1, table.seat_count + 1) if n not in taken]
    if not free:
        raise SeatError(_("Свободных мест нет."), code="table_full")
    return free[0]


# --- who may sit where: the one place that decides it -----------------------------------
# seat_take refuses by it under the table's lock; the lobby (its page, lobby.json and its
# socket) says by it on each join button why a player cannot sit.

JOIN = "join"
SEATED = "seated"
REFUSED = "refused"


@dataclass(frozen=True)
class HeldSeat:
    """A seat a player holds at an open table."""

    table: int
    name: str
    variant: str
    leaving: bool


@dataclass(frozen=True)
class Sitter:
    """What decides where a player may sit: their chips and the seats they hold."""

    balance: int
    seats: tuple[HeldSeat, ...] = ()
    # A bot account sits only where the table allows bots.
    is_bot: bool = False


@dataclass(frozen=True)
class TableFacts:
    """What decides whether a table takes a player: the same for every viewer of a lobby
    row, so a verdict can be remembered by it (lobby.rows)."""

    table_id: int
    variant: str
    is_open: bool
    entry_limit: int
    seats_taken: int
    seat_count: int
    bots_allowed: bool = True
    # Played with the stacks its owner gives (Table.stacks), not wallet chips: a seat
    # there is its owner's to give, whatever the player's wallet holds or where they sit.
    # (A seat held there still counts as a chip table's for sitting elsewhere: one chip
    # game at a time.)
    stacks: bool = False


@dataclass(frozen=True)
class Verdict:
    """Whether a player may take a seat at a table: `join`, `seated` (they sit there
    already) or `refused`, with the refusal's code and message (in the active language)."""

    state: str
    code: str = ""
    message: str = ""

    @property
    def refused(self) -> bool:
        return self.state == REFUSED

    def as_dict(self) -> dict[str, str]:
        return {"state": self.state, "code": self.code, "message": self.message}

    def error(self) -> SeatError:
        return SeatError(self.message, code=self.code)


def _refused(code: str, message: str) -> Verdict:
    return Verdict(REFUSED, code, message)


def seat_verdict(table: TableFacts, sitter: Sitter | None) -> Verdict:
    """Whether `sitter` (None: not signed in) may sit at a table with these facts, the
    refusals in the order seat_take makes them. Reads nothing: the caller brings the facts
    (seat_take under its locks; the lobby from its rows and the viewer's `me`). A ban or a
    block (play.signals.seat_requested) and a private table's invite are seat_take's own
    checks, made between `leaving` and `seated_elsewhere`."""
    if sitter is None:
        return _refused("not_signed_in", _("Войдите, чтобы сесть за стол."))
    if not table.is_open:
        return _refused("table_closed", _("Стол закрыт."))
    here = next((seat for seat in sitter.seats if seat.table == table.table_id), None)
    if here is not None:
        if here.leaving:
            return _refused(
                "leaving",
                _("Вы встали из-за стола: место освободится, когда закончится эта игра."),
            )
        return Verdict(SEATED)
    if sitter.is_bot and not table.bots_allowed:
        return _refused("bots_not_allowed", _("Ботам за этот стол садиться нельзя."))
    if table.variant in CHIP_VARIANTS and not table.stacks:
        # A player's chips are in play at one table at a time, so that what a game counts
        # as theirs is what their wallet holds.
        elsewhere = next((seat for seat in sitter.seats if seat.variant in CHIP_VARIANTS), None)
        if elsewhere is not None:
            return _refused(
                "seated_elsewhere",
                _("Вы уже играете на фишки за столом «%(name)s»: встаньте оттуда сначала.")
                % {"name": elsewhere.name},
            )
    if sitter.balance < table.entry_limit:
        return _refused(
            "below_entry_limit",
            ngettext(
                "Нужно не меньше %(limit)s фишки, у вас %(balance)s.",
                "Нужно не меньше %(limit)s фишек, у вас %(balance)s.",
                table.entry_limit,
            )
            % {"limit": number_text(table.entry_limit), "balance": number_text(sitter.balance)},
        )
    if table.seats_taken >= table.seat_count:
        return _refused("table_full", _("Свободных мест нет."))
    return Verdict(JOIN)


def sitter_of(player: Any) -> Sitter:
    """The player's chips and the seats they hold at open tables (two queries)."""
    balance = (
        Account.objects.filter(owner=player, kind=Account.Kind.PLAYER)
        .values_list("balance", flat=True)
        .first()
    )
    seats = (
        Seat.objects.filter(player=player, table__status=Table.Status.OPEN)
        .select_related("table")
        .order_by("table_id")
    )
    return Sitter(
        balance=int(balance or 0),
        seats=tuple(
            HeldSeat(s.table_id, s.table.name, s.table.variant, leaving=s.leaving) for s in seats
        ),
        is_bot=bool(getattr(player, "is_bot", False)),
    )


@transaction.atomic
def seat_take(*, table: Table, player: Any, invite: str | None = None) -> Seat:
    """Sit `player` at the lowest free seat of an open table, if seat_verdict lets them."""
    # Lock the table so two players cannot both take its last seat.
    table = lock_table(table.pk)
    stacked = table.stacks is not None
    if table.is_open and table.variant_spec.stakes_chips and not stacked:
        # The wallet's row lock (to the commit) makes two tabs sitting at two chip tables
        # at once take turns: this table's lock cannot.
        Account.objects.select_for_update().get(pk=wallet_for(player).pk)
    facts = TableFacts(
        table_id=table.pk,
        variant=table.variant,
        is_open=table.is_open,
        entry_limit=table.entry_limit,
        seats_taken=table.seats.count(),
        seat_count=table.seat_count,
        bots_allowed=table.allows_bots,
        stacks=stacked,
    )
    sitter = sitter_of(player)
    if stacked:
        # A stacks table (a sit-and-go): its seats are its owner's entrants', and each
        # plays the stack given, whatever the wallet holds. (A private table's refusal:
        # no invite is good for anyone else.)
        stack = table.stack_of(player.pk)
        if stack is None:
            raise SeatError(
                _("За этим столом играют только участники турнира."), code="invite_required"
            )
        sitter = replace(sitter, balance=stack)
    verdict = seat_verdict(facts, sitter)
    if verdict.state == SEATED:
        return table.seats.get(player=player)
    if verdict.code in ("table_closed", "leaving"):
        raise verdict.error()
    # The social layer's refusals (a ban; a block between the player and the host).
    seat_requested.send(sender=Table, table=table, player=player)
    if table.private and invite != table.invite_code and not is_host(table, player):
        raise SeatError(_("Это частный стол: нужна ссылка-приглашение."), code="invite_required")
    if verdict.refused:
        raise verdict.error()
    number = _free_number(table)
    try:
        with transaction.atomic():
            seat = Seat.objects.create(table=table, number=number, player=player)
    except IntegrityError as exc:  # pragma: no cover - the table lock prevents it
        raise SeatError(_("Место уже занято."), code="seat_taken") from exc
    seat.player = player
    frames_on_commit(table, latest_game(table), [{"type": "sat_down", "seat": seat.seat_id}])
    table_changed_on_commit(table)
    if table.variant == SOLO:  # one player, no one to wait for
        start_next(table, wall.now())
    else:
        maybe_autostart(table, wall.now())
    return seat


@transaction.atomic
def seat_leave(*, table: Table, player: Any) -> bool:
    """Stand up. Between games the seat is freed at once; during a game the player's
    decisions are played by the clock at once (a forfeit: stand, or sit the duel out) and
    the seat is freed when the game ends — `classic` removes the player from the match and
    `solo` ends its game, as their rules say — except at a tournament heat, whose result
    that would lock in: there classic's clock plays the rest and solo refuses."""
    table = lock_table(table.pk)
    seat = table.seats.filter(player=player).select_related("player").first()
    if seat is None:
        return False
    _forfeit(table, seat, wall.now())
    table_changed_on_commit(table)
    return True


def _forfeit(table: Table, seat: Seat, now: datetime.datetime) -> None:
    game = playing_game(table)
    sid = seat.seat_id
    if game is None or sid not in game.seat_ids:
        seat.delete()
        frames_on_commit(table, latest_game(table), [{"type": "stood_up", "seat": sid}])
        return
    if table.variant == SOLO and table.duplicate is not None:
        # Ending a tournament heat would lock in what it has won so far, and solo has no
        # clock to play it out: the heat waits for its entrant until the event ends.
        raise PlayError(
            "illegal_action",
            _(
                "Из турнирного заезда не встают: доиграйте его. Можно просто уйти "
                "со страницы — заезд подождёт вас до конца турнира."
            ),
        )
    if table.variant == SOLO:
        seat.delete()
        end_game(table, game, now, status=Game.Status.FINISHED)
        frames_on_commit(table, game, [{"type": "stood_up", "seat": sid}])
        return
    # A heat's entrant is not removed from the match (that would end the heat with what it
    # has won): the clock plays the rest of it, below, as at a blackjack heat.
    if table.variant == CLASSIC and sid in game.state["players"] and table.duplicate is None:
        seat.delete()
        transition(table, game, {"action": "remove", "target": sid}, now)
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
            game.clock_starts_at = None
            game.save(update_fields=["deadline", "clock_starts_at"])
    frames_on_commit(table, game, [{"type": "leaving", "seat": sid}])


@transaction.atomic
def seat_ready(*, table: Table, player: Any, ready: bool = True) -> Seat:
    table = lock_table(table.pk)
    seat = table.seats.filter(player=player).first()
    if seat is None:
        raise PlayError("not_seated", _("Сначала сядьте за стол."))
    seat.ready = ready
    seat.save(update_fields=["ready"])
    frames_on_commit(
        table, latest_game(table), [{"type": "ready", "seat": seat.seat_id, "ready": ready}]
    )
    if ready:
        maybe_autostart(table, wall.now())
    return seat


@transaction.atomic
def ai_seat_add(*, table: Table, by: Any, level: str) -> Seat:
    table = lock_table(table.pk)
    require_host_or_trainee(table, by)
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
    frames_on_commit(
        table, latest_game(table), [{"type": "sat_down", "seat": seat.seat_id, "ai": level}]
    )
    table_changed_on_commit(table)
    return seat


@transaction.atomic
def ai_seat_remove(*, table: Table, by: Any, number: int) -> None:
    table = lock_table(table.pk)
    require_host_or_trainee(table, by)
    seat = table.seats.filter(number=number, player__isnull=True).first()
    if seat is None:
        raise PlayError("not_found", _("За этим местом нет ИИ."))
    _forfeit(table, seat, wall.now())
    table_changed_on_commit(table)


@transaction.atomic
def player_remove(*, table: Table, by: Any, seat_id: str) -> None:
    """The host (or an admin) removes a player: in `classic` the rules' removal, elsewhere
    the same forfeit as standing up."""
    table = lock_table(table.pk)
    require_host(table, by)
    seat = next((s for s in table.seats.select_related("player") if s.seat_id == seat_id), None)
    if seat is None:
        raise PlayError("not_found", _("За столом нет игрока %(seat)s.") % {"seat": seat_id})
    _forfeit(table, seat, wall.now())
    table_changed_on_commit(table)
