"""Provably fair live play (docs/fairness.md): the commitment comes first, every seated
player's client seed goes into the deal, the seeds are revealed only when no card
depends on them, and every live record verifies — by the project's own `verify` command
and by the documented verifier written from the prose.

The live records are real ones of several rounds each: a `classic` match of 5 rounds, a
`salon` or `blackjack` shoe, a `solo` game of SOLO_ROUNDS settled rounds (with a
«Начать заново» redeal) ended by «Новая игра», and a `banker36` bank of four players with
more than one duel. A bank's first duel is for the whole bank (the stake), so a bank whose
first player wins it is over after one duel: at `banker36` the tests play bank after bank
(the bank passes to the left) until one has more than one duel, and check every bank."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import engine, fairness
from games.cards import shoe
from games.record import ReplayError, replay
from games.shuffle import shuffled
from lib.jsontext import json_text
from play.clock import sweep
from play.frames import viewing
from play.models import Game, GameEvent
from play.services import errors, moves, seating
from play.services.records import public_record
from tables import services
from tables.models import Table
from tests.play.live_helpers import playing, random_move, sweep_after
from tests.play.ws_helpers import TableClient

ROOT = Path(__file__).resolve().parents[2]
STOCK = {
    "classic": ("standard52", 1),
    "salon": ("standard52", 2),
    "solo": ("russian36", 1),
    "banker36": ("russian36", 1),
    "blackjack": ("standard52", 6),
}
TABLES = {
    "classic": ({"match_length": 5}, 2, ["easy"]),
    "salon": ({"min_bet": 10, "max_bet": 100, "entry_limit": 100}, 3, []),
    "solo": ({}, 1, []),
    "blackjack": ({}, 1, ["hard"]),
    "banker36": ({"stake": 10, "entry_limit": 100}, 4, []),
}
SOLO_ROUNDS = 3  # settled rounds of a live solo game before «Новая игра» ends its record
SOLO_MAX_BET = 20  # so that no solo round breaks the bank of 300 (it would end the game)
BANKS = 8  # banker36: banks played at most to get one of more than one duel (each ~2/3)


def documented_verifier() -> ModuleType:
    text = (ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```python\n(.*?)```", text, re.S)
    module = ModuleType("verifier")
    exec(compile(block, "docs/fairness.md", "exec"), module.__dict__)
    return module


def announce(
    variant: str, make_user, settings, *, wait: float = 30, humans: int | None = None
) -> tuple[Table, dict]:
    """A table of `variant` whose next game is announced and waits for client seeds (dealt
    at once with `wait` 0); its users by pk, the host first."""
    settings.CLIENT_SEED_SECONDS = wait
    settings.GAME_INTERLUDE_SECONDS = 3600
    fields, seated, ais = TABLES[variant]
    humans = seated if humans is None else humans
    host = make_user(f"host-{variant}")
    table = services.table_create(variant=variant, name=variant, created_by=host, **fields)
    users = {}
    for n in range(humans):
        user = host if n == 0 else make_user(f"p{n}-{variant}")
        users[user.pk] = user
        seating.seat_take(table=table, player=user)
    for level in ais:
        seating.ai_seat_add(table=table, by=host, level=level)
    if variant != "solo":
        moves.game_start(table=table, by=host)
    table.refresh_from_db()
    return table, users


# --- playing live records through the services ---------------------------------------------


def fair_move(game: Game, rng: random.Random) -> dict[str, Any]:
    """The move of the seat on turn: a random legal one, except that
    - at `solo` the bet is at most SOLO_MAX_BET, round 2 is redealt once with «Начать
      заново», and a settled round is followed by «Следующая раздача» until SOLO_ROUNDS
      rounds are settled, then by «Новая игра» (which ends the record and reveals its seed);
    - at `banker36` a player bets the smallest offer, so that the bank lasts."""
    state = game.state
    turn = engine.legal_actions(state)
    assert turn is not None
    offered = {entry["action"]: entry for entry in turn["actions"]}
    if game.variant == "solo":
        settled = len(state["rounds"])
        if state["phase"] == "over":
            return {"action": "next_round" if settled < SOLO_ROUNDS else "new_game"}
        if state["phase"] == "bet":
            if settled == 1 and not any(a["action"] == "restart" for a in game.actions):
                return {"action": "restart"}
            bet = offered["bet"]
            return {"action": "bet", "amount": rng.randint(1, min(bet["max"], SOLO_MAX_BET))}
    if game.variant == "banker36" and "bet" in offered:
        return {"action": "bet", "amount": min(offered["bet"]["amounts"])}
    return random_move(game, rng)


def play_step(table: Table, users: dict[int, Any], rng: random.Random, number: int) -> bool:
    """One move of game `number` (fair_move, or the sweep for an AI seat on turn); False
    once that game is over."""
    game = playing(table)
    if game is None or game.number != number:
        return False
    entry = game.player_entry(engine.legal_actions(game.state)["seat"])
    if entry["ai"]:
        sweep_after(game.deadline)
        return True
    move = fair_move(game, rng)
    moves.game_act(table=table, player=users[entry["user"]], action=move, version=None)
    return True


def play_record(table: Table, users: dict[int, Any], rng: random.Random) -> Game:
    """Play the game in play to the end of its record."""
    game = playing(table)
    assert game is not None
    for _ in range(3000):
        if not play_step(table, users, rng, game.number):
            return Game.objects.get(table=table, number=game.number)
    raise AssertionError("the game did not end")


def play_records(
    table: Table, users: dict[int, Any], rng: random.Random, *, client_seeds: bool
) -> list[Game]:
    """The records played from the game in play on: that one, and at `banker36` bank after
    bank (each started by the host, with every player's client seed if `client_seeds`)
    until one has more than one duel."""
    host = next(iter(users.values()))
    records = [play_record(table, users, rng)]
    while table.variant == "banker36" and len(records[-1].result["rounds"]) < 2:
        assert len(records) < BANKS, "no bank of more than one duel"
        moves.game_start(table=table, by=host)
        if client_seeds:
            for user in users.values():
                moves.client_seed_give(table=table, player=user, seed=f"b{len(records)}-{user.pk}")
        records.append(play_record(table, users, rng))
    return records


def first_cards(game: Game, count: int) -> list[str]:
    """The first cards the engine drew for `game`, in order (from its first events)."""
    cards: list[str] = []
    for event in GameEvent.objects.get(game=game, version=0).events:
        cards.extend(event.get("cards") or ([event["card"]] if "card" in event else []))
    return cards[:count]


@pytest.mark.django_db
def test_the_commitment_is_published_before_any_client_seed_and_binds_the_server_seed(
    make_user, settings
):
    table, users = announce("banker36", make_user, settings)
    pending = table.pending
    assert pending is not None and playing(table) is None  # nothing dealt yet
    commitment = pending["commitment"]
    text = json_text(viewing.table_snapshot(table=table, user=None))  # as the socket sends it
    assert json.loads(text)["table"]["pending"]["commitment"] == commitment
    assert pending["server_seed"] not in text
    for user in users.values():
        moves.client_seed_give(table=table, player=user, seed=f"mine-{user.pk}")
    game = playing(table)
    assert game is not None and game.commitment == commitment
    context = {"table": table.pk, "shoe": game.number, "variant": "banker36"}
    assert fairness.commit(game.server_seed, context) == commitment
    assert [c["seat"] for c in game.client_seeds] == game.seat_ids  # every seat, seat order


@pytest.mark.django_db
def test_the_server_cannot_steer_the_first_cards_once_a_client_seed_follows_its_commitment(
    make_user, settings
):
    """Grinding: the server seed is fixed by the published commitment; the deal depends
    on the client seed chosen afterwards, and on every single contribution."""
    table, users = announce("classic", make_user, settings)
    server_seed = table.pending["server_seed"]
    context = {"table": table.pk, "shoe": table.pending["number"], "variant": "classic"}
    (human,) = [u for u in users.values()] if len(users) == 1 else list(users.values())[:1]
    rest = [u for u in users.values() if u.pk != human.pk]
    for user in rest:
        moves.client_seed_give(table=table, player=user, seed="fixed-by-the-others")
    moves.client_seed_give(table=table, player=human, seed="chosen-after-the-commitment")
    game = playing(table)
    given = game.client_seeds
    deck = shoe("standard52")
    dealt = shuffled(deck, game.seed, 0)
    assert game.seed == fairness.derive(server_seed, context, given)
    # The order the engine dealt is the derived seed's, not the server seed's.
    assert dealt != shuffled(deck, server_seed, 0)
    # The first pass of the deal (the players in turn order, then the dealer's up-card).
    assert first_cards(game, 4) == dealt[:4]
    # Changing any one contribution changes the deal.
    for index in range(len(given)):
        changed = copy.deepcopy(given)
        changed[index]["seed"] += "x"
        other = fairness.derive(server_seed, context, changed)
        assert shuffled(deck, other, 0)[:6] != dealt[:6]
    # Leaving a contribution out changes it too.
    assert fairness.derive(server_seed, context, given[1:]) != game.seed
    # A thousand server seeds tried against this client seed give a thousand deals: the
    # server would have had to know the client seed before committing to steer it.
    firsts = {
        tuple(shuffled(deck, fairness.derive(f"{i:064x}", context, given), 0)[:2])
        for i in range(1000)
    }
    assert len(firsts) > 500


@pytest.mark.django_db
def test_a_client_seed_is_refused_when_malformed_given_twice_or_not_a_players(make_user, settings):
    table, users = announce("banker36", make_user, settings, humans=2)
    first, second = users.values()
    with pytest.raises(errors.PlayError) as bad:
        moves.client_seed_give(table=table, player=first, seed="not ok!")
    assert bad.value.code == "bad_client_seed"
    moves.client_seed_give(table=table, player=first, seed="ok")
    with pytest.raises(errors.PlayError) as twice:
        moves.client_seed_give(table=table, player=first, seed="again")
    assert twice.value.code == "seed_given"
    with pytest.raises(errors.PlayError) as stranger:
        moves.client_seed_give(table=table, player=make_user("eve"), seed="hi")
    assert stranger.value.code == "not_seated"
    assert playing(table) is None
    moves.client_seed_give(table=table, player=second, seed="ok2")
    assert playing(table) is not None
    with pytest.raises(errors.PlayError) as late:
        moves.client_seed_give(table=table, player=second, seed="late")
    assert late.value.code == "no_shuffle"


@pytest.mark.django_db
def test_a_player_who_sends_no_client_seed_contributes_nothing_once_the_wait_is_over(
    make_user, settings
):
    table, users = announce("banker36", make_user, settings, wait=5)
    first = next(iter(users.values()))
    moves.client_seed_give(table=table, player=first, seed="only-me")
    assert playing(table) is None
    deal_at = Table.objects.get(pk=table.pk).deal_at
    sweep.deadlines_sweep(now=deal_at)
    game = playing(table)
    assert game is not None
    assert [c["seed"] for c in game.client_seeds] == ["only-me"]


def _verify_command(record: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games", "verify", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("with_client_seeds", [True, False])
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_live_records_of_every_variant_verify(variant, with_client_seeds, make_user, settings):
    table, users = announce(variant, make_user, settings, wait=30 if with_client_seeds else 0)
    if with_client_seeds:
        for user in users.values():
            moves.client_seed_give(table=table, player=user, seed=f"seed{user.pk}-ok")
    game = playing(table)
    assert game is not None and bool(game.client_seeds) == with_client_seeds
    during = public_record(game)
    assert "seed" not in during and during["fairness"]["server_seed"] is None
    # A record in play cannot be verified yet, and `verify` says so (exit 3).
    early = _verify_command(during)
    assert early.returncode == 3, early.stdout
    assert early.stdout.endswith(
        "not verifiable yet: the server seed is revealed when the record is over\n"
    )
    records = play_records(table, users, random.Random(5), client_seeds=with_client_seeds)
    for finished in records:
        record = public_record(finished)
        record.pop("table")
        assert finished.status == "finished"
        # The project's own command: every check in plain words, exit 0.
        out = _verify_command(record)
        assert out.returncode == 0, out.stdout
        assert "FAIL" not in out.stdout and "verified: every check passed" in out.stdout
        assert replay(record)["result"] == finished.result
    # The last record is a real one: several rounds (deals, duels) dealt from its seed.
    assert len(record["result"]["rounds"]) >= 2, record["result"]
    if variant == "solo":
        assert len(record["result"]["rounds"]) == SOLO_ROUNDS
        assert [a["action"] for a in finished.actions].count("restart") == 1
    assert len(finished.client_seeds) == (len(users) if with_client_seeds else 0)
    # The documented verifier, written from the prose: the same seed, and its first
    # shuffle is the one the cards were dealt from.
    kind, decks = STOCK[variant]
    order = documented_verifier().verify(record, kind, decks, 0)
    assert order == shuffled(shoe(kind, decks), record["seed"], 0)
    dealt = first_cards(finished, 2)
    if variant == "salon":  # dealt after the cut
        cut = finished.actions[0]
        position = cut.get("position")
        assert cut["action"] in ("cut", "timeout")
        if position is not None:
            order = order[position:] + order[:position]
            assert dealt == order[: len(dealt)]
    else:
        assert dealt and dealt == order[: len(dealt)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "field", ["commitment", "server_seed", "nonce", "algorithm", "client_seed", "context", "seed"]
)
def test_one_changed_byte_in_a_live_records_fairness_is_a_fairness_mismatch(
    field, make_user, settings
):
    table, users = announce("banker36", make_user, settings)
    for user in users.values():
        moves.client_seed_give(table=table, player=user, seed=f"s{user.pk}")
    finished = play_records(table, users, random.Random(2), client_seeds=True)[-1]
    record = public_record(finished)
    assert len(record["result"]["rounds"]) >= 2 and len(record["fairness"]["client_seeds"]) == 4
    assert replay(record)["result"] == finished.result
    target = record["fairness"]
    if field == "seed":
        record["seed"] = _flip(record["seed"])
    elif field == "client_seed":
        target["client_seeds"][0]["seed"] = _flip(target["client_seeds"][0]["seed"])
    elif field == "context":
        target["context"]["shoe"] += 1
    elif field == "nonce":
        target["nonce"] += 1
    else:
        target[field] = _flip(target[field])
    with pytest.raises(ReplayError) as caught:
        replay(record)
    assert caught.value.error["code"] == "fairness_mismatch"
    assert _verify_command(record).returncode == 1


def _flip(text: str) -> str:
    return ("b" if text[0] == "a" else "a") + text[1:]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("variant", ["classic", "salon", "banker36", "blackjack", "solo"])
async def test_no_frame_holds_the_server_seed_or_the_seed_before_the_reveal(
    variant, make_user, settings, monkeypatch
):
    """Raw frames of a whole record of each variant, for players and a spectator: the
    client seeds travel over the socket, the seeds stay on the server until the end."""
    from play.edge import sockets

    monkeypatch.setattr(sockets, "RATE_PER_SECOND", 10_000.0)
    settings.CLIENT_SEED_SECONDS = 30
    settings.GAME_INTERLUDE_SECONDS = 3600
    settings.AI_DECISION_SECONDS = 60
    fields, humans, ais = TABLES[variant]
    users = [await database_sync_to_async(make_user)(f"u{n}-{variant}") for n in range(humans)]
    table = await database_sync_to_async(services.table_create)(
        variant=variant, name=variant, created_by=users[0], **fields
    )
    clients = [await TableClient.open(table.pk, user) for user in users]
    watcher = await TableClient.open(table.pk)
    for client in clients:
        assert (await client.command("sit"))["type"] == "ack"
    for level in ais:
        assert (await clients[0].command("add_ai", level=level))["type"] == "ack"
    if variant != "solo":
        assert (await clients[0].command("start"))["type"] == "ack"
    for n, client in enumerate(clients):
        assert (await client.command("client_seed", seed=f"tab-{n}"))["type"] == "ack"
    users_by_pk = {u.pk: u for u in users}

    async def listen(client: TableClient) -> None:
        while True:  # read as frames come, so no channel fills up while the game runs
            await client.recv(timeout=60)

    async def until(check) -> None:
        for _ in range(500):
            if await database_sync_to_async(check)():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the table did not get there")

    listeners = [asyncio.ensure_future(listen(c)) for c in [*clients, watcher]]
    rng = random.Random(11)
    records: list[Game] = []
    while True:
        game = await database_sync_to_async(playing)(table)
        assert game is not None
        # Move by move, letting the frames out between moves, as people would.
        while await database_sync_to_async(play_step)(table, users_by_pk, rng, game.number):
            await asyncio.sleep(0.01)
        records.append(await database_sync_to_async(Game.objects.get)(pk=game.pk))
        if variant != "banker36" or len(records[-1].result["rounds"]) >= 2:
            break
        # banker36: the next bank, started and seeded over the sockets (the listeners
        # take the answers), until one has more than one duel.
        assert len(records) < BANKS, "no bank of more than one duel"
        await clients[0].send({"type": "start", "id": f"start-{len(records)}"})
        await until(lambda: Table.objects.get(pk=table.pk).pending is not None)
        for n, client in enumerate(clients):
            seed = f"tab-{n}-{len(records)}"
            await client.send({"type": "client_seed", "id": f"seed-{len(records)}", "seed": seed})
        dealt = Game.objects.filter(table=table, number=game.number + 1)
        await until(dealt.exists)
    await asyncio.sleep(1)
    for listener in listeners:
        if listener.done():
            raise AssertionError(f"a listener stopped: {listener.exception()!r}")
        listener.cancel()
    assert len(records[-1].result["rounds"]) >= 2, records[-1].result
    if variant == "solo":  # one seed for the whole game: still secret after round 1
        assert len(records[-1].result["rounds"]) == SOLO_ROUNDS
    for finished in records:
        for client in [*clients, watcher]:
            seen_over = False
            for raw in client.raw:
                message = json.loads(raw)
                shown = message.get("game") if message["type"] in ("update", "snapshot") else None
                info = shown or {}
                over = info.get("id") == finished.pk and info.get("status") != "playing"
                seen_over = seen_over or over
                if not seen_over:
                    assert finished.server_seed not in raw and finished.seed not in raw
            versions = [json.loads(r).get("version") for r in client.raw]
            final = (await database_sync_to_async(Table.objects.get)(pk=table.pk)).version
            assert seen_over, (finished.number, max(v for v in versions if v), final)
    assert [c["seed"] for c in records[0].client_seeds] == [f"tab-{n}" for n in range(humans)]
    for finished in records[1:]:
        number = finished.number - 1
        assert [c["seed"] for c in finished.client_seeds] == [
            f"tab-{n}-{number}" for n in range(humans)
        ]
    # the engine state itself never travelled either
    assert engine.view(records[-1].state, None)
    for client in [*clients, watcher]:
        await client.comm.disconnect()


@pytest.mark.django_db
def test_the_last_client_seed_is_kept_when_the_deal_cannot_be_made_yet(make_user, settings):
    table, users = announce("banker36", make_user, settings, humans=2)
    first, second = users.values()
    seating.seat_leave(table=table, player=first)  # only one announced player is left
    answer = moves.client_seed_give(table=table, player=second, seed="still-counts")
    table.refresh_from_db()
    assert answer == {"game": 1} and playing(table) is None
    assert table.pending["client_seeds"] == {second.username: "still-counts"}
    sweep.deadlines_sweep(now=table.deal_at)  # too few players: the announcement drops
    table.refresh_from_db()
    assert table.pending is None and playing(table) is None
