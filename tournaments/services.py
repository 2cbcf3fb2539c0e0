"""Every write of a tournament, each in one transaction under the tournament's row lock
(docs/tournaments.md): registration races at the cap register exactly the cap, and each
chip movement is one ledger transfer with an idempotency key of its own, so a service run
twice (a worker killed and the task run again) moves nothing twice."""

from __future__ import annotations

import datetime
import logging
import math
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.bonus import FreeChipsRefused
from accounts.models import LedgerEntry
from accounts.services import (
    InsufficientChips,
    chips_transfer,
    escrow_account,
    grants_account,
    wallet_for,
)
from accounts.signals import free_chips_requested
from games import fairness
from moderation.enforcement import banned_text, restriction_in_force
from moderation.models import Sanction
from play.db.selectors import games_played_by
from play.services.errors import PlayError, SeatError
from tournaments import heats, rounds, sitgo
from tournaments.models import Entry, Tournament
from tournaments.prizes import payouts
from tournaments.signals import entry_requested
from tournaments.stacks import plays_sit_and_go
from tournaments.standings import changed_on_commit, prize_pool

logger = logging.getLogger(__name__)

REPEAT_STEP = {
    Tournament.Repeat.HOURLY: datetime.timedelta(hours=1),
    Tournament.Repeat.DAILY: datetime.timedelta(days=1),
    Tournament.Repeat.WEEKLY: datetime.timedelta(weeks=1),
}


