"""docs/protocol.md §16's example sessions, played through the real ASGI application in
process, and rendered as the transcripts §16 shows.

Each session (`SESSIONS`) is a script of what its clients send. `Run` opens the sockets
(Channels' WebsocketCommunicator with a session cookie, as a browser's), sends each
message, waits until every socket has received what the change sent it, and writes each
frame into the transcript, trimmed as §16's introduction says. The text is the same on
every run, because nothing in it is left to chance:

- the clock is pinned (time-machine, not ticking) and moved only by `Run`: `STEP` before
  each message a client sends, and to the moment the next thing is due before a sweep;
- the server seed of each announced game is the next of `SERVER_SEEDS`, through the one
  function that draws it (`play.services.lifecycle.fresh_seed`, which is
  `games.shuffle.fresh_seed`: `secrets.token_hex(32)` in production);
- client seeds are written in the scripts;
- the database is a fresh test database with its ids reset, the users created in a fixed
  order; the channel layer is the in-process one.

`tests/contract/test_protocol_examples.py` runs every session and compares the blocks with
docs/protocol.md's; `make examples` (PROTOCOL_EXAMPLES=write) writes them there.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.contract.frames import assert_table_frame

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

START = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)
# The time a client takes to send its next message.
STEP = datetime.timedelta(milliseconds=250)
# A line of a transcript longer than this is broken, one key or item a line.
WIDTH = 110
# ... down to this depth: deeper values stay on one line however long.
DEPTH = 3
ELIDED = "…"
# How many more pauses `Run.quiet` waits for what a step is known to send.
PATIENCE = 20
HEX = re.compile(r"[0-9a-f]{64}")


def server_seeds(section: str) -> Iterator[str]:
    """The server seeds a session draws, in order: fixed, and as random-looking as any."""
    number = 0
    while True:
        number += 1
        yield hashlib.sha256(f"protocol example {section} {number}".encode()).hexdigest()


# -- rendering ---------------------------------------------------------------------------


class Flat(dict):  # type: ignore[type-arg]
    """An object `layout` keeps on one line, however long."""


def one_line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def layout(value: Any, indent: int = 0, depth: int = 0) -> str:
    """JSON, one line where it fits in WIDTH (or is deeper than DEPTH), else one key or
    item a line."""
    flat = one_line(value)
    if (
        not isinstance(value, dict | list)
        or isinstance(value, Flat)
        or not value
        or depth >= DEPTH
        or indent + len(flat) <= WIDTH
    ):
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [
            f"{pad}{one_line(key)}: {layout(item, indent + 2, depth + 1)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + layout(item, indent + 2, depth + 1) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _cut_digests(value: Any) -> Any:
    if isinstance(value, str) and HEX.fullmatch(value):
        return value[:12] + ELIDED
    if isinstance(value, dict):
        return {key: _cut_digests(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut_digests(item) for item in value]
    return value


def trimmed(frame: dict[str, Any], style: str, *, view: bool = False) -> dict[str, Any]:
    """The frame as §16 shows it. `style`: "whole" (nothing left out), or "elided": the
    `table` as "…" and digests cut after 12 characters; "pending" and "seats" keep that
    one key of the table. `view`: keep the game's view (the spectator's copies)."""
    if style == "whole" or frame.get("type") not in ("snapshot", "update"):
        return frame
    shown = dict(frame)
    table = shown.get("table")
    if isinstance(table, dict):
        shown["table"] = {style: table[style]} if style in ("pending", "seats") else ELIDED
    game = shown.get("game")
    if isinstance(game, dict) and not view:
        shown["game"] = {**game, "view": ELIDED}
    shown = _cut_digests(shown)
    # A game in play with its view left out: one line, as its keys are the same each time.
    if isinstance(game, dict) and not view and game.get("result") is None:
        shown["game"] = Flat(shown["game"])
    return shown


# -- running -----------------------------------------------------------------------------


@dataclass
class Client:
    name: str
    comm: WebsocketCommunicator
    shown: bool
    view: bool
    frames: list[dict[str, Any]] = field(default_factory=list)
    table_id: int = 0


# How a frame a client received is shown: "whole", "elided", "pending", "seats", or None
# (left out). Given the client's name and the frame.
Style = Callable[[str, dict[str, Any]], str | None]


class Run:
    """One session: its clients, its clock, and the transcript blocks it writes."""

    def __init__(self, traveller: Any) -> None:
        self.traveller = traveller
        self.clients: dict[str, Client] = {}
        self.blocks: list[list[str]] = [[]]
        self.counter = 0
        self.styles: list[Style] = []
        self.records: list[dict[str, Any]] = []
        self.last_step: tuple[str | None, dict[str, Any] | None, dict[str, Any]] = (None, None, {})

    # the clock

    def now(self) -> datetime.datetime:
        from django.utils import timezone

        return timezone.now()

    def move_to(self, moment: datetime.datetime) -> None:
        if moment > self.now():
            self.traveller.move_to(moment)

    # sockets

    async def open(
        self, name: str, table_id: int, user: Any = None, *, shown: bool = True, query: str = ""
    ) -> None:
        from tests.play.ws_helpers import session_cookie

        headers = [
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
            (b"accept-language", b"en"),
        ]
        if user is not None:
            cookie = await database_sync_to_async(session_cookie)(user)
            headers.append((b"cookie", cookie))
        path = f"/ws/tables/{table_id}/" + (f"?{query}" if query else "")
        comm = WebsocketCommunicator(application, path, headers=headers)
        connected, _ = await comm.connect()
        assert connected, name
        self.clients[name] = Client(name, comm, shown, view=user is None)
        self.clients[name].table_id = table_id

        def arrived(got: dict[str, list[dict[str, Any]]]) -> bool:
            # The snapshot, and a seated player's `presence` at every socket of the table.
            snapshot = next((f for f in got[name] if f["type"] == "snapshot"), None)
            if snapshot is None or snapshot["you"]["seat"] is None:
                return snapshot is not None
            return self._told(got, table_id, snapshot["you"]["seat"], connected=True)

        await self.quiet(until=arrived)

    async def close(self, name: str) -> None:
        client = self.clients.pop(name)
        seat = next(
            (f["you"]["seat"] for f in reversed(client.frames) if f["type"] == "snapshot"), None
        )
        await client.comm.disconnect()

        def told(got: dict[str, list[dict[str, Any]]]) -> bool:
            return seat is None or self._told(got, client.table_id, seat, connected=False)

        await self.quiet(until=told)

    def _told(
        self, got: dict[str, list[dict[str, Any]]], table_id: int, seat: str, *, connected: bool
    ) -> bool:
        """Whether every other socket of the table has heard the seat come or go: its
        `presence`, or (going while a decision of its runs) an update with `away`."""

        def heard(frame: dict[str, Any]) -> bool:
            if frame["type"] == "presence":
                return bool(frame["seat"] == seat and frame["connected"] == connected)
            return not connected and any(
                e == {"type": "away", "seat": seat} for e in frame.get("events", [])
            )

        return all(
            any(heard(f) for f in got.get(c.name, []))
            for c in self.clients.values()
            if c.table_id == table_id
        )

    async def close_all(self) -> None:
        for name in list(self.clients):
            await self.clients.pop(name).comm.disconnect()

    # writing

    def note(self, text: str) -> None:
        """A `// …` line: messages left out."""
        self.blocks[-1].append(f"// … {text} …")

    def next_block(self) -> None:
        self.blocks.append([])

    def style_of(self, name: str, frame: dict[str, Any]) -> str | None:
        for style in reversed(self.styles):
            found = style(name, frame)
            if found is not None:
                return found
        return "elided"

    # A style of "" leaves the frame out; None lets the styles before decide.

    def _write(self, name: str, arrow: str, message: dict[str, Any], style: str) -> None:
        client = self.clients[name]
        shown = trimmed(message, style, view=client.view)
        self.blocks[-1].append(f"{name} {arrow} " + layout(shown))

    # moving

    async def send(
        self, name: str, message: dict[str, Any], *, shown: bool = True, id: bool = True
    ) -> dict[str, Any]:
        """Send a message (a command gets the next id, the client's initial and a number);
        wait for its answer and what the change sends everyone. Returns the answer."""
        self.move_to(self.now() + STEP)
        if id and message["type"] != "record":
            self.counter += 1
            message = {"type": message["type"], "id": f"{name[0]}{self.counter}", **message}
        client = self.clients[name]
        if shown and client.shown:
            self._write(name, "→", message, "whole")
        await client.comm.send_to(text_data=json.dumps(message))

        def answer(got: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
            for frame in got[name]:
                if frame.get("id") == message.get("id") and frame["type"] in ("ack", "error"):
                    return frame
                if message["type"] == "record" and frame["type"] in ("record", "error"):
                    return frame
            return None

        def complete(got: dict[str, list[dict[str, Any]]]) -> bool:
            # The answer, and the change at the version it names at every socket (an
            # error's too: a command plays an overdue deadline first): a commit hook (an
            # eager task) may hold them back longer than a pause of `quiet`.
            found = answer(got)
            if found is None:
                return False
            if "version" not in found:
                return True
            return all(
                any(f.get("version", -1) >= found["version"] for f in c.frames if "table" in f)
                for c in self.clients.values()
            )

        got = await self.quiet(hidden=not shown, until=complete)
        self.last_step = (name, message, got)
        found = answer(got)
        assert found is not None, f"no answer to {message}: {got}"
        return found

    async def sweep(self, *, shown: bool = True) -> int:
        """Move the clock to the next moment something is due and run the sweep, as the
        server's beat would."""
        from play import wall
        from play.clock.sweep import deadlines_sweep, next_due_at

        due = await database_sync_to_async(next_due_at)()
        assert due is not None, "nothing is due"
        self.move_to(due)
        applied = await database_sync_to_async(deadlines_sweep)(now=wall.now())
        versions = await database_sync_to_async(_versions)()

        def caught_up(got: dict[str, list[dict[str, Any]]]) -> bool:
            return all(
                any(f.get("version", -1) >= versions[c.table_id] for f in c.frames if "table" in f)
                for c in self.clients.values()
            )

        self.last_step = (None, None, await self.quiet(hidden=not shown, until=caught_up))
        return applied

    def show_last_step(self) -> None:
        """Write the last step, sent and run hidden, after all."""
        name, message, got = self.last_step
        if name is not None and message is not None:
            self._write(name, "→", message, "whole")
        self._write_got(got)

    async def quiet(
        self,
        *,
        hidden: bool = False,
        until: Callable[[dict[str, list[dict[str, Any]]]], bool] | None = None,
    ) -> dict[str, list[dict[str, Any]]]:
        """What each client received until all were quiet (and, given `until`, until it
        holds of what they received: at most PATIENCE pauses), written to the transcript
        (clients in the order they connected) unless `hidden`."""
        got: dict[str, list[dict[str, Any]]] = {name: [] for name in self.clients}

        async def drain(client: Client) -> None:
            while not await client.comm.receive_nothing(timeout=0.15):
                text = await client.comm.receive_from(timeout=1)
                frame = assert_table_frame(text)
                client.frames.append(frame)
                got[client.name].append(frame)

        await asyncio.gather(*(drain(client) for client in self.clients.values()))
        for _ in range(PATIENCE):
            if until is None or until(got):
                break
            await asyncio.gather(*(drain(client) for client in self.clients.values()))
        for frames in got.values():
            for frame in frames:
                if frame["type"] == "record" and "record" in frame:
                    self.records.append(frame["record"])
        if not hidden:
            self._write_got(got)
        return got

    def _write_got(self, got: dict[str, list[dict[str, Any]]]) -> None:
        for name, frames in got.items():
            for frame in frames:
                style = self.style_of(name, frame)
                if name in self.clients and self.clients[name].shown and style:
                    self._write(name, "←", frame, style)

    def latest(self, name: str, kind: str = "update") -> dict[str, Any]:
        return next(f for f in reversed(self.clients[name].frames) if f["type"] == kind)


Script = Callable[[Run, Any], Awaitable[None]]


def _versions() -> dict[int, int]:
    """Each table's version."""
    from tables.models import Table

    return dict(Table.objects.values_list("pk", "version"))


# -- the sessions ------------------------------------------------------------------------


def _create(function: Callable[..., Any], **fields: Any) -> Awaitable[Any]:
    return database_sync_to_async(function)(**fields)


async def _users(make_user: Any, *names: str) -> list[Any]:
    return [await database_sync_to_async(make_user)(name) for name in names]


def _turn(frame: dict[str, Any]) -> str | None:
    game = frame.get("game") or {}
    if game.get("status") != "playing":
        return None
    view = game.get("view") or {}
    return view.get("turn")


async def classic(run: Run, make_user: Any) -> None:
    from tables import services

    (ann,) = await _users(make_user, "ann")
    table = await _create(
        services.table_create, variant="classic", name="Classic demo", created_by=ann
    )
    await run.open("ann", table.pk, ann)
    await run.open("spectator", table.pk)
    # The announcement and the deal whole; the spectator's updates left out.
    run.styles.append(
        lambda name, frame: (
            ("whole" if frame.get("version") in (3, 4) else None)
            if name == "ann" and frame["type"] == "update"
            else None
        )
    )
    run.styles.append(
        lambda name, frame: "" if name == "spectator" and frame["type"] == "update" else None
    )
    await run.send("ann", {"type": "sit"})
    await run.send("ann", {"type": "add_ai", "level": "medium"})
    await run.send("ann", {"type": "start", "rounds": 5})
    await run.send("ann", {"type": "client_seed", "seed": "BFrV0NjHGQoDhC1H"})
    await run.send("ann", {"type": "pause"})
    await run.send("ann", {"type": "action", "action": "hit"})
    await run.send("ann", {"type": "resume"})
    version = run.latest("ann")["version"]
    await run.send("ann", {"type": "action", "action": "stand", "version": version})
    # The AI's turn, then the next round dealt, shown; the rest of the match left out.
    while run.latest("ann")["game"]["view"]["round"]["number"] == 1:
        await run.sweep()
    first_hidden = run.latest("ann")["version"] + 1
    while (turn := _turn(run.latest("ann"))) is not None:
        if turn == "ann":
            frame = run.latest("ann")
            total = _hand(frame["game"]["view"], "ann")["total"]
            move = {"type": "action", "action": "hit" if total < 15 else "stand"}
            await run.send("ann", {**move, "version": frame["version"]}, shown=False)
        else:
            await run.sweep(shown=False)
    last = run.latest("ann")["version"]
    run.note(
        f"rounds 2 to 5: ann hits and stands, the AI moves (versions {first_hidden}–{last - 1})"
    )
    run.show_last_step()
    await run.send("ann", {"type": "record", "game": 1})
    await run.send("spectator", {"type": "record", "game": 1})


def _hand(view: dict[str, Any], seat: str) -> dict[str, Any]:
    hands: list[dict[str, Any]] = view["round"]["hands"]
    return next(hand for hand in hands if hand["seat"] == seat)


async def on_turn(table_id: int) -> tuple[str, list[dict[str, Any]]] | None:
    """The seat on turn at the table and the moves it is offered, or None."""
    from games import engine
    from play.models import Game

    def read() -> tuple[str, list[dict[str, Any]]] | None:
        game = Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING).first()
        turn = engine.legal_actions(game.state) if game else None
        return (turn["seat"], turn["actions"]) if turn else None

    return await database_sync_to_async(read)()


