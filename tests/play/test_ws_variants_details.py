"""Each variant's details that the happy paths of test_ws_variants.py do not reach
(issue 7, Deliver 9): a `classic` late joiner watching until the next match, and matches
of 7 and 10 rounds; the `salon` server cut when the cutter's clock runs out, and the bank
passing to the left from shoe to shoe; a `banker36` stuk and the banker's collection;
a `solo` reload that changes nothing; `blackjack` with six AI seats at chosen levels."""

from __future__ import annotations

import datetime
import hashlib
import itertools
import random
from typing import Any
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from accounts.models import Account
from accounts.services import wallet_for
from games import engine
from games.record import replay
from play.clock import sweep
from play.models import Game
from play.services import lifecycle, moves, records, seating
from tables import services
from tests.play.live_helpers import conservation_holds, escrows_empty, latest, playing
from tests.play.ws_play import (
    Live,
    create_table,
    fetch_record,
    game_number,
    make_users,
    play_to_the_end,
    playing_game,
    table_version,
)

MS = datetime.timedelta(milliseconds=1)


def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["type"] == "ack", answer
    return answer


async def record_replays(live: Live, player: str, game: Game) -> None:
    answer = await fetch_record(live.players[player], game.number)
    assert answer["type"] == "record", answer
    assert replay(answer["record"])["result"] == game.result


# --- classic -----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_classic_late_joiner_watches_a_seven_round_match_and_plays_the_next_of_ten(
    make_user,
):
    host, pete, late = await make_users(make_user, "hana", "pete", "lara")
    table = await create_table(variant="classic", name="C", created_by=host, match_length=5)
    live = Live(table)
    for user in (host, pete, late):
        await live.join(user)
    for name in ("hana", "pete"):
        ok(await live.command(name, "sit"))
    refused = await live.command("hana", "start", rounds=6)
    assert refused["type"] == "error" and refused["code"] == "bad_message", refused
    ok(await live.command("hana", "start", rounds=7))

    # lara sits mid-match: seated, not in the game; she watches it to its end.
    assert ok(await live.command("lara", "sit"))["seat"] == "lara"
    frame = live.players["lara"].last()
    assert frame["you"] == {"seat": "lara", "in_game": False}
    assert frame["game"]["seats"] == ["hana", "pete"]
    assert frame["game"]["view"]["rounds_total"] == 7
    refused = await live.command("lara", "action", action="stand")
    assert refused["type"] == "error" and refused["code"] == "not_seated", refused
    first = await play_to_the_end(live, random.Random(1))
    assert first.state["finished"] and first.seat_ids == ["hana", "pete"]
    assert first.options["rounds"] == 7 and len(first.result["rounds"]) == 7
    assert live.players["lara"].last()["game"]["status"] == "finished"
    await record_replays(live, "hana", first)

    # The next match, of ten rounds, deals her in.
    ok(await live.command("hana", "start", rounds=10))
    second = await playing_game(table.pk)
    assert second.seat_ids == ["hana", "pete", "lara"] and second.options["rounds"] == 10
    assert live.players["lara"].last()["you"] == {"seat": "lara", "in_game": True}
    second = await play_to_the_end(live, random.Random(2))
    assert second.state["finished"] and len(second.result["rounds"]) == 10
    assert all({h["seat"] for h in r["hands"]} >= {"lara"} for r in second.result["rounds"])
    await record_replays(live, "lara", second)
    await live.close()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_classic_start_takes_match_length_with_rounds_as_its_alias(make_user):
    host, pete = await make_users(make_user, "hana", "pete")
    table = await create_table(variant="classic", name="C", created_by=host, match_length=5)
    live = Live(table)
    for user in (host, pete):
        await live.join(user)
    for name in ("hana", "pete"):
        ok(await live.command(name, "sit"))
    for fields in ({"match_length": 6}, {"match_length": 7, "rounds": 5}):
        refused = await live.command("hana", "start", **fields)
        assert refused["type"] == "error" and refused["code"] == "bad_message", refused
    ok(await live.command("hana", "start", match_length=7, rounds=7))
    game = await playing_game(table.pk)
    assert game is not None and game.options["rounds"] == 7
    await live.close()


