"""Play a live table through its WebSocket in tests: one client per seated player plus
spectators, steps that wait until every client has the table's new version, and simple
deterministic play policies that decide from the acting client's own frame.

Only the players' clients send moves (`sit`, `ready`, `start`, `action`, ...); the test
drives the clock itself (`deadlines_sweep` with a `now` past the game's deadline) for AI
seats and timeouts.
"""

from __future__ import annotations

import datetime
import hashlib
import itertools
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from channels.db import database_sync_to_async

from accounts.services import wallet_for
from games import engine
from play.clock.sweep import deadlines_sweep
from play.models import Game
from tables import services
from tables.models import Table
from tests.play.ws_helpers import TableClient

# A card token: the whole string is one or more two-character cards ("AS", "ASTD").
CARD_TOKENS = re.compile(r"^(?:[2-9TJQKA][SHDC])+$")
# A card named inside free text (an error message).
CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][SHDC](?![0-9A-Za-z])")


_CONNECTIONS = itertools.count(1)


class Viewer(TableClient):
    """A TableClient that remembers the newest table version it was sent a frame of,
    and uses ids unique to this connection (a user's ids must not repeat at a table)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen = -1
        self.checked = 0  # frames handed to the checks so far
        self.counter = next(_CONNECTIONS) * 100_000
        self.name = ""

    async def recv(self, timeout: float = 5) -> dict[str, Any]:
        message = await super().recv(timeout)
        if message.get("type") in ("update", "snapshot"):
            self.seen = max(self.seen, message["version"])
        return message

    def last(self, kind: Iterable[str] = ("update", "snapshot")) -> dict[str, Any]:
        kinds = set(kind)
        return next(m for m in reversed(self.frames) if m.get("type") in kinds)

    def view(self) -> dict[str, Any] | None:
        game = self.last()["game"]
        return None if game is None else game["view"]


def card_tokens(value: Any) -> list[str]:
    """Every card a piece of JSON shows: each string made of cards, split into cards
    (keys too), and cards named inside any other string."""
    found: list[str] = []

    def text(s: str) -> None:
        if CARD_TOKENS.match(s):
            found.extend(s[i : i + 2] for i in range(0, len(s), 2))
        else:
            found.extend(CARD_IN_TEXT.findall(s))

    def walk(v: Any) -> None:
        if isinstance(v, str):
            text(v)
        elif isinstance(v, dict):
            for k, item in v.items():
                text(str(k))
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(value)
    return found


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def fairness_holds(game: Any) -> bool:
    """The game's commitment covers its server seed and context, and its seed is what
    the server seed and the client seeds derive (docs/fairness.md)."""
    from games import fairness

    context = {"table": game.table_id, "shoe": game.number, "variant": game.variant}
    return bool(
        fairness.commit(game.server_seed, context) == game.commitment
        and fairness.derive(game.server_seed, context, game.client_seeds) == game.seed
    )


# --- the database, from the async tests ------------------------------------------------


@database_sync_to_async
def make_users(make_user: Callable[..., Any], *names: str) -> list[Any]:
    return [make_user(name) for name in names]


@database_sync_to_async
def create_table(**fields: Any) -> Table:
    return services.table_create(**fields)


@database_sync_to_async
def table_version(table_id: int) -> int:
    return int(Table.objects.values_list("version", flat=True).get(pk=table_id))


@database_sync_to_async
def playing_game(table_id: int) -> Game | None:
    return Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING).first()


@database_sync_to_async
def games_of(table_id: int) -> list[Game]:
    return list(Game.objects.filter(table_id=table_id).order_by("number"))


@database_sync_to_async
def game_number(table_id: int, number: int) -> Game:
    return Game.objects.get(table_id=table_id, number=number)


@database_sync_to_async
def balances(users: Iterable[Any]) -> dict[str, int]:
    return {u.username: wallet_for(u).balance for u in users}


@database_sync_to_async
def sweep(moment: datetime.datetime | None, seconds: float = 0.001) -> int:
    assert moment is not None, "nothing is due"
    return deadlines_sweep(now=moment + datetime.timedelta(seconds=seconds))


# --- a live table ----------------------------------------------------------------------


class Live:
    """Clients at one table: `players` by user name, and `watchers` (spectators)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.players: dict[str, Viewer] = {}
        self.users: dict[str, Any] = {}
        self.watchers: dict[str, Viewer] = {}
        # Each client's user (None for an anonymous spectator).
        self.who: dict[str, Any] = {}
        # Called after every step with the frames each client got in it.
        self.after_step: list[Callable[[dict[str, list[str]]], Any]] = []

    @property
    def clients(self) -> dict[str, Viewer]:
        return {**self.players, **self.watchers}

    async def join(self, user: Any) -> Viewer:
        client = await Viewer.open(self.table.pk, user)
        client.name = user.username
        self.players[user.username] = client
        self.users[user.username] = user
        self.who[user.username] = user
        await self.settle()
        return client

    async def watch(self, name: str, user: Any = None) -> Viewer:
        client = await Viewer.open(self.table.pk, user)
        client.name = name
        self.watchers[name] = client
        self.who[name] = user
        await self.settle()
        return client

    async def settle(self) -> dict[str, list[str]]:
        """Wait until every client has a frame of the table's current version; hand the
        raw frames each got since the last step to the `after_step` checks."""
        target = await table_version(self.table.pk)
        for client in self.clients.values():
            while client.seen < target:
                await client.recv()
        new: dict[str, list[str]] = {}
        for name, client in self.clients.items():
            new[name] = client.raw[client.checked :]
            client.checked = len(client.raw)
        for check in self.after_step:
            await check(new)
        return new

    async def command(self, who: str, kind: str, **fields: Any) -> dict[str, Any]:
        answer = await self.players[who].command(kind, **fields)
        await self.settle()
        return answer

    async def act(self, who: str, move: dict[str, Any]) -> dict[str, Any]:
        client = self.players[who]
        answer = await self.command(who, "action", version=client.seen, **move)
        assert answer["type"] == "ack", answer
        return answer

    async def tick(self) -> int:
        """Play the decision that is due (an AI seat's, or a timeout)."""
        game = await playing_game(self.table.pk)
        assert game is not None
        played = await sweep(game.deadline)
        await self.settle()
        return played

    def client_of(self, user_id: int) -> Viewer:
        return next(c for n, c in self.players.items() if self.users[n].pk == user_id)

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()