def a_move(actions: list[dict[str, Any]], hits: int) -> dict[str, Any]:
    """A player's plain play: the smallest bet, one card more, then stand."""
    offered = {entry["action"]: entry for entry in actions}
    if "bet" in offered:
        bet = offered["bet"]
        return {"action": "bet", "amount": bet["amounts"][0] if "amounts" in bet else bet["min"]}
    if "hit" in offered and hits < 1:
        return {"action": "hit"}
    if "stand" in offered:
        return {"action": "stand"}
    first = actions[0]
    move = {"action": first["action"]}
    if "min" in first:
        move["amount"] = first["min"]
    return move


async def banker36(run: Run, make_user: Any) -> None:
    from tables import services

    ann, bob, cat = await _users(make_user, "ann", "bob", "cat")
    table = await _create(
        services.table_create,
        variant="banker36",
        name="Banker demo",
        stake=10,
        entry_limit=100,
        seat_count=3,
        created_by=ann,
    )
    # Shown from bob's side: ann's answers, none of cat's frames; the table's pending key
    # while a bank is announced.
    run.styles.append(
        lambda name, frame: (
            ("pending" if (frame.get("table") or {}).get("pending") else None)
            if frame["type"] == "update"
            else None
        )
    )
    run.styles.append(
        lambda name, frame: "" if name == "ann" and frame["type"] == "update" else None
    )
    await run.open("ann", table.pk, ann)
    await run.open("bob", table.pk, bob)
    await run.open("cat", table.pk, cat, shown=False)
    run.blocks[-1] = [line for line in run.blocks[-1] if not line.startswith("ann")]
    await run.send("ann", {"type": "sit"}, shown=False)
    await run.send("bob", {"type": "sit"})
    await run.send("cat", {"type": "sit"}, shown=False)
    await run.send("ann", {"type": "ready"}, shown=False)
    await run.send("bob", {"type": "ready"})
    await run.send("cat", {"type": "ready"}, shown=False)
    await run.send("ann", {"type": "client_seed", "seed": "KcPZhCl3XePXKSm_"}, shown=False)
    run.show_last_step()
    await run.send("bob", {"type": "client_seed", "seed": "lqwyirYoz6r71pNN"})
    run.note("cat's client sends nothing; at deal_at the server deals without its seed:")
    await run.sweep()
    # The first to play decides on the version before the deal, then bets what is not offered.
    start = next(e for e in run.latest("bob")["events"] if e["type"] == "circle_start")
    first = start["order"][0]
    stale = run.latest(first)["version"] - 1
    await run.send(first, {"type": "action", "action": "bet", "amount": 10, "version": stale})
    version = run.latest(first, "snapshot")["version"]
    await run.send(first, {"type": "action", "action": "bet", "amount": 7, "version": version})
    hits: dict[str, int] = {}
    shown_moves = 3  # bob's duel
    while (turn := await on_turn(table.pk)) is not None:
        seat, actions = turn
        move = a_move(actions, hits.get(seat, 0))
        hits[seat] = hits.get(seat, 0) + 1 if move["action"] == "hit" else 0
        version = run.latest(seat)["version"]
        shown = shown_moves > 0
        shown_moves -= 1
        if not shown and shown_moves == -1:
            run.note("the bank plays out")
        await run.send(seat, {"type": "action", **move, "version": version}, shown=shown)
    if not shown:
        run.show_last_step()
    await run.sweep()  # the interlude: the next bank is announced
    await run.send("ann", {"type": "client_seed", "seed": "egUNlnpIdctV1-KT"}, shown=False)
    await run.send("bob", {"type": "client_seed", "seed": "TonKUFJKO0wqKaI8"})
    await run.send("cat", {"type": "client_seed", "seed": "Qm3vX0aLrT8sZp2D"}, shown=False)
    run.show_last_step()


