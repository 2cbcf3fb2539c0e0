"""An event's standings as the tournament socket sends them (contract.tournament), and the
note that they changed, sent to the event's group once the change is committed."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from accounts.services import escrow_account
from contract.tournament import EventFacts, Standing, Standings
from play.frames import broadcast
from play.frames.build import epoch_ms
from tournaments import stacks
from tournaments.models import Entry, Tournament
from tournaments.prizes import place_prizes


def tournament_group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def place_prizes_now(tournament: Tournament, pool: int, entrants: int) -> list[int]:
    """Each paid place's prize for the pool and field now (the page and the socket alike)."""
    return place_prizes(pool, max(entrants, 1), tournament.prize_table) if pool else []


def prize_pool(tournament: Tournament) -> int:
    """What the places share: the buy-ins held in escrow, or a freeroll's pool; once the
    event has finished (its escrow paid out, empty), what its places were paid."""
    if tournament.freeroll:
        return tournament.freeroll_pool
    if tournament.status == Tournament.Status.FINISHED:
        paid = tournament.entries.aggregate(paid=Sum("prize"))["paid"]
        return int(paid or 0)
    return escrow_account(tournament.escrow_code).balance


def standings_of(tournament_id: int) -> Standings | None:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    entries = list(
        tournament.entries.select_related("player")
        .filter(status__in=[Entry.Status.REGISTERED, Entry.Status.FINISHED])
        .order_by("place", "registered_at", "pk")
    )
    stacks.with_live_stacks(tournament, entries)  # a sit-and-go's, as its game stands
    if tournament.status != Tournament.Status.FINISHED:
        if tournament.format == Tournament.Format.MULTI_TABLE:
            entries.sort(key=lambda e: -e.points)  # stable: registration order kept
        else:
            entries.sort(key=lambda e: -(e.stack or 0))
    pool = prize_pool(tournament)
    over = tournament.status == Tournament.Status.FINISHED
    return Standings(
        tournament=EventFacts(
            id=tournament.pk,
            name=tournament.name,
            variant=tournament.variant,  # type: ignore[arg-type]
            format=tournament.format,  # type: ignore[arg-type]
            status=tournament.status,  # type: ignore[arg-type]
            registration_opens_at=epoch_ms(tournament.registration_opens_at),
            starts_at=epoch_ms(tournament.starts_at),
            ends_at=epoch_ms(tournament.ends_at),
            registration_closes_at=epoch_ms(tournament.registration_closes_at),
            buy_in=tournament.buy_in,
            pool=pool,
            entrants=len(entries),
            max_entrants=tournament.max_entrants,
            rounds=tournament.rounds,
            starting_stack=tournament.starting_stack,
            commitment=tournament.commitment or None,
            server_seed=tournament.server_seed if over and tournament.server_seed else None,
        ),
        entries=[
            Standing(
                player=e.player.username,
                stack=e.stack,
                heat_over=e.heat_over,
                place=e.place,
                prize=e.prize,
                points=e.points,
            )
            for e in entries
        ],
        prizes=place_prizes_now(tournament, pool, len(entries)),
        server_time=epoch_ms(timezone.now()),
    )


def changed_on_commit(tournament_id: int) -> None:
    """Once this transaction commits, every socket of the event sends fresh standings."""
    group = tournament_group(tournament_id)
    transaction.on_commit(
        lambda: broadcast.send(group, {"type": "tournament.changed"}), robust=True
    )
