"""A live table's host powers and its chips, beyond the happy paths:

- pause and resume: the running decision's remaining time is kept, to the millisecond at
  the service and within a tolerance as the sockets show it (issue 7, Deliver 8);
- the host's `remove`: in `classic` the rules' removal, at a chip table a forfeit whose
  stake stays at risk and whose chips stay counted (Deliver 2);
- a settlement run again pays nothing twice (Deliver 3: keys from (game, version));
- `classic`, `solo` and `blackjack` never move a wallet chip (Deliver 3).
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import random
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.db import transaction
from django.utils import timezone

from accounts.models import Account, LedgerEntry
from accounts.services import chips_in_circulation, wallet_for
from games.record import replay
from play import wall
from play.clock.sweep import deadlines_sweep
from play.models import Game
from play.services import chips, closing, moves, seating
from tables import services
from tables.models import Seat, Table
from tests.play.live_helpers import (
    conservation_holds,
    escrows_empty,
    ledger_for,
    play_game_randomly,
    play_step,
    playing,
    sweep_after,
)
from tests.play.ws_play import (
    Live,
    balances,
    create_table,
    fetch_record,
    make_users,
    play_to_the_end,
    playing_game,
    sweep,
)

MS = datetime.timedelta(milliseconds=1)


# --- pause and resume ------------------------------------------------------------------


class Clock:
    """The services' clock (`wall.now`), moved only by the test."""

    def __init__(self) -> None:
        self.now = timezone.now().replace(microsecond=0)

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, seconds: float) -> datetime.datetime:
        self.now += datetime.timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(wall, "now", fake)
    return fake


def banker36_bank(make_user: Any, **fields: Any) -> tuple[Table, Any, Any]:
    """A banker36 bank in play between two players: (table, host, the ponter to bet)."""
    host, other = make_user("host"), make_user("other")
    table = services.table_create(
        variant="banker36", name="B", stake=10, entry_limit=100, created_by=host, **fields
    )
    for user in (host, other):
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=host)
    game = playing(table)
    ponter = host if game.state["banker"] == "other" else other
    return table, host, ponter


@pytest.mark.django_db
def test_resume_restores_the_remaining_decision_time_to_the_millisecond(make_user, clock):
    table, host, _ponter = banker36_bank(make_user, decision_seconds=30)
    game = playing(table)
    assert game.deadline == clock.now + datetime.timedelta(seconds=30)

    clock.advance(7.25)
    moves.game_pause(table=table, by=host)
    game.refresh_from_db()
    assert (game.deadline, game.paused_remaining_ms) == (None, 22_750)
    # Stopped: a sweep far past the old deadline plays nothing.
    assert deadlines_sweep(now=clock.now + datetime.timedelta(days=1)) == 0

    clock.advance(600)  # ten minutes paused
    moves.game_resume(table=table, by=host)
    game.refresh_from_db()
    assert game.deadline == clock.now + datetime.timedelta(milliseconds=22_750)
    assert game.paused_remaining_ms is None

    # A second pause in the same decision keeps what is left of the rest, not the whole.
    clock.advance(2.5)
    moves.game_pause(table=table, by=host)
    game.refresh_from_db()
    assert game.paused_remaining_ms == 20_250
    clock.advance(60)
    moves.game_resume(table=table, by=host)
    game.refresh_from_db()
    resumed_deadline = clock.now + datetime.timedelta(milliseconds=20_250)
    assert game.deadline == resumed_deadline

    # The clock runs out exactly then, not a millisecond earlier.
    version = game.state["version"]
    assert deadlines_sweep(now=resumed_deadline - MS) == 0
    assert deadlines_sweep(now=resumed_deadline) == 1
    game.refresh_from_db()
    assert game.state["version"] == version + 1 and game.actions[-1]["action"] == "timeout"