def _shown_whole_or_pending(first_deal: Callable[[dict[str, Any]], bool]) -> Style:
    """A style: the frame `first_deal` picks whole, `table.pending` while a game is
    announced, the rest elided."""

    def style(name: str, frame: dict[str, Any]) -> str | None:
        if frame["type"] != "update":
            return None
        if first_deal(frame):
            return "whole"
        return "pending" if (frame.get("table") or {}).get("pending") else None

    return style


def _starts_game(number: int) -> Callable[[dict[str, Any]], bool]:
    return lambda frame: any(
        e["type"] == "game_start" and e["game"] == number for e in frame.get("events", [])
    )


async def solo(run: Run, make_user: Any) -> None:
    from tables import services

    (ann,) = await _users(make_user, "ann")
    table = await _create(services.table_create, variant="solo", name="Solo demo", created_by=ann)
    run.styles.append(_shown_whole_or_pending(_starts_game(1)))
    await run.open("ann", table.pk, ann)
    await run.send("ann", {"type": "sit"})
    await run.send("ann", {"type": "client_seed", "seed": "H52TwJkb7GweEVU5"})
    await run.send("ann", {"type": "action", "action": "restart"})
    await run.send("ann", {"type": "action", "action": "bet", "amount": 50})
    await run.send("ann", {"type": "action", "action": "hit"})
    await run.send("ann", {"type": "action", "action": "stand"})
    await run.send("ann", {"type": "action", "action": "next_round"})
    await run.send("ann", {"type": "action", "action": "bet", "amount": 10})
    await run.send("ann", {"type": "action", "action": "new_game"})
    await run.send("ann", {"type": "action", "action": "stand"})
    await run.send("ann", {"type": "new_game"})
    await run.send("ann", {"type": "client_seed", "seed": "xvVfPeH5sv4SdF3h"})
    await run.send("ann", {"type": "record", "game": 1})