# --- salon -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_salon_server_cuts_when_the_cutter_times_out_and_the_bank_passes_left_each_shoe(
    make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 3
    users = [make_user(name) for name in ("anna", "boris", "vera")]
    table = services.table_create(
        variant="salon", name="S", min_bet=10, max_bet=100, entry_limit=100
    )
    for user in users:
        seating.seat_take(table=table, player=user)
    for user in users:
        seating.seat_ready(table=table, player=user)
    order = ["anna", "boris", "vera"]  # table order: seats 1, 2, 3

    bankers = []
    for number in (1, 2):
        game = playing(table)
        assert game is not None and game.number == number
        banker = game.state["banker"]
        bankers.append(banker)
        # The cutter is the ponter on the banker's right (the previous seat).
        cutter = order[(order.index(banker) - 1) % 3]
        assert game.state["phase"] == "cut" and game.state["cutter"] == cutter
        top = engine.legal_actions(game.state)["actions"][0]["max"]
        # The cutter lets the clock run out: the server cuts, at a position in the shoe.
        assert sweep.deadlines_sweep(now=game.deadline - MS) == 0
        assert sweep.deadlines_sweep(now=game.deadline) == 1
        game.refresh_from_db()
        assert game.actions[0] == {"seat": cutter, "action": "timeout"}
        (cut,) = [e for e in game.events.get(version=1).events if e["type"] == "cut"]
        assert cut["by"] == "server" and cut["seat"] == cutter and 1 <= cut["position"] <= top
        # Everyone lets every clock run out to the end of the shoe.
        for _ in range(2000):
            game.refresh_from_db()
            if game.status != Game.Status.PLAYING:
                break
            assert sweep.deadlines_sweep(now=game.deadline) == 1
        assert game.status == Game.Status.FINISHED and game.state["banker"] == banker
        assert len(game.result["rounds"]) >= 10  # a whole shoe of 104 cards
        # The record its players get (the shoe in its order after the server's cut) replays.
        shared = records.public_record(game)
        assert replay(shared)["result"] == replay(records.game_record(game))["result"]
        assert replay(shared)["result"] == game.result
        table.refresh_from_db()
        assert table.next_game_at == game.finished_at + datetime.timedelta(seconds=3)
        assert sweep.deadlines_sweep(now=table.next_game_at - MS) == 0
        assert sweep.deadlines_sweep(now=table.next_game_at) == 1  # the next shoe
    # Each shoe is banked by the player on the left of the last shoe's banker.
    third = playing(table)
    assert third.number == 3
    bankers.append(third.state["banker"])
    for before, after in itertools.pairwise(bankers):
        assert after == order[(order.index(before) + 1) % 3], bankers
    assert [g.first_banker for g in Game.objects.filter(table=table).order_by("number")][1:] == (
        bankers[1:]
    )


# --- banker36 ----------------------------------------------------------------------------


def seeds(base: str):
    """Fixed server seeds: with a fixed table id, the same cards every run."""
    numbers = itertools.count()
    return lambda: hashlib.sha256(f"{base}:{next(numbers)}".encode()).hexdigest()


def cautious(game: Game) -> dict[str, Any]:
    """A ponter who bets the least and stands on the card dealt: the bank grows."""
    turn = engine.legal_actions(game.state)
    bet = next((a for a in turn["actions"] if a["action"] == "bet"), None)
    if bet is not None:
        return {"action": "bet", "amount": min(bet["amounts"])}
    return {"action": "stand"}


