"""A host cannot void a deal he has seen (issue 17, item 5).

At the chip variants (`salon`, `banker36`) the host's `close` while chips are in play is
deferred: the table closes once the deal (salon) or the bank (banker36) in play settles by
the rules, so the host's stake is won or lost like anyone's. Voiding — every stake in play
handed back — stays with the administrators."""

from __future__ import annotations

import random
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import LedgerEntry
from accounts.services import wallet_for
from games import engine
from play.models import Game
from play.services import closing, errors, moves, seating
from tables import services
from tables.models import Seat, Table
from tests.play.live_helpers import conservation_holds, escrows_empty, playing
from tests.play.ws_play import (
    Live,
    balances,
    create_table,
    make_users,
    play_to_the_end,
    playing_game,
)

TABLES = {
    "salon": {"min_bet": 10, "max_bet": 100},
    "banker36": {"stake": 10, "entry_limit": 100},
}


@database_sync_to_async
def _table(pk: int) -> Table:
    return Table.objects.get(pk=pk)


@database_sync_to_async
def _ledger(game: Game, user: Any) -> list[tuple[str, int]]:
    """The game's chip movements to and from `user`'s wallet: (reason, signed amount)."""
    wallet = wallet_for(user)
    entries = LedgerEntry.objects.filter(game=game).order_by("id")
    return [
        (e.reason, e.amount if e.destination_id == wallet.pk else -e.amount)
        for e in entries
        if wallet.pk in (e.source_id, e.destination_id)
    ]


@database_sync_to_async
def _refunds(game: Game) -> int:
    return LedgerEntry.objects.filter(game=game, reason=LedgerEntry.Reason.REFUND).count()


@database_sync_to_async
def _conserved() -> bool:
    return conservation_holds() and escrows_empty()


async def _sit_two(
    variant: str, make_user: Any, names: tuple[str, str] = ("ann", "bob")
) -> tuple[Live, list[Any]]:
    users = await make_users(make_user, *names)
    table = await create_table(variant=variant, name="T", **TABLES[variant])
    live = Live(table)
    for user in users:
        await live.join(user)
    for name in names:
        assert (await live.command(name, "sit"))["type"] == "ack"
    for name in names:
        assert (await live.command(name, "ready"))["type"] == "ack"
    return live, users


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
@pytest.mark.parametrize("variant", ["salon", "banker36"])
async def test_a_host_who_bet_and_saw_his_card_closes_and_his_stake_is_still_played(
    variant, make_user, settings
):
    """The host (a ponter) bets, sees his card and sends `close`: the answer says the
    close is scheduled, the deal (the bank) plays on, and the table closes once it settles.
    His stake is won or lost by the rules — never refunded — and the other player is
    settled by the same rules; chips are conserved."""
    settings.GAME_INTERLUDE_SECONDS = 60  # no next bank/shoe starts unless the test sweeps
    # About one deal in twenty settles at the host's bet itself (a natural): then there is
    # nothing in play to close on, and the test plays that game out and tries a new table.
    for attempt in range(8):
        if await _host_bets_sees_and_closes(variant, make_user, (f"ann{attempt}", f"bob{attempt}")):
            return
    raise AssertionError("every deal settled at the host's bet")