@pytest.mark.django_db
def test_a_player_on_turn_who_stands_up_while_paused_forfeits_at_resume(make_user, clock):
    """Not after the decision time they had left: standing up forfeits at once, and a
    pause only holds that moment until the game goes on."""
    table, host, ponter = banker36_bank(make_user, decision_seconds=30)
    clock.advance(2)
    moves.game_pause(table=table, by=host)
    seating.seat_leave(table=table, player=ponter)
    clock.advance(60)
    moves.game_resume(table=table, by=host)
    game = playing(table)
    assert game.deadline == clock.now
    assert deadlines_sweep(now=clock.now) == 1
    game.refresh_from_db()
    assert game.actions[-1] == {"seat": ponter.username, "action": "timeout"}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_pause_and_resume_over_the_sockets_show_the_remaining_time_kept(make_user):
    """As the clients see it (real clock): the pause frame gives the time left, and after
    a pause of a second the resume frame's deadline is that much later than before."""
    from tests.play.test_ws_errors import banker36_duel

    table, clients = await banker36_duel(make_user, decision_seconds=30)
    host, ponter = clients["banker"], clients["ponter"]
    running = ponter.last()["game"]
    deadline = running["deadline"]
    assert deadline is not None and running["paused"] is False

    await asyncio.sleep(0.3)
    assert (await host.command("pause"))["type"] == "ack"
    paused = await ponter.recv_until(lambda m: m["type"] == "update" and m["game"]["paused"])
    left = paused["game"]["paused_remaining_ms"]
    assert paused["game"]["deadline"] is None
    # What was left at the pause: the deadline less the moment of the pause (which came
    # a little before the frame was built; and the frames' times are whole milliseconds).
    assert -2 <= left - (deadline - paused["server_time"]) < 1_000, (left, deadline, paused)
    assert 25_000 < left < 29_800

    await asyncio.sleep(1.0)
    assert (await host.command("resume"))["type"] == "ack"
    resumed = await ponter.recv_until(lambda m: m["type"] == "update" and not m["game"]["paused"])
    new_deadline = resumed["game"]["deadline"]
    assert resumed["game"]["paused_remaining_ms"] is None
    # The time left is given back whole (the frame is built just after the resume)...
    assert -2 <= left - (new_deadline - resumed["server_time"]) < 1_000
    # ... so the deadline moved by the time the game stood still, at least the second slept.
    assert new_deadline - deadline >= 1_000 - 2
    game = await playing_game(table.pk)
    assert int(game.deadline.timestamp() * 1000) == new_deadline
    for client in clients.values():
        await client.close()


