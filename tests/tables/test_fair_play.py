"""Provably fair live play (docs/fairness.md): the commitment comes first, every seated
player's client seed goes into the deal, the seeds are revealed only when no card
depends on them, and every live record verifies — by the project's own `verify` command
and by the documented verifier written from the prose."""

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
from tables import services
from tables.models import Game, GameEvent, Table
from tests.tables.live_helpers import play_game_randomly, play_step, playing
from tests.tables.ws_helpers import TableClient

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
    "banker36": ({"stake": 10, "entry_limit": 100}, 2, []),
}


def documented_verifier() -> ModuleType:
    text = (ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```python\n(.*?)```", text, re.S)
    module = ModuleType("verifier")
    exec(compile(block, "docs/fairness.md", "exec"), module.__dict__)
    return module


def announce(variant: str, make_user, settings, *, wait: float = 30) -> tuple[Table, dict]:
    """A table of `variant` whose next game is announced and waits for client seeds."""
    settings.CLIENT_SEED_SECONDS = wait
    settings.GAME_INTERLUDE_SECONDS = 3600
    fields, humans, ais = TABLES[variant]
    host = make_user(f"host-{variant}")
    table = services.table_create(variant=variant, name=variant, created_by=host, **fields)
    users = {}
    for n in range(humans):
        user = host if n == 0 else make_user(f"p{n}-{variant}")
        users[user.pk] = user
        services.seat_take(table=table, player=user)
    for level in ais:
        services.ai_seat_add(table=table, by=host, level=level)
    if variant != "solo":
        services.game_start(table=table, by=host)
    table.refresh_from_db()
    return table, users


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
    frame = services.table_snapshot(table=table, user=None)
    assert frame["table"]["pending"]["commitment"] == commitment
    assert pending["server_seed"] not in json.dumps(frame)
    for user in users.values():
        services.client_seed_give(table=table, player=user, seed=f"mine-{user.pk}")
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
        services.client_seed_give(table=table, player=user, seed="fixed-by-the-others")
    services.client_seed_give(table=table, player=human, seed="chosen-after-the-commitment")
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
    table, users = announce("banker36", make_user, settings)
    first, second = users.values()
    with pytest.raises(services.PlayError) as bad:
        services.client_seed_give(table=table, player=first, seed="not ok!")
    assert bad.value.code == "bad_client_seed"
    services.client_seed_give(table=table, player=first, seed="ok")
    with pytest.raises(services.PlayError) as twice:
        services.client_seed_give(table=table, player=first, seed="again")
    assert twice.value.code == "seed_given"
    with pytest.raises(services.PlayError) as stranger:
        services.client_seed_give(table=table, player=make_user("eve"), seed="hi")
    assert stranger.value.code == "not_seated"
    assert playing(table) is None
    services.client_seed_give(table=table, player=second, seed="ok2")
    assert playing(table) is not None
    with pytest.raises(services.PlayError) as late:
        services.client_seed_give(table=table, player=second, seed="late")
    assert late.value.code == "no_shuffle"


@pytest.mark.django_db
def test_a_player_who_sends_no_client_seed_contributes_nothing_once_the_wait_is_over(
    make_user, settings
):
    table, users = announce("banker36", make_user, settings, wait=5)
    first = next(iter(users.values()))
    services.client_seed_give(table=table, player=first, seed="only-me")
    assert playing(table) is None
    deal_at = Table.objects.get(pk=table.pk).deal_at
    services.deadlines_sweep(now=deal_at)
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
            services.client_seed_give(table=table, player=user, seed=f"seed{user.pk}-ok")
    game = playing(table)
    assert game is not None and bool(game.client_seeds) == with_client_seeds
    during = services.public_record(game)
    assert "seed" not in during and during["fairness"]["server_seed"] is None
    finished = play_game_randomly(table, users, random.Random(5))
    record = services.public_record(finished)
    record.pop("table")
    # The project's own command: every check in plain words, exit 0.
    out = _verify_command(record)
    assert out.returncode == 0, out.stdout
    assert "FAIL" not in out.stdout and "verified" in out.stdout
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
        services.client_seed_give(table=table, player=user, seed=f"s{user.pk}")
    finished = play_game_randomly(table, users, random.Random(2))
    record = services.public_record(finished)
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
    from tables import consumers

    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 10_000.0)
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
    game = await database_sync_to_async(playing)(table)
    assert game is not None
    users_by_pk = {u.pk: u for u in users}

    async def listen(client: TableClient) -> None:
        while True:  # read as frames come, so no channel fills up while the game runs
            await client.recv(timeout=60)

    listeners = [asyncio.ensure_future(listen(c)) for c in [*clients, watcher]]
    rng = random.Random(11)
    # Move by move, letting the frames out between moves, as people would.
    while await database_sync_to_async(play_step)(table, users_by_pk, rng, game.number):
        await asyncio.sleep(0.01)
    finished = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    await asyncio.sleep(1)
    for listener in listeners:
        if listener.done():
            raise AssertionError(f"a listener stopped: {listener.exception()!r}")
        listener.cancel()
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
        assert seen_over, (max(v for v in versions if v), final, len(client.raw))
    assert [c["seed"] for c in finished.client_seeds] == [f"tab-{n}" for n in range(humans)]
    # the engine state itself never travelled either
    assert engine.view(finished.state, None)
    for client in [*clients, watcher]:
        await client.comm.disconnect()


@pytest.mark.django_db
def test_the_last_client_seed_is_kept_when_the_deal_cannot_be_made_yet(make_user, settings):
    table, users = announce("banker36", make_user, settings)
    first, second = users.values()
    services.seat_leave(table=table, player=first)  # only one announced player is left
    answer = services.client_seed_give(table=table, player=second, seed="still-counts")
    table.refresh_from_db()
    assert answer == {"game": 1} and playing(table) is None
    assert table.pending["client_seeds"] == {second.username: "still-counts"}
    services.deadlines_sweep(now=table.deal_at)  # too few players: the announcement drops
    table.refresh_from_db()
    assert table.pending is None and playing(table) is None