async def blackjack(run: Run, make_user: Any) -> None:
    from tables import services

    (ann,) = await _users(make_user, "ann")
    # A training table: no host, ann manages it herself.
    table = await _create(services.table_create, variant="blackjack", name="BJ demo", seat_count=3)
    run.styles.append(_shown_whole_or_pending(_starts_game(1)))
    # The spectator's copy of the deal alone.
    run.styles.append(
        lambda name, frame: (
            ("whole" if _starts_game(1)(frame) else "") if name == "spectator" else None
        )
    )
    await run.open("ann", table.pk, ann)
    await run.open("spectator", table.pk)
    await run.send("ann", {"type": "sit"})
    await run.send("ann", {"type": "add_ai", "level": "hard"})
    await run.send("ann", {"type": "start"})
    await run.send("ann", {"type": "client_seed", "seed": "7JEDdyfbhVPQXdSV"})
    for action in ("split", "hit", "stand", "double"):
        version = run.latest("ann")["version"]
        await run.send("ann", {"type": "action", "action": action, "version": version})
    # The AI plays on its deadlines until the round settles and ann is dealt the next.
    while _turn(run.latest("ann")) != "ann":
        await run.sweep()
    await run.send("ann", {"type": "end_session"})
    await run.send("ann", {"type": "record", "game": 1})