class TournamentRefused(Exception):
    """A registration or withdrawal refused: `code` for programs, `message` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _locked(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


duplicate_context_table = heats.duplicate_context_table


def tournament_commitment_context(tournament: Tournament) -> dict[str, Any]:
    """What the tournament's commitment binds (docs/fairness.md, «Tournaments»): shoe 0 of
    its context; each heat game is shoe 1 of the same context and server seed."""
    return {"table": duplicate_context_table(tournament), "shoe": 0, "variant": tournament.variant}


@transaction.atomic
def tournament_registration_open(*, tournament: Tournament) -> Tournament:
    """Open registration; for duplicate heats, draw the event's server seed and publish
    its commitment first."""
    tournament = _locked(tournament.pk)
    if tournament.status != Tournament.Status.SCHEDULED:
        return tournament
    if tournament.format == Tournament.Format.DUPLICATE:
        # (A sit-and-go's one game is committed at its table, as any table's game is.)
        tournament.server_seed = secrets.token_hex(32)
        tournament.commitment = fairness.commit(
            tournament.server_seed, tournament_commitment_context(tournament)
        )
    tournament.status = Tournament.Status.REGISTERING
    tournament.save(update_fields=["server_seed", "commitment", "status"])
    changed_on_commit(tournament.pk)
    return tournament


def registration_open(tournament: Tournament, now: datetime.datetime) -> bool:
    """Whether the event takes a registration now (its page's button asks the same)."""
    if tournament.status == Tournament.Status.REGISTERING:
        return True
    # Late registration: only into a duplicate heat, where each entrant plays alone.
    return (
        tournament.status == Tournament.Status.RUNNING
        and tournament.format == Tournament.Format.DUPLICATE
        and now < tournament.registration_closes_at
    )


def no_show_block_until(player: Any, now: datetime.datetime) -> datetime.datetime | None:
    """Until when a player who did not come to their heats may not register (lichess's
    rule): after the n-th no-show within NO_SHOW_MEMORY_DAYS, TOURNAMENT_NO_SHOW_MINUTES ×
    2^(n−1) from the last one; None when not blocked now."""
    since = now - datetime.timedelta(days=settings.TOURNAMENT_NO_SHOW_MEMORY_DAYS)
    shows = list(
        Entry.objects.filter(player=player, no_show=True, heat_ended_at__gte=since)
        .order_by("-heat_ended_at")
        .values_list("heat_ended_at", flat=True)
    )
    if not shows:
        return None
    minutes = settings.TOURNAMENT_NO_SHOW_MINUTES * 2 ** (len(shows) - 1)
    until = shows[0] + datetime.timedelta(minutes=minutes)
    return until if until > now else None


def _check_conditions(tournament: Tournament, player: Any, now: datetime.datetime) -> None:
    if player.is_bot:
        raise TournamentRefused("bots_not_allowed", _("Боты в турнирах не играют."))
    if player.is_staff:
        # Staff see every game in admin, a heat's shared shoe included.
        raise TournamentRefused(
            "staff_not_allowed", _("Администраторы в турнирах не играют: им видны все игры.")
        )
    ban = restriction_in_force(player.pk, Sanction.Kind.BAN)
    if ban is not None:
        raise TournamentRefused("banned", banned_text(ban))
    blocked = no_show_block_until(player, now)
    if blocked is not None:
        minutes = max(1, math.ceil((blocked - now).total_seconds() / 60))
        raise TournamentRefused(
            "no_show_block",
            ngettext(
                "Вы не пришли на свой прошлый заезд: регистрация откроется через %(n)d минуту.",
                "Вы не пришли на свой прошлый заезд: регистрация откроется через %(n)d минут.",
                minutes,
            )
            % {"n": minutes},
        )
    days = tournament.min_account_age_days
    if days and player.date_joined > now - datetime.timedelta(days=days):
        raise TournamentRefused(
            "account_too_new",
            ngettext(
                "В этот турнир принимают аккаунты не моложе %(n)d дня.",
                "В этот турнир принимают аккаунты не моложе %(n)d дней.",
                days,
            )
            % {"n": days},
        )
    games = tournament.min_games_played
    if games and games_played_by(player).count() < games:
        raise TournamentRefused(
            "too_few_games",
            ngettext(
                "В этот турнир принимают сыгравших не меньше %(n)d игры.",
                "В этот турнир принимают сыгравших не меньше %(n)d игр.",
                games,
            )
            % {"n": games},
        )
    if tournament.freeroll:
        # The house's prizes for nothing down: fair play's minimum age or decisions
        # (accounts.signals.free_chips_requested), so fresh accounts cannot farm them.
        try:
            free_chips_requested.send(sender=Tournament, player=player)
        except FreeChipsRefused as refused:
            raise TournamentRefused("account_too_new", refused.message) from None


@transaction.atomic
def entry_register(*, tournament_id: int, player: Any, now: datetime.datetime) -> Entry:
    """Register `player`, their buy-in moved into the event's escrow. The tournament's row
    is locked first, so of registrations racing at the cap exactly the cap succeed."""
    tournament = _locked(tournament_id)
    if not registration_open(tournament, now):
        raise TournamentRefused("registration_closed", _("Регистрация на этот турнир закрыта."))
    entry = Entry.objects.filter(tournament=tournament, player=player).first()
    if entry is not None and entry.active:
        raise TournamentRefused("already_registered", _("Вы уже зарегистрированы."))
    _check_conditions(tournament, player, now)
    entrants = list(
        tournament.entries.filter(status=Entry.Status.REGISTERED).values_list(
            "player_id", flat=True
        )
    )
    taken = len(entrants)
    if taken >= tournament.max_entrants:
        raise TournamentRefused("tournament_full", _("Все места в турнире заняты."))
    entry_requested.send(
        sender=Tournament, tournament=tournament, player=player, entrant_ids=entrants
    )
    attempt = 1 if entry is None else entry.attempt + 1
    if tournament.buy_in:
        try:
            chips_transfer(
                source=wallet_for(player),
                destination=escrow_account(tournament.escrow_code),
                amount=tournament.buy_in,
                reason=LedgerEntry.Reason.TOURNAMENT_BUY_IN,
                idempotency_key=f"tournament:{tournament.pk}:buy-in:{player.pk}:{attempt}",
                memo=tournament.name,
            )
        except InsufficientChips:
            raise TournamentRefused(
                "not_enough_chips",
                _("Не хватает фишек на взнос: нужно %(n)d.") % {"n": tournament.buy_in},
            ) from None
    if entry is None:
        entry = Entry.objects.create(tournament=tournament, player=player, paid=tournament.buy_in)
    else:
        entry.status = Entry.Status.REGISTERED
        entry.attempt = attempt
        entry.paid = tournament.buy_in
        entry.save(update_fields=["status", "attempt", "paid"])
    if (
        plays_sit_and_go(tournament)
        and tournament.status == Tournament.Status.REGISTERING
        and taken + 1 == tournament.max_entrants
    ):
        # The last seat: a sit-and-go starts when its table is full (docs/tournaments.md).
        # Should the start fail, the registration stands and the clock starts it.
        changed_on_commit(tournament.pk)
        try:
            with transaction.atomic():
                tournament_start(tournament=tournament)
        except Exception:
            logger.exception("tournament %s: the start when full failed", tournament.pk)
        entry.refresh_from_db()
        return entry
    if tournament.status == Tournament.Status.RUNNING:  # a late registration
        entry.stack = tournament.starting_stack
        entry.save(update_fields=["stack"])
        if _plays_heats(tournament):
            try:
                heats.heat_open(tournament=tournament, entry=entry)
            except (PlayError, SeatError) as error:  # the whole registration rolls back
                code = getattr(error, "code", "cannot_start")
                raise TournamentRefused(code, str(getattr(error, "message", error))) from None
    changed_on_commit(tournament.pk)
    return entry


def _plays_heats(tournament: Tournament) -> bool:
    return (
        tournament.format == Tournament.Format.DUPLICATE
        and tournament.variant in heats.HEAT_VARIANTS
    )


def _refund(tournament: Tournament, entry: Entry) -> None:
    """The registration's buy-in back: what it paid (`paid`), not the event's buy-in now."""
    if entry.paid:
        chips_transfer(
            source=escrow_account(tournament.escrow_code),
            destination=wallet_for(entry.player),
            amount=entry.paid,
            reason=LedgerEntry.Reason.TOURNAMENT_REFUND,
            idempotency_key=(
                f"tournament:{tournament.pk}:refund:{entry.player_id}:{entry.attempt}"
            ),
            memo=tournament.name,
        )


def _refund_refused(tournament: Tournament, entry: Entry) -> None:
    """An entrant the start could not seat: their buy-in back, out of the event."""
    _refund(tournament, entry)
    entry.status = Entry.Status.REFUNDED
    entry.save(update_fields=["status"])


@transaction.atomic
def entry_withdraw(*, tournament_id: int, player: Any) -> Entry:
    """Withdraw before the start: the buy-in comes back."""
    tournament = _locked(tournament_id)
    entry = Entry.objects.filter(
        tournament=tournament, player=player, status=Entry.Status.REGISTERED
    ).first()
    if entry is None:
        raise TournamentRefused("not_registered", _("Вы не зарегистрированы в этом турнире."))
    if tournament.status != Tournament.Status.REGISTERING:
        raise TournamentRefused(
            "tournament_started", _("Турнир уже начался: сняться с возвратом взноса нельзя.")
        )
    _refund(tournament, entry)
    entry.status = Entry.Status.WITHDRAWN
    entry.save(update_fields=["status"])
    changed_on_commit(tournament.pk)
    return entry


@transaction.atomic
def tournament_cancel(*, tournament: Tournament) -> Tournament:
    """Cancel an event that has not ended: every registered entrant's buy-in comes back."""
    tournament = _locked(tournament.pk)
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return tournament
    if tournament.status == Tournament.Status.RUNNING and _plays_heats(tournament):
        heats.heats_close(tournament)  # the heats stop and their seeds are published
    if tournament.status == Tournament.Status.RUNNING and plays_sit_and_go(tournament):
        sitgo.sit_and_go_close(tournament)  # the game is voided, the table closed
    if tournament.status == Tournament.Status.RUNNING and rounds.plays_multi_table(tournament):
        rounds.rounds_close(tournament)  # the round's games are voided, their tables closed
    for entry in tournament.entries.select_related("player").filter(status=Entry.Status.REGISTERED):
        _refund(tournament, entry)
        entry.status = Entry.Status.REFUNDED
        entry.save(update_fields=["status"])
    tournament.status = Tournament.Status.CANCELLED
    tournament.save(update_fields=["status"])
    _repeat(tournament)
    changed_on_commit(tournament.pk)
    return tournament


@transaction.atomic
def tournament_start(*, tournament: Tournament) -> Tournament:
    """Start at its time: with fewer entrants than its minimum it is cancelled instead."""
    tournament = _locked(tournament.pk)
    if tournament.status == Tournament.Status.SCHEDULED:
        tournament = tournament_registration_open(tournament=tournament)
    if tournament.status != Tournament.Status.REGISTERING:
        return tournament
    entries = tournament.entries.filter(status=Entry.Status.REGISTERED)
    if entries.count() < tournament.min_entrants:
        return tournament_cancel(tournament=tournament)
    entries.update(stack=tournament.starting_stack)
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    if _plays_heats(tournament):
        heats.heats_open(tournament, refuse=lambda entry, why: _refund_refused(tournament, entry))
    if plays_sit_and_go(tournament):
        table = sitgo.sit_and_go_open(
            tournament, refuse=lambda entry, why: _refund_refused(tournament, entry)
        )
        if table is None:  # fewer than two could be seated: nobody to play
            return tournament_cancel(tournament=tournament)
    if rounds.plays_multi_table(tournament):
        dealt = rounds.round_open(
            tournament, refuse=lambda entry, why: _refund_refused(tournament, entry)
        )
        if not dealt:
            return tournament_cancel(tournament=tournament)
    changed_on_commit(tournament.pk)
    return tournament


@transaction.atomic
def tournament_round_progress(*, tournament: Tournament) -> Tournament:
    """Multi-table: settle the round's tables whose game is over; once every one is, seat
    and deal the next round — or, after the final table (or with fewer than two left to
    play), end the event. Run again, it changes nothing."""
    tournament = _locked(tournament.pk)
    if tournament.status != Tournament.Status.RUNNING or not rounds.plays_multi_table(tournament):
        return tournament
    if not rounds.settle_played(tournament):
        return tournament  # nothing new (the clock asks at every beat)
    changed_on_commit(tournament.pk)
    if not rounds.round_over(tournament):
        return tournament
    # A later round (an entrant who cannot be seated, banned since, sits it out).
    if tournament.round < tournament.rounds and rounds.round_open(
        tournament, refuse=lambda entry, why: None
    ):
        return tournament
    return tournament_finish(tournament=tournament)


@transaction.atomic
def tournament_finish(*, tournament: Tournament) -> Tournament:
    """Rank the entrants by final stack — multi-table: the final table by its stacks,
    then by points — equal ones tying (docs/tournaments.md), and pay the places from the
    escrow (a freeroll's from the house). Run again, it pays nothing twice: each prize's
    key names the event and the entrant."""
    tournament = _locked(tournament.pk)
    if tournament.status != Tournament.Status.RUNNING:
        return tournament
    if _plays_heats(tournament):
        heats.heats_close(tournament)  # a heat still in play counts what it has so far
    if plays_sit_and_go(tournament):
        sitgo.sit_and_go_close(tournament)  # a game still in play: its settled results
    score: Callable[[Entry], tuple[int, ...]] = lambda e: (e.stack or 0,)  # noqa: E731
    if rounds.plays_multi_table(tournament):
        rounds.rounds_close(tournament)  # a round in play: its settled deals give points
        score = rounds.ranking_key(tournament)
    entries = list(
        tournament.entries.select_related("player")
        .filter(status=Entry.Status.REGISTERED)
        .order_by("registered_at", "pk")
    )
    ranking: list[list[Entry]] = []
    # Highest score first; sorted() is stable, so equal scores keep registration order.
    for entry in sorted(entries, key=score, reverse=True):
        if ranking and score(ranking[-1][0]) == score(entry):
            ranking[-1].append(entry)
        else:
            ranking.append([entry])
    pool = prize_pool(tournament)
    paid = payouts(pool, ranking, tournament.prize_table) if entries else {}
    source = grants_account() if tournament.freeroll else escrow_account(tournament.escrow_code)
    place = 1
    for group in ranking:
        for entry in group:
            entry.place = place
            entry.prize = paid.get(entry, 0)
            entry.status = Entry.Status.FINISHED
            entry.save(update_fields=["place", "prize", "status"])
            if entry.prize:
                chips_transfer(
                    source=source,
                    destination=wallet_for(entry.player),
                    amount=entry.prize,
                    reason=LedgerEntry.Reason.TOURNAMENT_PRIZE,
                    idempotency_key=f"tournament:{tournament.pk}:prize:{entry.player_id}",
                    memo=tournament.name,
                )
        place += len(group)
    tournament.status = Tournament.Status.FINISHED
    tournament.save(update_fields=["status"])
    _repeat(tournament)
    changed_on_commit(tournament.pk)
    return tournament


def _repeat(tournament: Tournament) -> Tournament | None:
    """A repeating event's next one, made once (its `previous` is unique)."""
    step = REPEAT_STEP.get(tournament.repeat)  # type: ignore[call-overload]
    if step is None or Tournament.objects.filter(previous=tournament).exists():
        return None
    fields = {
        field.name: getattr(tournament, field.name)
        for field in Tournament._meta.concrete_fields
        if field.name not in ("id", "status", "server_seed", "commitment", "created_at", "previous")
    }
    for name in ("registration_opens_at", "starts_at", "ends_at"):
        fields[name] = fields[name] + step
    return Tournament.objects.create(**fields, previous=tournament)


def tournaments_advance(*, now: datetime.datetime) -> int:
    """What the clock makes due (Celery beat, or the embedded ticker): registration
    opens, events start, events end — at their window's end, or once every heat is
    played and late registration has closed. Each step is its own service and
    transaction, and one event's failure is logged without stopping the others' (it is
    tried again at the next beat); the number of steps taken."""
    # (Exists, not exclude() across entries: that would match the status and the flag on
    # two different entries.)
    unplayed = Entry.objects.filter(
        tournament=OuterRef("pk"), status=Entry.Status.REGISTERED, heat_over=False
    )
    heats_all_played = Tournament.objects.filter(
        ~Exists(unplayed),
        status=Tournament.Status.RUNNING,
        format=Tournament.Format.DUPLICATE,
        variant__in=heats.HEAT_VARIANTS,
    )
    # A sit-and-go whose game is over but not its event (the game's end is heard at
    # once: this is the fallback should that have failed).
    sit_and_go_played = [
        t
        for t in Tournament.objects.filter(
            status=Tournament.Status.RUNNING, format=Tournament.Format.SIT_AND_GO
        )
        if sitgo.games_over(t)
    ]
    # A sit-and-go whose seats are full starts before its time (as the last seat is
    # taken; this is the fallback should that start have failed).
    sit_and_go_full = [
        t
        for t in Tournament.objects.filter(
            status=Tournament.Status.REGISTERING,
            format=Tournament.Format.SIT_AND_GO,
            starts_at__gt=now,
        )
        if t.entries.filter(status=Entry.Status.REGISTERED).count() >= t.max_entrants
    ]
    # Multi-table: a round whose tables are over is followed by the next (as a table's
    # game ends; this is the fallback should that have failed).
    multi_table_running = Tournament.objects.filter(
        status=Tournament.Status.RUNNING, format=Tournament.Format.MULTI_TABLE
    )
    due: list[tuple[Any, Any]] = [
        (
            tournament_registration_open,
            Tournament.objects.filter(
                status=Tournament.Status.SCHEDULED, registration_opens_at__lte=now
            ),
        ),
        (
            tournament_start,
            Tournament.objects.filter(status=Tournament.Status.REGISTERING, starts_at__lte=now),
        ),
        (tournament_start, sit_and_go_full),
        (
            tournament_finish,
            Tournament.objects.filter(status=Tournament.Status.RUNNING, ends_at__lte=now),
        ),
        (
            tournament_finish,
            [t for t in heats_all_played if t.registration_closes_at <= now],
        ),
        (tournament_finish, sit_and_go_played),
        (tournament_round_progress, multi_table_running),
    ]
    steps = 0
    for step, events in due:
        for tournament in events:
            try:
                step(tournament=tournament)
            except Exception:
                logger.exception("tournament %s: %s failed", tournament.pk, step.__name__)
                continue
            steps += 1
    return steps