# --- deterministic play ----------------------------------------------------------------


def offered(actions: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    return next((a for a in actions if a["action"] == name), None)


def policy_move(
    variant: str, view: dict[str, Any], seat: str, rng: random.Random
) -> dict[str, Any]:
    """A move for `seat` from its own view alone (the `actions` the frame offers)."""
    actions = view["actions"]
    assert actions, f"{seat} is on turn but its frame offers no actions: {view}"
    bet = offered(actions, "bet")
    if bet is not None:
        if "amounts" in bet:
            return {"action": "bet", "amount": rng.choice(bet["amounts"])}
        low, high = bet["min"], bet["max"]
        if variant == "solo":
            return {"action": "bet", "amount": high}  # all in: a solo game ends quickly
        return {"action": "bet", "amount": rng.choice(sorted({low, (low + high) // 2, high}))}
    cut = offered(actions, "cut")
    if cut is not None:
        return {"action": "cut", "position": rng.randint(cut["min"], cut["max"])}
    if offered(actions, "next_round"):
        return {"action": "next_round"}
    total = own_total(variant, view, seat)
    limit = rng.choice((15, 16, 17))
    return {"action": "hit" if total < limit else "stand"}


def own_total(variant: str, view: dict[str, Any], seat: str) -> int:
    if variant == "classic":
        own = next(h for h in view["round"]["hands"] if h["seat"] == seat)
        return int(own["total"])
    if variant == "salon":
        own = next(h for h in view["deal"]["hands"] if h["seat"] == seat)
        return int(own["total"])
    if variant == "solo":
        return int(view["hand"]["total"])
    if variant == "banker36":
        own = next(h for h in view["circle"]["hands"] if h["seat"] == seat)
        return int(own["total"])
    own_hands = view["hands"]
    return int(own_hands[view["hand"]]["total"])


async def play_to_the_end(
    live: Live,
    rng: random.Random,
    *,
    choose: Callable[[str, dict[str, Any], str, random.Random], dict[str, Any]] | None = None,
    hook: Callable[[Game, dict[str, Any]], Awaitable[bool]] | None = None,
    limit: int = 1000,
) -> Game:
    """Play the game in play to its end: each human seat's client moves from its own
    frame (`choose`); AI seats are played by the clock. `hook` sees every decision
    first and returns True when it played that decision itself."""
    game = await playing_game(live.table.pk)
    assert game is not None
    number = game.number
    choose = choose or policy_move
    for _ in range(limit):
        game = await playing_game(live.table.pk)
        if game is None or game.number != number:
            return await game_number(live.table.pk, number)
        turn = engine.legal_actions(game.state)
        assert turn is not None
        if hook is not None and await hook(game, turn):
            continue
        entry = game.player_entry(turn["seat"])
        assert entry is not None
        if entry["ai"]:
            assert await live.tick() >= 1
            continue
        client = live.client_of(entry["user"])
        view = client.view()
        assert view is not None and view["turn"] == turn["seat"]
        assert view["actions"] == turn["actions"], (view["actions"], turn["actions"])
        await live.act(client.name, choose(game.variant, view, turn["seat"], rng))
    raise AssertionError("the game did not end")


async def fetch_record(client: Viewer, number: Any) -> dict[str, Any]:
    """Ask for a game's hand record; the `record` message or the error."""
    await client.send({"type": "record", "game": number})
    return await client.recv_until(lambda m: m["type"] in ("record", "error"))


def round_cards(rounds: list[dict[str, Any]]) -> Counter[str]:
    return Counter(card for unit in rounds for hand in unit["hands"] for card in hand["cards"])