async def presence(run: Run, make_user: Any) -> None:
    from tables import services

    ann, bob, cat = await _users(make_user, "ann", "bob", "cat")
    table = await _create(
        services.table_create,
        variant="banker36",
        name="Presence demo",
        stake=10,
        entry_limit=100,
        seat_count=3,
        created_by=ann,
    )
    await run.open("ann", table.pk, ann)
    await run.open("bob", table.pk, bob, shown=False)
    await run.send("ann", {"type": "sit"}, shown=False)
    await run.send("bob", {"type": "sit"}, shown=False)
    await run.send("ann", {"type": "ready"}, shown=False)
    await run.send("bob", {"type": "ready"}, shown=False)
    await run.send("ann", {"type": "client_seed", "seed": "BCSMBbuMLgKX2OL5"}, shown=False)
    await run.send("bob", {"type": "client_seed", "seed": "5n8SQzr_piQXduMO"}, shown=False)
    assert (await on_turn(table.pk) or ("",))[0] == "bob", "bob's bet is not the first due"
    run.blocks[-1] = []
    run.note("ann and bob sit, say «ready» and send their client seeds; the bank is dealt")
    await run.open("cat", table.pk, cat, shown=False)
    await run.send("cat", {"type": "sit"}, shown=False)
    run.show_last_step()
    # From here the table's seats are shown.
    run.styles.append(
        lambda name, frame: "seats" if frame["type"] in ("update", "snapshot") else None
    )
    run.move_to(run.now() + datetime.timedelta(seconds=1))
    await run.close("bob")
    run.move_to(run.now() + datetime.timedelta(seconds=1))
    await run.open("bob-again", table.pk, bob)
    # Another table, where no decision of bob's runs: seated, no game.
    await run.close_all()
    run.next_block()
    other = await _create(
        services.table_create, variant="classic", name="Quiet demo", created_by=ann
    )
    await run.open("ann", other.pk, ann)
    await run.open("bob", other.pk, bob, shown=False)
    await run.send("ann", {"type": "sit"}, shown=False)
    await run.send("bob", {"type": "sit"}, shown=False)
    run.blocks[-1] = []
    await run.close("bob")
    await run.open("bob-again", other.pk, bob, shown=False)


