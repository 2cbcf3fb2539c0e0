"""Each variant's happy path, driven entirely through the table WebSocket: players sit,
get ready or are started, and play to the end from what their own frames offer. Checked:
the final frames, the seed revealed only once the game is over (and matching its
commitment), the `record` message (a player gets it, a spectator does not), the record
replaying to exactly the stored result, and for chip variants the ledger."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games.cards import shoe as full_stock
from games.record import replay
from games.shuffle import shuffled
from play.models import Game
from tables.models import Table
from tests.play.live_helpers import conservation_holds, escrows_empty
from tests.play.ws_play import (
    Live,
    balances,
    create_table,
    fairness_holds,
    fetch_record,
    games_of,
    make_users,
    play_to_the_end,
    playing_game,
    sweep,
)

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("machine_speed_play"),
]


async def ok(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["type"] == "ack", answer
    return answer


async def check_game_over(live: Live, game: Game) -> None:
    """Every client saw `game` in play without its seed, then over with it; the seed
    hashes to the commitment every frame showed; the result is the stored one."""
    assert game.status == Game.Status.FINISHED and game.result is not None
    assert fairness_holds(game)
    for name, client in live.clients.items():
        about = [
            m
            for m in client.frames
            if m.get("type") in ("update", "snapshot")
            and (m.get("game") or {}).get("id") == game.pk
        ]
        statuses = [m["game"]["status"] for m in about]
        assert "playing" in statuses and statuses[-1] == "finished", (name, statuses)
        # Never back to playing once over.
        first_over = statuses.index("finished")
        assert set(statuses[first_over:]) == {"finished"}, name
        for m in about:
            assert m["game"]["commitment"] == game.commitment
            if m["game"]["status"] == "playing":
                assert m["game"]["seed"] is None and m["game"]["result"] is None, name
            else:
                assert m["game"]["seed"] == game.seed, name
                assert m["game"]["result"] == game.result, name
        final = about[-1]["game"]
        assert final["view"]["finished"] is game.state["finished"]
        assert final["view"]["actions"] == [] and final["view"]["turn"] is None
        # The seed is in no raw frame about the game in play.
        for raw in client.raw:
            if game.seed in raw:
                message = json.loads(raw)
                shown = message.get("game") if message.get("type") != "record" else None
                if shown is not None:
                    assert shown["id"] == game.pk and shown["status"] != "playing", name
                else:
                    assert message["type"] == "record", name
                    assert message["record"]["table"]["status"] != "playing", name


async def check_record(live: Live, game: Game, player: str) -> dict[str, Any]:
    """A player of the game gets its record, which replays to the stored result; every
    spectator is refused."""
    answer = await fetch_record(live.players[player], game.number)
    assert answer["type"] == "record" and answer["game"] == game.number, answer
    record = answer["record"]
    assert record["seed"] == game.seed
    assert record["fairness"]["server_seed"] == game.server_seed
    assert record["fairness"]["commitment"] == game.commitment and fairness_holds(game)
    assert record["result"] == game.result
    # A salon record leaves the cutter's move out: it states the shoe after the cut.
    cut = 1 if game.variant == "salon" else 0
    assert record["actions"] == game.actions[cut:]
    assert replay(record)["result"] == game.result
    for name, client in live.watchers.items():
        refused = await fetch_record(client, game.number)
        assert refused["type"] == "error" and refused["code"] == "forbidden", (name, refused)
    return record


async def check_ledger(live: Live, game: Game) -> None:
    """Each wallet moved by exactly the record's delta; escrow is empty; no chip was
    made or lost."""
    after = await balances(live.users.values())
    for entry in game.players:
        name = next(n for n, u in live.users.items() if u.pk == entry["user"])
        assert after[name] == entry["chips"] + game.result["deltas"][entry["id"]], name
    assert sum(game.result["deltas"].values()) == 0
    assert await database_sync_to_async(escrows_empty)()
    assert await database_sync_to_async(conservation_holds)()


async def seat_everyone(live: Live, names: list[str], *, ready: bool) -> None:
    for name in names:
        assert (await ok(await live.command(name, "sit")))["seat"] == name
    if ready:
        for name in names:
            await ok(await live.command(name, "ready"))


# --- classic ---------------------------------------------------------------------------


async def test_classic_host_starts_a_five_round_match_with_a_human_and_an_ai_seat(make_user):
    host, pete, wendy = await make_users(make_user, "hana", "pete", "wendy")
    table = await create_table(variant="classic", name="C", created_by=host, match_length=5)
    live = Live(table)
    await live.join(host)
    await live.join(pete)
    await live.watch("anonymous")
    await live.watch("wendy", wendy)  # signed in, never seated
    await seat_everyone(live, ["hana", "pete"], ready=False)
    assert (await ok(await live.command("hana", "add_ai", level="easy")))["seat"] == "ai:3"
    assert await playing_game(table.pk) is None  # nobody said ready: the host starts
    assert (await ok(await live.command("hana", "start")))["game"] == 1

    first = live.players["pete"].last()["game"]
    assert first["status"] == "playing" and first["seed"] is None
    assert first["seats"] == ["hana", "pete", "ai:3"]
    assert first["view"]["rounds_total"] == 5
    # Round 1, unless a dealer's natural settled it at once (then the next is dealt).
    assert first["view"]["round"]["number"] == first["view"]["rounds_played"] + 1

    # Halfway, a player's record has no seed yet.
    game = await play_to_the_end(live, random.Random(11), hook=_record_midway(live, "pete"))
    await check_game_over(live, game)
    view = live.players["hana"].last()["game"]["view"]
    assert view["rounds_played"] == 5 and view["round"] is None
    assert view["scores"] == game.result["deltas"] == game.result["final"]["scores"]
    best = max(view["scores"].values())
    assert view["winners"] == [s for s in ("hana", "pete", "ai:3") if view["scores"][s] == best]
    assert len(game.result["rounds"]) == 5
    await check_record(live, game, "pete")
    # A match ends for good: classic starts again only when the host says so.
    assert await playing_game(table.pk) is None
    assert live.players["hana"].last()["table"]["next_game_at"] is None
    await live.close()


def _record_midway(live: Live, player: str):
    asked = []

    async def hook(game: Game, turn: dict[str, Any]) -> bool:
        if not asked and len(game.state["rounds"]) >= 2:
            asked.append(1)
            answer = await fetch_record(live.players[player], game.number)
            assert answer["type"] == "record"
            record = answer["record"]
            assert "seed" not in record and record["fairness"]["server_seed"] is None
            assert record["result"] is None and record["table"]["status"] == "playing"
            assert game.seed not in json.dumps(answer)
        return False

    return hook


# --- salon -----------------------------------------------------------------------------


async def test_salon_three_players_cut_over_the_socket_and_play_a_whole_shoe(make_user):
    users = await make_users(make_user, "anna", "boris", "vera")
    names = [u.username for u in users]
    table = await create_table(
        variant="salon", name="S", min_bet=10, max_bet=100, entry_limit=100, created_by=None
    )
    live = Live(table)
    for user in users:
        await live.join(user)
    await live.watch("anonymous")
    await seat_everyone(live, names, ready=True)  # the last «ready» starts the shoe

    game = await playing_game(table.pk)
    assert game is not None and game.state["phase"] == "cut"
    banker = game.state["banker"]
    cutter = names[names.index(banker) - 1]  # the seat on the banker's right
    for name, client in live.clients.items():
        view = client.view()
        assert view["phase"] == "cut" and view["cutter"] == cutter and view["banker"] == banker
        assert view["actions"] == (
            [{"action": "cut", "min": 1, "max": 103}] if name == cutter else []
        )
    position = random.Random(5).randint(1, 103)
    await live.act(cutter, {"action": "cut", "position": position})
    update = live.players[banker].last()
    assert {"type": "cut", "seat": cutter, "position": position} in update["events"]
    assert update["game"]["view"]["phase"] == "bet"
    assert update["game"]["view"]["deal"]["number"] == 1

    game = await play_to_the_end(live, random.Random(21))
    await check_game_over(live, game)
    reason = next(e for e in live.players["anna"].last()["events"] if e["type"] == "finished")
    assert reason["reason"] in ("shoe_end", "banker_short")
    assert game.result["rounds"] and game.result["final"] == {"banker": game.state["banker"]}
    record = await check_record(live, game, cutter)
    # The record states the shoe after the cut (docs/hand-record.md §6): the cutter's move
    # is in `deck`, as the `position` cards moved from the top to the bottom.
    assert "cut" not in record["options"] and record["first_banker"] == banker
    assert game.actions[0] == {"seat": cutter, "action": "cut", "position": position}
    assert (
        record["deck"][-position:] == shuffled(full_stock("standard52", 2), game.seed, 0)[:position]
    )
    await check_ledger(live, game)
    # The next shoe follows by itself (after the interlude, on the clock).
    assert live.players["anna"].last()["table"]["next_game_at"] is not None
    await live.close()


# --- solo ------------------------------------------------------------------------------


async def test_solo_bet_hit_stand_restart_next_round_and_new_game(make_user):
    (olga,) = await make_users(make_user, "olga")
    table = await create_table(variant="solo", name="O")
    live = Live(table)
    await live.join(olga)
    await live.watch("anonymous")
    await ok(await live.command("olga", "sit"))  # solo deals at once
    first = await playing_game(table.pk)
    assert first is not None and first.number == 1
    view = live.players["olga"].view()
    assert view["phase"] == "bet" and view["coins"] == 1000 and view["bank"] == 300
    card = view["hand"]["cards"]

    # «Начать заново» deals the very same card again.
    await live.act("olga", {"action": "restart"})
    assert live.players["olga"].view()["hand"]["cards"] == card
    # «Новая игра» ends this record (its seed is revealed) and starts a fresh one.
    await live.act("olga", {"action": "new_game"})
    one = (await games_of(table.pk))[0]
    assert one.status == Game.Status.FINISHED and one.result["status"] == "awaiting_action"
    second = await playing_game(table.pk)
    assert second is not None and second.number == 2 and second.commitment != one.commitment
    assert live.players["olga"].last()["game"]["number"] == 2
    record = await check_record(live, one, "olga")
    assert [a["action"] for a in record["actions"]] == ["restart"]

    # Game 2: a small first bet (the game cannot end on it), then play on all in.
    await live.act("olga", {"action": "bet", "amount": 1})
    assert live.players["olga"].view()["phase"] == "draw"
    hits = 0
    while live.players["olga"].view()["phase"] == "draw":
        move = "hit" if live.players["olga"].view()["hand"]["total"] < 16 else "stand"
        hits += move == "hit"
        await live.act("olga", {"action": move})
    assert live.players["olga"].view()["phase"] == "over"
    await live.act("olga", {"action": "next_round"})
    assert live.players["olga"].view()["phase"] == "bet"
    game = await play_to_the_end(live, random.Random(3))
    assert game.number == 2 and game.state["finished"]
    await check_game_over(live, game)
    view = live.players["olga"].last()["game"]["view"]
    assert view["game_over"] in ("bank_broken", "player_broke", "bank_closed")
    assert view["coins"] + view["bank"] == 1300
    assert game.result["final"]["game_over"] == view["game_over"]
    record = await check_record(live, game, "olga")
    names = [a["action"] for a in record["actions"]]
    assert {"bet", "next_round"} <= set(names) and ("hit" in names or "stand" in names)

    # Between games «Новая игра» is its own message.
    assert await playing_game(table.pk) is None
    answer = await ok(await live.command("olga", "new_game"))
    third = await playing_game(table.pk)
    assert third is not None and third.number == 3 and answer["version"] >= 1
    assert live.players["olga"].last()["game"]["number"] == 3
    await live.close()


# --- banker36 --------------------------------------------------------------------------


async def test_banker36_two_players_play_a_whole_bank_with_the_offered_bets(make_user):
    users = await make_users(make_user, "gleb", "inna")
    table = await create_table(variant="banker36", name="B", stake=10, entry_limit=100)
    live = Live(table)
    for user in users:
        await live.join(user)
    await live.watch("anonymous")
    await seat_everyone(live, ["gleb", "inna"], ready=True)
    game = await playing_game(table.pk)
    assert game is not None
    banker = game.state["banker"]
    player = "inna" if banker == "gleb" else "gleb"
    view = live.players[player].view()
    assert view["banker"] == banker and view["bank"] == 10
    assert view["actions"] == [{"action": "bet", "amounts": [10]}]
    assert live.players[banker].view()["actions"] == []

    game = await play_to_the_end(live, random.Random(8))
    await check_game_over(live, game)
    events = [e["type"] for e in live.players[banker].last()["events"]]
    assert "finished" in events and ("collect" in events or "bank_broken" in events)
    assert game.result["rounds"] and all(len(u["hands"]) == 2 for u in game.result["rounds"])
    await check_record(live, game, player)
    await check_ledger(live, game)
    await live.close()


# --- blackjack -------------------------------------------------------------------------


async def test_blackjack_training_table_one_human_two_ai_seats_plays_a_shoe(make_user):
    (tom,) = await make_users(make_user, "tom")
    table = await create_table(variant="blackjack", name="BJ")
    live = Live(table)
    await live.join(tom)
    await live.watch("anonymous")
    await ok(await live.command("tom", "sit"))
    # The trainee manages the AI seats and starts the session.
    await ok(await live.command("tom", "add_ai", level="easy"))
    await ok(await live.command("tom", "add_ai", level="medium"))
    await ok(await live.command("tom", "start"))
    game = await playing_game(table.pk)
    assert game is not None and game.seat_ids == ["tom", "ai:2", "ai:3"]

    seen: dict[str, int] = {"double": 0, "split": 0, "refused_split": 0}

    def choose(variant: str, view: dict[str, Any], seat: str, rng: random.Random) -> dict[str, Any]:
        names = [a["action"] for a in view["actions"]]
        hand = view["hands"][view["hand"]]
        values = [card_value(c) for c in hand["cards"]]
        # The offered actions follow the rules: double on two cards, split on a pair.
        assert names[:2] == ["hit", "stand"]
        assert ("double" in names) == (len(values) == 2)
        pair = len(values) == 2 and values[0] == values[1] and len(view["hands"]) < 4
        assert ("split" in names) == pair, (names, hand)
        if "split" in names and not seen["split"]:
            seen["split"] += 1
            return {"action": "split"}
        if "double" in names and not seen["double"]:
            seen["double"] += 1
            return {"action": "double"}
        return {"action": "hit" if hand["total"] < 17 else "stand"}

    async def refuse_unoffered_split(game: Game, turn: dict[str, Any]) -> bool:
        names = [a["action"] for a in turn["actions"]]
        if turn["seat"] == "tom" and "split" not in names and not seen["refused_split"]:
            before = game.state["version"]
            answer = await live.players["tom"].command("action", action="split")
            assert answer["type"] == "error" and answer["code"] == "illegal_action", answer
            assert (await playing_game(table.pk)).state["version"] == before
            seen["refused_split"] += 1
        return False

    game = await play_to_the_end(live, random.Random(4), choose=choose, hook=refuse_unoffered_split)
    assert game.state["finished"] and seen["double"] == 1 and seen["refused_split"] == 1
    # The double: one card more, the hand's wager 2 — in the frame that followed it.
    frame = next(
        m
        for m in live.players["tom"].frames
        if m.get("type") == "update"
        and any(e["type"] == "double" and e["seat"] == "tom" for e in m["events"])
    )
    card = next(e["card"] for e in frame["events"] if e["type"] == "double")
    view = frame["game"]["view"]
    doubled = [h for h in view["hands"] if h["wager"] == 2 and h["cards"][-1] == card]
    settled = [
        h
        for h in (view["last_round"] or {"hands": []})["hands"]
        if h["seat"] == "tom" and h["cards"][-1] == card and len(h["cards"]) == 3
    ]
    assert doubled or settled
    if seen["split"]:
        assert any(a == {"seat": "tom", "action": "split"} for a in game.actions)
    await check_game_over(live, game)
    assert len(game.result["rounds"]) == game.state["round"] > 5
    await check_record(live, game, "tom")

    # The session goes on with a new shoe: the units carry over; then the trainee ends it.
    if await playing_game(table.pk) is None:
        await sweep(game.finished_at)
        await live.settle()
    shoe2 = await playing_game(table.pk)
    assert shoe2 is not None and shoe2.number == 2
    assert shoe2.carry == {k: v for k, v in game.result["deltas"].items()}
    await ok(await live.command("tom", "end_session"))
    games = await games_of(table.pk)
    assert games[-1].status == Game.Status.FINISHED and await playing_game(table.pk) is None
    table = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert table.next_game_at is None
    await live.close()


def card_value(card: str) -> int:
    return 10 if card[0] in "TJQK" else 11 if card[0] == "A" else int(card[0])