@pytest.mark.django_db
def test_banker36_stuk_plays_a_second_circle_on_the_same_bank_and_the_banker_collects_it(
    make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 0
    users = [make_user(name) for name in ("ann", "bob", "cat")]
    by_pk = {u.pk: u for u in users}
    with mock.patch.object(lifecycle, "fresh_seed", seeds("stuk")):
        table = services.table_create(
            id=910_001,
            variant="banker36",
            name="K",
            stake=10,
            entry_limit=100,
            created_by=users[0],
        )
        for user in users:
            seating.seat_take(table=table, player=user)
        moves.game_start(table=table, by=users[0])
        found = None
        for _ in range(500):
            game = playing(table)
            if game is None:
                last = latest(table)
                kinds = [e["type"] for ev in last.events.order_by("version") for e in ev.events]
                if "stuk" in kinds and "collect" in kinds:
                    found = last
                    break
                moves.game_start(table=table, by=users[0])
                continue
            turn = engine.legal_actions(game.state)
            player = by_pk[game.player_entry(turn["seat"])["user"]]
            moves.game_act(table=table, player=player, action=cautious(game), version=None)
            # The escrow holds exactly the bank and the bets in play, at every step.
            game.refresh_from_db()
            held = Account.objects.filter(code=f"escrow:game:{game.pk}").aggregate(s=Sum("balance"))
            assert (held["s"] or 0) == sum(engine.in_play(game.state).values())
    assert found is not None, "no bank with a stuk and a collection"

    events = [e for ev in found.events.order_by("version") for e in ev.events]
    kinds = [e["type"] for e in events]
    banker = found.state["banker"]
    circles = [e for e in events if e["type"] == "circle_start"]
    (stuk,) = [e for e in events if e["type"] == "stuk"]
    (collect,) = [e for e in events if e["type"] == "collect"]
    assert [c["circle"] for c in circles] == [1, 2]
    assert kinds.index("stuk") < kinds.index("circle_start", kinds.index("stuk"))
    # The same banker and the same bank (at least three stakes) go on into circle two.
    assert {c["banker"] for c in circles} == {banker} == {stuk["banker"], collect["banker"]}
    assert stuk["bank"] >= 3 * 10 and circles[1]["bank"] == stuk["bank"]
    # The banker takes the whole bank: his gain is it, less the stake he put up.
    deltas = found.result["deltas"]
    assert deltas[banker] == collect["amount"] - 10 and sum(deltas.values()) == 0
    assert latest(table).pk == found.pk  # no bank after it: the wallets are as it left them
    for entry in found.players:
        assert wallet_for(by_pk[entry["user"]]).balance == entry["chips"] + deltas[entry["id"]]
    assert replay(records.game_record(found))["result"] == found.result
    assert escrows_empty() and conservation_holds()


# --- solo ----------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_solo_reload_of_the_socket_or_the_page_changes_nothing(make_user):
    (olga,) = await make_users(make_user, "olga")
    table = await create_table(variant="solo", name="O")
    live = Live(table)
    await live.join(olga)
    ok(await live.command("olga", "sit"))
    await live.act("olga", {"action": "bet", "amount": 5})
    await live.act("olga", {"action": "hit"})
    before = live.players["olga"].last()
    game_before = await playing_game(table.pk)
    assert game_before is not None and before["game"]["deadline"] is None  # no clock

    # The page reloaded (even the lobby's «sit» link) and the socket reconnected.
    @database_sync_to_async
    def reload_page() -> None:
        browser = Client()
        browser.force_login(olga)
        for path in (
            reverse("table", args=[table.pk]),
            reverse("table", args=[table.pk]) + "?sit=1",
        ):
            assert browser.get(path).status_code == 200

    await reload_page()
    await live.players.pop("olga").close()
    again = await live.join(olga)
    snapshot = next(m for m in again.frames if m["type"] == "snapshot")
    assert snapshot["version"] == before["version"] == await table_version(table.pk)
    assert snapshot["game"]["view"] == before["game"]["view"]
    assert snapshot["game"]["id"] == before["game"]["id"] and snapshot["game"]["deadline"] is None
    game_after = await playing_game(table.pk)
    assert (game_after.pk, game_after.state, game_after.actions) == (
        game_before.pk,
        game_before.state,
        game_before.actions,
    )
    # And the game goes on from where it was (the hit may have ended the round).
    offered = {a["action"] for a in snapshot["game"]["view"]["actions"]}
    move = {"action": "stand" if "stand" in offered else "next_round"}
    await live.act("olga", move)
    after = (await game_number(table.pk, 1)).actions
    assert after[:3] == [*game_before.actions, {"seat": "olga", **move}]
    await live.close()


# --- blackjack -----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("machine_speed_play")
async def test_blackjack_trainee_with_six_ai_seats_at_chosen_levels_the_seventh_is_table_full(
    make_user,
):
    (tom,) = await make_users(make_user, "tom")
    table = await create_table(variant="blackjack", name="BJ", seat_count=7)
    live = Live(table)
    await live.join(tom)
    await live.watch("anonymous")
    ok(await live.command("tom", "sit"))
    levels = ["easy", "medium", "hard", "hard", "medium", "easy"]
    for number, level in enumerate(levels, start=2):
        assert ok(await live.command("tom", "add_ai", level=level))["seat"] == f"ai:{number}"
    full = await live.command("tom", "add_ai", level="easy")
    assert full["type"] == "error" and full["code"] == "table_full", full
    ok(await live.command("tom", "start"))
    game = await playing_game(table.pk)
    assert game.seat_ids == ["tom", *(f"ai:{n}" for n in range(2, 8))]
    assert [p["ai"] for p in game.players[1:]] == levels and not game.players[0]["ai"]
    seen = live.watchers["anonymous"].last()["table"]
    assert len(seen["seats"]) == 7

    # Two rounds or more, until every AI seat has acted; then the trainee ends the session.
    ai_seats = {f"ai:{n}" for n in range(2, 8)}

    async def until_every_ai_acted(current: Game, turn: dict[str, Any]) -> bool:
        acted = {a["seat"] for a in current.actions}
        if len(current.state["rounds"]) >= 2 and acted >= ai_seats and turn["seat"] == "tom":
            ok(await live.command("tom", "end_session"))
            return True
        return False

    game = await play_to_the_end(live, random.Random(4), hook=until_every_ai_acted)
    assert game.status == Game.Status.FINISHED and len(game.result["rounds"]) >= 2
    assert {a["seat"] for a in game.actions} >= ai_seats
    await record_replays(live, "tom", game)
    assert await database_sync_to_async(lambda: wallet_for(tom).balance)() == 10_000
    await live.close()