def _events_of(frame: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in frame.get("events", []) if e["type"] == kind]


def _salon_move(actions: list[dict[str, Any]], total: int | None) -> dict[str, Any]:
    """A plain salon play: bet 20, draw below 17, then stand (cut where the shoe says)."""
    offered = {entry["action"]: entry for entry in actions}
    if "cut" in offered:
        return {"action": "cut", "position": offered["cut"]["min"]}
    if "bet" in offered:
        return {"action": "bet", "amount": 20}
    if "hit" in offered and (total is None or total < 17):
        return {"action": "hit"}
    if "stand" in offered:
        return {"action": "stand"}
    return {"action": actions[0]["action"]}


async def _own_total(table_id: int, seat: str) -> int | None:
    from games import engine
    from play.models import Game

    def read() -> int | None:
        game = Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING).first()
        if game is None:
            return None
        deal = engine.view(game.state, seat).get("deal") or {}
        hand = next((h for h in deal.get("hands", []) if h["seat"] == seat), None)
        return None if hand is None else hand.get("total")

    return await database_sync_to_async(read)()


async def salon(run: Run, make_user: Any) -> None:
    from tables import services

    ann, bob = await _users(make_user, "ann", "bob")
    table = await _create(
        services.table_create, variant="salon", name="Salon demo", seat_count=2, created_by=ann
    )
    # ann's side: the announcements' pending key, the cut's update whole; of bob's frames
    # his answers and his copy of the first deal.
    run.styles.append(
        lambda name, frame: (
            ("pending" if (frame.get("table") or {}).get("pending") else None)
            if frame["type"] == "update"
            else None
        )
    )
    run.styles.append(
        lambda name, frame: "whole" if name == "ann" and _events_of(frame, "cut") else None
    )
    run.styles.append(
        lambda name, frame: (
            ("elided" if _events_of(frame, "cut") else "")
            if name == "bob" and frame["type"] in ("update", "snapshot")
            else None
        )
    )
    await run.open("ann", table.pk, ann)
    await run.open("bob", table.pk, bob)
    await run.send("ann", {"type": "sit"})
    await run.send("bob", {"type": "sit"})
    await run.send("ann", {"type": "ready"})
    await run.send("bob", {"type": "ready"})
    await run.send("ann", {"type": "client_seed", "seed": "etXa3y_wdTXpuOH2"})
    await run.send("bob", {"type": "client_seed", "seed": "Xl0x48oNGv7u-0eL"})
    version = run.latest("ann")["version"]
    await run.send("ann", {"type": "action", "action": "cut", "position": 20, "version": version})
    version = run.latest("ann")["version"]
    await run.send("ann", {"type": "action", "action": "bet", "amount": 20, "version": version})
    version = run.latest("ann")["version"]
    await run.send("ann", {"type": "action", "action": "hit", "version": version})
    # bob, the banker, draws to 17 or more and stands: his first draw shown, the rest noted.
    shown = 1
    while (turn := await on_turn(table.pk)) is not None and turn[0] == "bob":
        move = _salon_move(turn[1], await _own_total(table.pk, "bob"))
        if shown == 0:
            run.note("bob draws again and stands" if move["action"] == "hit" else "bob stands")
        version = run.latest("bob")["version"]
        await run.send("bob", {"type": "action", **move, "version": version}, shown=shown > 0)
        shown -= 1
    if shown < 0:
        run.show_last_step()
    # The rest of the shoe, to its end.
    run.next_block()
    while (turn := await on_turn(table.pk)) is not None:
        seat, actions = turn
        move = _salon_move(actions, await _own_total(table.pk, seat))
        version = run.latest(seat)["version"]
        await run.send(seat, {"type": "action", **move, "version": version}, shown=False)
    last = _events_of(run.latest("ann"), "settle")[-1]["deal"]
    run.note(f"deals 2 to {last}")
    run.show_last_step()
    await run.sweep()  # the interlude: the next shoe is announced
    await run.send("ann", {"type": "client_seed", "seed": "egUNlnpIdctV1-KT"})
    await run.send("bob", {"type": "client_seed", "seed": "bve8C6tuAKR6j1DS"})
    # bob stands up at once: from here his side.
    run.styles.append(lambda name, frame: "" if name == "ann" else None)
    run.styles.append(lambda name, frame: "elided" if name == "bob" else None)
    await run.send("bob", {"type": "stand"})
    late = run.latest("bob")["version"]
    # His cut and his first bet, by the clock; his next bet is due when his late move
    # arrives, and the server applies it first.
    await run.sweep()
    await run.send("bob", {"type": "action", "action": "cut", "position": 84, "version": late})