async def _host_bets_sees_and_closes(variant: str, make_user: Any, names: tuple[str, str]) -> bool:
    """One table of the test above; False when the deal settled at the host's bet."""
    live, users = await _sit_two(variant, make_user, names)
    game = await playing_game(live.table.pk)
    assert game is not None
    banker = game.state["banker"]
    host = next(name for name in names if name != banker)
    await database_sync_to_async(Table.objects.filter(pk=live.table.pk).update)(
        created_by=live.users[host]
    )
    start = await balances(users)
    scheduled: dict[str, Any] = {}

    async def bet_see_and_close(game: Game, turn: dict[str, Any]) -> bool:
        if scheduled or turn["seat"] != host:
            return False
        if not any(a["action"] == "bet" for a in turn["actions"]):
            return False
        await live.act(host, {"action": "bet", "amount": 10})
        assert (await balances([live.users[host]]))[host] == start[host] - 10
        view = live.players[host].view()
        seen = view["deal"] if variant == "salon" else view["circle"]
        own = next(h for h in seen["hands"] if h["seat"] == host)
        assert own["cards"], "the host has seen his card(s)"
        after_bet = await playing_game(live.table.pk)
        if after_bet is None or after_bet.pk != game.pk or not engine.in_play(after_bet.state):
            scheduled["settled at the bet"] = True
            return True
        answer = await live.command(host, "close")
        assert answer["type"] == "ack" and answer["closing"] is True, answer
        table = await _table(live.table.pk)
        assert table.status == Table.Status.OPEN and table.closing
        frame = live.players[banker].last()
        assert frame["table"]["closing"] is True and frame["table"]["status"] == "open"
        assert {"type": "table_closing"} in frame["events"]
        still = await playing_game(live.table.pk)
        assert still is not None and still.pk == game.pk
        assert engine.in_play(still.state) != {}
        # A second close changes nothing: still scheduled.
        again = await live.command(host, "close")
        assert again["type"] == "ack" and again["closing"] is True
        scheduled["at"] = still.state["version"]
        return True

    game = await play_to_the_end(live, random.Random(7), hook=bet_see_and_close)
    assert scheduled, "the host never bet"
    if "settled at the bet" in scheduled:
        await live.close()
        return False
    table = await _table(live.table.pk)
    assert table.status == Table.Status.CLOSED and not table.closing
    assert table.next_game_at is None
    assert not await database_sync_to_async(Seat.objects.filter(table=table).exists)()
    # salon: the shoe ends where the deal settled (voided with nothing in play);
    # banker36: the bank was played out.
    assert game.status == (Game.Status.VOIDED if variant == "salon" else Game.Status.FINISHED)
    assert live.players[banker].last()["table"]["status"] == "closed"
    # The host's stake went into escrow and came back only as the rules paid it.
    assert await _refunds(game) == 0
    moves = await _ledger(game, live.users[host])
    assert moves[0] == (LedgerEntry.Reason.STAKE, -10)
    assert all(reason != LedgerEntry.Reason.REFUND for reason, _ in moves)
    hands = [h for r in game.result["rounds"] for h in r["hands"] if h["seat"] == host]
    assert hands and hands[0]["outcome"] in ("win", "loss", "push")
    after = await balances(users)
    deltas = game.result["deltas"]
    assert sum(deltas.values()) == 0
    assert sum(amount for _reason, amount in moves) == deltas[host]
    for entry in game.players:  # chips at the game's start (a banker36 bank is staked)
        assert after[entry["id"]] == entry["chips"] + deltas[entry["id"]]
    if variant == "salon":  # the deal the host bet in, and no other, was played
        assert len(game.result["rounds"]) == 1
        assert hands[0]["delta"] == deltas[host] and abs(deltas[host]) in (0, 10, 20)
    assert await _conserved()
    await live.close()
    return True


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
@pytest.mark.parametrize("variant", ["salon", "banker36"])
async def test_a_table_with_no_deal_in_play_still_closes_at_once(variant, make_user, settings):
    """With no game in play (here an administrator voided the last one; so it is in the
    interlude between banks or shoes) nothing is at stake: the host's close closes the
    table at once, as before."""
    settings.GAME_INTERLUDE_SECONDS = 60
    live, _users = await _sit_two(variant, make_user)
    host = "ann"
    await database_sync_to_async(Table.objects.filter(pk=live.table.pk).update)(
        created_by=live.users[host]
    )
    game = await playing_game(live.table.pk)
    await database_sync_to_async(closing.game_void)(game=game)  # an admin ends this one
    await live.settle()
    assert await playing_game(live.table.pk) is None
    answer = await live.command(host, "close")
    assert answer["type"] == "ack" and "closing" not in answer, answer
    table = await _table(live.table.pk)
    assert table.status == Table.Status.CLOSED and not table.closing
    assert live.players["bob"].last()["table"]["status"] == "closed"
    assert {"type": "table_closed"} in live.players["bob"].last()["events"]
    assert await _conserved()
    await live.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_salon_with_cards_dealt_but_no_bet_yet_closes_at_once(make_user, settings):
    """A salon deal whose cards are out but where nobody has bet has nothing to settle:
    the close is immediate (the shoe is voided, no chip moves)."""
    live, users = await _sit_two("salon", make_user)
    game = await playing_game(live.table.pk)
    banker = game.state["banker"]
    host = next(name for name in ("ann", "bob") if name != banker)
    await database_sync_to_async(Table.objects.filter(pk=live.table.pk).update)(
        created_by=live.users[host]
    )
    start = await balances(users)

    async def close_before_betting(game: Game, turn: dict[str, Any]) -> bool:
        if not any(a["action"] == "bet" for a in turn["actions"]):
            return False
        assert engine.in_play(game.state) == {}
        answer = await live.command(host, "close")
        assert answer["type"] == "ack" and "closing" not in answer, answer
        return True

    game = await play_to_the_end(live, random.Random(1), hook=close_before_betting)
    assert game.status == Game.Status.VOIDED
    assert (await _table(live.table.pk)).status == Table.Status.CLOSED
    assert await balances(users) == start
    assert await _conserved()
    await live.close()


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["salon", "banker36"])
def test_an_admin_void_of_a_game_whose_close_is_scheduled_refunds_and_closes(
    variant, make_user, settings
):
    """Voids stay with the administrators: voiding the game whose deal the host's close
    waits for hands every stake in play back, and the table, with nothing left to wait
    for, closes with it."""
    settings.GAME_INTERLUDE_SECONDS = 60
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant=variant, name="T", created_by=ann, **TABLES[variant])
    for user in (ann, bob):
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=ann)
    users = {u.pk: u for u in (ann, bob)}
    game = playing(table)
    while not engine.in_play(game.state) or (variant == "salon" and not game.state["deal"]["bets"]):
        turn = engine.legal_actions(game.state)
        entry = game.player_entry(turn["seat"])
        bet = next((a for a in turn["actions"] if a["action"] == "bet"), None)
        move = {"action": "bet", "amount": bet.get("min", 10)} if bet else None
        if move is None:
            cut = next(a for a in turn["actions"] if a["action"] == "cut")
            move = {"action": "cut", "position": cut["min"]}
        moves.game_act(table=table, player=users[entry["user"]], action=move, version=None)
        game = playing(table)
    staked = engine.in_play(game.state)
    before = {u.username: wallet_for(u).balance for u in (ann, bob)}
    assert closing.table_close_by_host(table=table, by=ann) == {"closing": True}
    closing.game_void(game=game)
    game.refresh_from_db()
    table.refresh_from_db()
    assert game.status == Game.Status.VOIDED
    assert table.status == Table.Status.CLOSED and not table.closing
    refunded = LedgerEntry.objects.filter(game=game, reason=LedgerEntry.Reason.REFUND)
    assert sum(e.amount for e in refunded) == sum(staked.values()) > 0
    for user in (ann, bob):
        seat = next(p["id"] for p in game.players if p["user"] == user.pk)
        assert wallet_for(user).balance == before[user.username] + staked.get(seat, 0)
    assert conservation_holds() and escrows_empty()


@pytest.mark.django_db
def test_only_the_host_or_staff_may_close(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="salon", name="T", created_by=ann)
    with pytest.raises(errors.PlayError) as refused:
        closing.table_close_by_host(table=table, by=bob)
    assert refused.value.code == "not_host"
    assert closing.table_close_by_host(table=table, by=ann) == {}
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