# --- the host removes a player ----------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_classic_host_removes_a_player_whose_hand_is_discarded_and_who_cannot_win(
    make_user,
):
    host, pete, vic = await make_users(make_user, "hana", "pete", "vic")
    table = await create_table(variant="classic", name="C", created_by=host, match_length=5)
    live = Live(table)
    for user in (host, pete, vic):
        await live.join(user)
    await live.watch("anonymous")
    for name in ("hana", "pete", "vic"):
        assert (await live.command(name, "sit"))["type"] == "ack"
    assert (await live.command("hana", "start"))["type"] == "ack"

    refused = await live.command("pete", "remove", seat="vic")
    assert refused["type"] == "error" and refused["code"] == "not_host", refused
    # (A dealer's natural may have settled round one at the deal: vic keeps those points.)
    scored = (await playing_game(table.pk)).state["deltas"]["vic"]
    answer = await live.command("hana", "remove", seat="vic")
    assert answer["type"] == "ack", answer
    game = await playing_game(table.pk)
    assert game.actions[-1] == {"action": "remove", "target": "vic"}
    assert game.state["removed"] == ["vic"]
    assert not await database_sync_to_async(Seat.objects.filter(player=vic).exists)()
    # Every client saw the removal; vic is no longer in the game.
    assert live.players["vic"].last()["you"] == {"seat": None, "in_game": False}
    assert live.watchers["anonymous"].view()["removed"] == ["vic"]
    late = await live.players["vic"].command("action", action="stand")
    assert late["type"] == "error" and late["code"] == "not_seated", late

    game = await play_to_the_end(live, random.Random(5))
    assert game.status == Game.Status.FINISHED
    final = game.result["final"]
    # Nothing after the removal counts for vic: the round in play gave him nothing.
    assert game.result["deltas"]["vic"] == final["scores"]["vic"] == scored
    assert final["winners"] and "vic" not in final["winners"]
    assert {"action": "remove", "target": "vic"} in game.actions
    record = await fetch_record(live.players["hana"], game.number)
    assert replay(record["record"])["result"] == game.result
    await live.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_banker36_host_removes_a_ponter_mid_duel_whose_stake_stays_at_risk_chips_conserved(
    make_user, settings
):
    """At a chip table a removal is the forfeit of standing up: the removed player's
    decisions are played by the clock at once (stand; sit later duels out), the stake
    already bet stays in play, and the seat is freed when the bank ends."""
    settings.GAME_INTERLUDE_SECONDS = 60  # the next bank starts when the test sweeps for it
    users = await make_users(make_user, "ann", "bob", "cat")
    table = await create_table(variant="banker36", name="B", stake=10, entry_limit=100)
    live = Live(table)

    async def conserved(_frames: dict[str, list[str]]) -> None:
        assert await database_sync_to_async(conservation_holds)()

    live.after_step.append(conserved)
    for user in users:
        await live.join(user)
    for name in ("ann", "bob", "cat"):
        assert (await live.command(name, "sit"))["type"] == "ack"
    for name in ("ann", "bob", "cat"):
        assert (await live.command(name, "ready"))["type"] == "ack"
    game = await playing_game(table.pk)
    banker = game.state["banker"]
    victim, other = game.state["circle"]["order"]
    # The banker hosts the table (the host may be anyone; not the player removed).
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(
        created_by=live.users[banker]
    )
    start = await balances(users)

    await live.act(victim, {"action": "bet", "amount": 10})
    assert (await balances([live.users[victim]]))[victim] == start[victim] - 10
    answer = await live.command(banker, "remove", seat=victim)
    assert answer["type"] == "ack", answer
    seat = await database_sync_to_async(Seat.objects.get)(table=table, player=live.users[victim])
    assert seat.leaving
    game = await playing_game(table.pk)
    assert game.deadline_seat == victim and game.deadline <= timezone.now()  # due at once
    assert await live.tick() == 1
    game = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert game.actions == [
        {"seat": victim, "action": "bet", "amount": 10},
        {"seat": victim, "action": "timeout"},
    ]

    async def clock_plays_the_removed(game: Game, turn: dict[str, Any]) -> bool:
        if turn["seat"] != victim:
            return False
        assert game.deadline <= timezone.now()
        assert await live.tick() == 1
        return True

    if game.status == Game.Status.PLAYING:  # (a win that breaks the bank of 10 ends it)
        game = await play_to_the_end(live, random.Random(3), hook=clock_plays_the_removed)
    assert game.status == Game.Status.FINISHED
    # The stake stayed at risk: won or lost in the duel, never refunded.
    assert abs(game.result["deltas"][victim]) == 10
    after = await balances(users)
    for entry in game.players:
        assert after[entry["id"]] == entry["chips"] + game.result["deltas"][entry["id"]]
    assert sum(game.result["deltas"].values()) == 0
    assert await database_sync_to_async(escrows_empty)()
    assert await database_sync_to_async(conservation_holds)()
    assert not await database_sync_to_async(
        Seat.objects.filter(table=table, player__username=victim).exists
    )()
    record = await fetch_record(live.players[banker], game.number)
    assert replay(record["record"])["result"] == game.result
    # The next bank is played without the removed player.
    assert await sweep((await database_sync_to_async(Table.objects.get)(pk=table.pk)).next_game_at)
    await live.settle()
    following = await playing_game(table.pk)
    assert following is not None and sorted(following.seat_ids) == sorted([banker, other])
    await live.close()


# --- a retried settlement ----------------------------------------------------------------


def ledger_state(*users: Any) -> tuple[Any, ...]:
    return (
        LedgerEntry.objects.count(),
        tuple(wallet_for(u).balance for u in users),
        tuple(Account.objects.filter(kind=Account.Kind.ESCROW).values_list("code", "balance")),
        chips_in_circulation(),
    )