async def idempotency(run: Run, make_user: Any) -> None:
    """§5.4: a command resent under its id, and another command under the same id."""
    from tables import services

    (bob,) = await _users(make_user, "bob")
    table = await _create(services.table_create, variant="classic", name="Ids", created_by=bob)
    # Only bob's answers: the exchange is about them.
    run.styles.append(lambda name, frame: "whole" if frame["type"] == "ack" else "")
    await run.open("bob", table.pk, bob)
    for kind in ("sit", "sit", "stand"):
        await run.send("bob", {"type": kind, "id": "s1"}, id=False)


SESSIONS: dict[str, Script] = {
    "5.4": idempotency,
    "16.1": classic,
    "16.2": salon,
    "16.3": solo,
    "16.4": banker36,
    "16.5": blackjack,
    "16.6": presence,
}

# The label of a session's server seeds (`server_seeds`) where it is not its section:
# chosen so that the cards show what the prose around the transcript names.
SEED_LABELS: dict[str, str] = {
    # ann is dealt a pair to split, draws one card to 20 on the first hand, doubles the second.
    # The lot gives bob the bank, and ann's first draw ends her hand.
    "16.2": "16.2/4",
    "16.5": "16.5/706",
    # The lot gives ann the bank, so bob's bet is the first decision due.
    "16.6": "16.6/4",
}


