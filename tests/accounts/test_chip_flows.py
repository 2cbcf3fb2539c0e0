"""The admin's chip-flow report: who won most from whom, across tables."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import LedgerEntry
from accounts.reports import chip_flows
from accounts.services import chips_transfer, escrow_account, wallet_for
from play.models import Game
from play.services import moves, seating
from tables import services
from tests.play.live_helpers import playing

pytestmark = pytest.mark.django_db


@pytest.fixture
def new_game(make_user):
    """Makes a finished game row (a classic match, which moves no chips itself, at its own
    table) to hang ledger entries on."""
    root = make_user("root", is_staff=True)
    count = iter(range(1, 100))

    def make():
        n = next(count)
        table = services.table_create(variant="classic", name=f"C{n}")
        for name in ("ann", "bob"):
            seating.seat_take(table=table, player=make_user(f"{name}{n}"))
        moves.game_start(table=table, by=root, rounds=5)
        game = playing(table)
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
        return game

    return make


def _settle(game, nets: dict, tag: str) -> None:
    """Stakes of the losers into escrow and payouts to the winners, as a game does."""
    pot = escrow_account(f"escrow:report:{tag}")
    for user, net in nets.items():
        if net < 0:
            chips_transfer(
                source=wallet_for(user),
                destination=pot,
                amount=-net,
                game=game,
                reason=LedgerEntry.Reason.STAKE,
                idempotency_key=f"{tag}:stake:{user.pk}",
            )
    for user, net in nets.items():
        if net > 0:
            chips_transfer(
                source=pot,
                destination=wallet_for(user),
                amount=net,
                game=game,
                reason=LedgerEntry.Reason.PAYOUT,
                idempotency_key=f"{tag}:pay:{user.pk}",
            )


def test_losses_are_shared_among_a_games_winners_and_summed_over_games(new_game, make_user):
    mule, boss, other, third = (make_user(n) for n in ("mule", "boss", "other", "third"))
    _settle(new_game(), {mule: -300, boss: 300}, "g1")
    _settle(new_game(), {mule: -500, boss: 400, other: 100}, "g2")
    _settle(new_game(), {third: -30, other: 30}, "g3")
    flows = chip_flows()
    assert [(f.loser.username, f.winner.username, f.chips, f.games) for f in flows] == [
        ("mule", "boss", 700, 2),
        ("mule", "other", 100, 1),
        ("third", "other", 30, 1),
    ]


def test_the_admin_report_lists_the_flows_for_staff_who_may_view_the_ledger(
    new_game, make_user, admin_client, client
):
    _settle(new_game(), {make_user("mule"): -300, make_user("boss"): 300}, "g1")
    url = reverse("admin:accounts_account_chip_flows")
    page = admin_client.get(url).content.decode()
    assert "mule" in page and "boss" in page and "300" in page
    assert url in admin_client.get(reverse("admin:accounts_account_changelist")).content.decode()
    clerk = make_user("clerk", is_staff=True)  # staff, but no permission on the ledger
    client.force_login(clerk)
    assert client.get(url).status_code == 403


def test_games_still_in_play_are_left_out(new_game, make_user):
    game = new_game()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.PLAYING)
    _settle(game, {make_user("mule"): -300, make_user("boss"): 300}, "g1")
    assert chip_flows() == []