@pytest.mark.django_db
def test_a_settlement_run_again_for_the_same_game_version_pays_nothing_twice(make_user):
    """Each chip movement of a game is keyed by (game, engine version, seat): running the
    chips of a transition again — as a retry would, after the write of `escrowed` was lost —
    moves nothing, for a stake and for the final payout."""
    table, _host, ponter = banker36_bank(make_user)
    users = [seat.player for seat in table.seats.select_related("player").order_by("number")]
    game = playing(table)

    def rerun(game_id: int, escrowed: dict[str, int]) -> None:
        with transaction.atomic():
            stale = Game.objects.select_for_update().get(pk=game_id)
            stale.escrowed = copy.deepcopy(escrowed)
            chips.chips_sync(stale, void=False)

    # The stake.
    before_bet = copy.deepcopy(game.escrowed)
    moves.game_act(table=table, player=ponter, action={"action": "bet", "amount": 10}, version=None)
    staked = ledger_state(*users)
    assert staked[1] == (9_990, 9_990)  # the bank and the bet are in escrow
    rerun(game.pk, before_bet)
    assert ledger_state(*users) == staked

    # The payout: the ponter stands, the banker draws, the bank ends.
    game.refresh_from_db()
    before_settlement = copy.deepcopy(game.escrowed)
    moves.game_act(table=table, player=ponter, action={"action": "stand"}, version=None)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    settled = ledger_state(*users)
    by_user = {entry["user"]: entry["id"] for entry in game.players}
    assert settled[1] == tuple(10_000 + game.result["deltas"][by_user[u.pk]] for u in users)
    assert sorted(game.result["deltas"].values()) == [-10, 10]  # one duel of 10
    assert dict(settled[2])[f"escrow:game:{game.pk}"] == 0
    payouts = [e for e in ledger_for(game) if e.reason == LedgerEntry.Reason.PAYOUT]
    assert payouts and all(f":v{game.state['version']}:" in e.idempotency_key for e in payouts)
    rerun(game.pk, before_settlement)
    rerun(game.pk, before_settlement)
    assert ledger_state(*users) == settled


# --- variants without wallet chips -------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["classic", "solo", "blackjack"])
def test_variants_not_played_for_chips_never_move_a_wallet_chip(variant, make_user, settings):
    """`classic` keeps match points, `solo` its own coins, `blackjack` session units: a
    whole game, then a game closed mid-play, write no ledger entry and open no escrow."""
    settings.GAME_INTERLUDE_SECONDS = 0
    host, guest = make_user("host"), make_user("guest")
    grants = LedgerEntry.objects.count()
    table = services.table_create(variant=variant, name=variant, created_by=host)
    users = {host.pk: host}
    seating.seat_take(table=table, player=host)
    if variant == "classic":
        seating.seat_take(table=table, player=guest)
        users[guest.pk] = guest
    if variant in ("classic", "blackjack"):
        seating.ai_seat_add(table=table, by=host, level="easy")
    if playing(table) is None:
        moves.game_start(table=table, by=host)
    game = play_game_randomly(table, users, random.Random(11))
    assert game.status == Game.Status.FINISHED and game.result is not None
    # The next game, a few moves into it, closed: voided.
    if playing(table) is None:
        if variant == "solo":
            moves.solo_new_game(table=table, player=host)
        elif variant == "blackjack":
            sweep_after(Table.objects.get(pk=table.pk).next_game_at)  # goes on by itself
        else:
            moves.game_start(table=table, by=host)
    second = playing(table)
    assert second is not None and second.number > game.number
    rng = random.Random(12)
    for _ in range(3):
        play_step(table, users, rng, second.number)
    in_play = playing(table)
    closing.table_close(table=table)
    assert in_play is None or Game.objects.get(pk=in_play.pk).status == Game.Status.VOIDED

    assert LedgerEntry.objects.count() == grants  # the welcome grants only
    assert not LedgerEntry.objects.exclude(game=None).exists()
    assert not Account.objects.filter(kind=Account.Kind.ESCROW).exists()
    assert {wallet_for(u).balance for u in (host, guest)} == {10_000}