# -- the document ------------------------------------------------------------------------

FENCE = "```"


def section_span(text: str, section: str) -> tuple[int, int]:
    """Where §`section` (e.g. "16.1") begins and ends in the document's text."""
    start = text.index(f"\n### {section} ")
    following = re.search(r"\n##+ ", text[start + 1 :])
    end = start + 1 + following.start() if following else len(text)
    return start, end


def blocks_of(text: str, section: str) -> list[str]:
    """The transcript blocks of a section: the text inside each ``` fence."""
    start, end = section_span(text, section)
    return re.findall(r"\n```\n(.*?)\n```", text[start:end], flags=re.S)


def with_blocks(text: str, section: str, blocks: list[str]) -> str:
    """The document with the section's blocks replaced, in order, by `blocks`."""
    start, end = section_span(text, section)
    old = blocks_of(text, section)
    assert len(old) == len(blocks), f"§{section} has {len(old)} blocks, the run {len(blocks)}"
    parts = iter(blocks)
    body = re.sub(
        r"\n```\n(.*?)\n```",
        lambda _m: f"\n{FENCE}\n{next(parts)}\n{FENCE}",
        text[start:end],
        flags=re.S,
    )
    return text[:start] + body + text[end:]


_ENTRY = re.compile(r"^(?P<who>[\w-]+) (?P<arrow>[←→]) (?P<rest>.*)$")


def comparable(block: str) -> list[tuple[str, Any]]:
    """A transcript block as its entries — who, the arrow, and the message parsed — so
    that two blocks compare as the messages they hold: a JSON object's keys have no order,
    and PostgreSQL's jsonb gives a stored object (a game's `result`) back in its own,
    where SQLite keeps the order it was written in. A `//` note compares as its text."""
    entries: list[tuple[str, Any]] = []
    for line in block.split("\n"):
        entry = _ENTRY.match(line)
        if entry or line.startswith("//") or not entries:
            head = f"{entry['who']} {entry['arrow']}" if entry else line
            entries.append((head, [entry["rest"]] if entry else []))
        else:
            entries[-1][1].append(line)
    parsed: list[tuple[str, Any]] = []
    for head, lines in entries:
        text = "\n".join(lines)
        try:
            parsed.append((head, json.loads(text) if lines else None))
        except ValueError:
            parsed.append((head, text))
    return parsed
