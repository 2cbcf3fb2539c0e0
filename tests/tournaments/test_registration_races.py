"""Registrations racing at the cap on PostgreSQL: the tournament's row lock lets exactly the
cap in, each with its buy-in in escrow, and nobody else pays."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone

from accounts.models import LedgerEntry
from accounts.services import escrow_account
from tests.tournaments.helpers import make_tournament
from tournaments.models import Entry
from tournaments.services import TournamentRefused, entry_register, tournament_registration_open

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def test_forty_concurrent_registrations_for_sixteen_places_register_exactly_sixteen(
    postgres: None, make_user: Any
) -> None:
    assert connection.vendor == "postgresql"
    tournament = tournament_registration_open(
        tournament=make_tournament(max_entrants=16, buy_in=250)
    )
    users = [make_user(f"racer{i}") for i in range(40)]
    go = threading.Event()

    def race(user: Any) -> str:
        try:
            go.wait(timeout=30)
            entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
            return "registered"
        except TournamentRefused as refused:
            return refused.code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=40) as pool:
        futures = [pool.submit(race, user) for user in users]
        go.set()
        outcomes = [future.result() for future in futures]
    assert sorted(outcomes) == ["registered"] * 16 + ["tournament_full"] * 24
    assert Entry.objects.filter(tournament=tournament, status="registered").count() == 16
    assert LedgerEntry.objects.filter(reason="tournament_buy_in").count() == 16
    assert escrow_account(tournament.escrow_code).balance == 16 * 250
