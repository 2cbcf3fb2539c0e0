"""The bot at one table: it sits, plays its seat's moves and ends when its game does.

It keeps to the client's checklist of docs/protocol.md (§18): it applies `snapshot` and
`update` frames by the table version (§7: `V + 1` applied, older ignored, a gap answered
by a `snapshot` request), sends `version` with every action, sends its `client_seed` when
`table.pending` names its seat (§5.5, §9.2), and gives every command a fresh `id` — but
resends a command left unanswered, after a reconnection or a `rate_limited` refusal,
with the **same** `id` (§5.4), so that it runs at most once. It sends one command at a
time and decides again only from a newer picture of the table, so a refusal never makes
it loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot import policy
from bot.frames import Frame, Spec, default_spec
from bot.transport import Closed, Socket, Transport
from games import fairness

# Close codes after which reconnecting cannot help (§2.4): the session or token is no
# longer valid, the table is private or gone.
FATAL_CLOSES = {
    4401: "not signed in: the token was not accepted",
    4403: "this table is private (or the handshake was refused): no invite, not seated",
    4404: "no such table",
    4440: "the session or token has ended: sign in again (create a new token)",
}
# Refusals no retry can mend (§2.2, §2.2.1): the bot stops and says why.
STOPPING_CODES = {
    "session_ended": "the token was revoked or its user deactivated",
    "bad_token": "the token is unknown, revoked or malformed",
    "scope_missing": "the token needs the scopes read and play",
    "token_in_url": "a token must not be in the URL",
}
SEED_ALPHABET = string.ascii_letters + string.digits + "_-"
DEFAULT_RETRY_AFTER = 1.0  # seconds, when a `rate_limited` refusal names none


class BotStopped(Exception):
    """The bot cannot go on (a fatal close code, an ended session, a refused coach)."""


class ProtocolMismatch(Exception):
    """A frame the published definitions do not describe (raised in strict mode)."""


@dataclass
class Options:
    rounds: int = 10
    """`blackjack` and `solo`: the rounds to play before ending the game (`blackjack`
    `end_session`, `solo` `stand`); 0 plays the game to its end."""
    ai: int = 0
    """AI seats to add when the bot hosts the table (`classic`, `blackjack` only)."""
    ai_level: str = "hard"
    leave: bool = True
    """Stand up once the game has ended."""
    strict: bool = False
    """Raise `ProtocolMismatch` on a frame the spec does not describe (tests); otherwise
    it is logged and the bot goes on."""
    spec: Spec | None = None
    """The published spec the bot checks what it sends and receives against (None: this
    checkout's docs/asyncapi.yaml and docs/openapi.yaml)."""
    idle_seconds: float = 5.0
    """Without a frame for this long, ask for a snapshot."""
    first_pause: float = 0.5
    max_pause: float = 15.0
    coach_attempts: int = 40


@dataclass
class Outcome:
    table: int
    variant: str
    seat: str | None = None
    game: int | None = None
    status: str | None = None
    rounds: int = 0
    commands: int = 0
    reconnections: int = 0
    fair: bool | None = None
    """The game's fairness checked once it was over (§18 item 3): the revealed server
    seed matches the commitment published before the deal, the bot's own client seed went
    into the seed, and the seed follows from them. None: not checked (nothing revealed)."""
    view: dict[str, Any] | None = None
    """The game's last `view` the bot saw (how it ended: `solo`'s `game_over`, …)."""
    log: list[str] = field(default_factory=list)


class Bot:
    def __init__(
        self,
        transport: Transport,
        table_id: int,
        options: Options | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.transport = transport
        self.table_id = table_id
        self.options = options or Options()
        self.spec = self.options.spec or default_spec()
        self._print = log or (lambda line: None)
        self.outcome = Outcome(table_id, "")
        # Ids unique to this run: a user's ids must never repeat at a table (§5.4).
        prefix = f"b{secrets.token_hex(4)}"
        self._ids = (f"{prefix}-{n}" for n in itertools.count(1))
        self.version = -1
        self.picture: Frame | None = None
        self.variant = ""
        self.outstanding: tuple[str, str] | None = None  # (id, the command's JSON text)
        self.decided_version: int | None = None
        self.snapshot_asked = False
        self.seeded: dict[int, tuple[str, str]] = {}  # game -> (its commitment, our seed)
        self.settled: set[tuple[int, int, int]] = set()  # (game, view version, nth)
        self.played_game: int | None = None
        self.done = False
        self.pause = self.options.first_pause

    # --- the connection ---------------------------------------------------------------

    def log(self, line: str) -> None:
        self.outcome.log.append(line)
        self._print(f"[table {self.table_id}] {line}")

    async def run(self) -> Outcome:
        """Play until the game ends; reconnect (with a growing pause) whenever the socket
        drops, start again from the snapshot and resend what was unanswered."""
        first = True
        while not self.done:
            if not first:
                self.outcome.reconnections += 1
                self.log(f"reconnecting in {self.pause:.1f} s")
                await asyncio.sleep(self.pause)
                self.pause = min(self.pause * 2, self.options.max_pause)
            first = False
            try:
                socket = await self.transport.table(self.table_id)
            except Closed as closed:
                self._stop_if_fatal(closed)
                self.log(f"could not connect: {closed}")
                continue
            try:
                await self._session(socket)
            except Closed as closed:
                self._stop_if_fatal(closed)
                self.log(f"the socket closed ({closed.code})")
            finally:
                # Already gone is as good as closed.
                with contextlib.suppress(Exception):
                    await socket.close()
        return self.outcome

    def _stop_if_fatal(self, closed: Closed) -> None:
        reason = FATAL_CLOSES.get(closed.code)
        if reason is not None:
            raise BotStopped(f"closed with {closed.code}: {reason}")

    async def _session(self, socket: Socket) -> None:
        # No replay of missed events: every connection starts from its snapshot (§7).
        self.version = -1
        self.picture = None
        self.decided_version = None
        self.snapshot_asked = False
        while not self.done:
            try:
                text = await asyncio.wait_for(socket.recv(), self.options.idle_seconds)
            except TimeoutError:
                self.decided_version = None
                await self._request(socket, "snapshot")
                continue
            await self._handle(socket, self._read(text))

    def _read(self, text: str) -> Frame:
        frame = json.loads(text)
        problem = self.spec.message_problem("table", "receive", frame)
        if problem is not None:
            if self.options.strict:
                raise ProtocolMismatch(f"{problem}\n{text}")
            self.log(f"a frame the spec does not describe ({problem})")
        result: Frame = frame
        return result

    async def _send(self, socket: Socket, text: str) -> None:
        await socket.send(text)

    async def _request(self, socket: Socket, kind: str) -> None:
        await self._send(socket, self.spec.send_text("table", {"type": kind}))

    async def _command(self, socket: Socket, kind: str, **fields: Any) -> None:
        ident = next(self._ids)
        text = self.spec.send_text("table", {"type": kind, "id": ident, **fields})
        self.outstanding = (ident, text)
        self.outcome.commands += 1
        self.log(f"→ {text}")
        await self._send(socket, text)

    # --- what comes in ----------------------------------------------------------------

    async def _handle(self, socket: Socket, frame: Frame) -> None:
        kind = frame.get("type")
        if kind == "snapshot":
            first = self.picture is None
            if frame["version"] >= self.version:
                self._apply(frame, frame["history"])
            self.snapshot_asked = False
            if first:
                self.pause = self.options.first_pause
                if self.outstanding is not None:
                    # Unanswered when the socket dropped: the same id runs at most once.
                    self.log(f"resending {self.outstanding[0]}")
                    await self._send(socket, self.outstanding[1])
        elif kind == "update":
            if self.picture is None:
                return
            if frame["version"] == self.version + 1:
                self._apply(frame, [{"version": _view_version(frame), "events": frame["events"]}])
            elif frame["version"] > self.version + 1 and not self.snapshot_asked:
                self.log(f"missed an update after version {self.version}: asking for a snapshot")
                self.snapshot_asked = True
                await self._request(socket, "snapshot")
        elif kind == "ack":
            if self.outstanding and frame["id"] == self.outstanding[0]:
                self.outstanding = None
        elif kind == "error":
            await self._refused(socket, frame)
        await self._act(socket)

    async def _refused(self, socket: Socket, error: Frame) -> None:
        code = error["code"]
        mine = self.outstanding is not None and error.get("id") in (None, self.outstanding[0])
        if code in STOPPING_CODES:
            raise BotStopped(f"{code}: {STOPPING_CODES[code]} ({error['message']})")
        if code == "rate_limited":
            # The message was dropped unread (or, with its id, refused): wait as told, then
            # send it again under the same id.
            wait = error.get("retry_after")
            pause = float(wait) if isinstance(wait, int | float) else DEFAULT_RETRY_AFTER
            self.log(f"rate_limited: waiting {pause:.1f} s")
            await asyncio.sleep(pause)
            if mine and self.outstanding is not None:
                await self._send(socket, self.outstanding[1])
            if self.snapshot_asked and error.get("id") is None:
                await self._request(socket, "snapshot")  # it may have been the one dropped
            return
        if not mine or error.get("id") is None:
            self.log(f"error {code}: {error['message']}")
            return
        if code == "unavailable":
            # Applied or not, the same id tells (§13): ask again after a pause.
            await asyncio.sleep(self.pause)
            assert self.outstanding is not None
            await self._send(socket, self.outstanding[1])
            return
        self.log(f"refused ({code}): {error['message']}")
        self.outstanding = None
        if code == "stale_version":
            self.decided_version = None  # a snapshot follows: decide again from it

    def _apply(self, frame: Frame, transitions: list[dict[str, Any]]) -> None:
        self.picture = frame
        self.version = frame["version"]
        self.variant = frame["table"]["variant"]
        self.outcome.variant = self.variant
        game = frame["game"]
        if game is None:
            return
        if frame["you"]["in_game"]:
            self.played_game = game["number"]
        if game["number"] == self.played_game:
            # One transition may settle two rounds (a dealer's natural settles the next
            # round in the same move): each settle counts, once whichever frame told it.
            for entry in transitions:
                settles = [e for e in entry["events"] if e.get("type") == "settle"]
                for nth in range(len(settles)):
                    self.settled.add((game["number"], entry["version"], nth))
        self.outcome.rounds = len(self.settled)

    # --- what to do -------------------------------------------------------------------

    async def _act(self, socket: Socket) -> None:
        picture = self.picture
        if self.done or picture is None or self.outstanding is not None:
            return
        if self.decided_version == picture["version"]:
            return
        command = await self._next(picture)
        if self.done or command is None or self.picture is not picture:
            return
        self.decided_version = picture["version"]
        kind, fields = command
        await self._command(socket, kind, **fields)

    def _finish(self, picture: Frame, why: str) -> None:
        game = picture["game"]
        self.outcome.seat = picture["you"]["seat"] or self.outcome.seat
        self.outcome.game = game["number"] if game else None
        self.outcome.status = game["status"] if game else None
        self.outcome.view = game["view"] if game else None
        self.log(f"done: {why}")
        self.done = True

    async def _next(self, picture: Frame) -> tuple[str, dict[str, Any]] | None:
        table, you, game = picture["table"], picture["you"], picture["game"]
        seat = you["seat"]
        if seat is not None:
            self.outcome.seat = seat
        if (
            game is not None
            and game["number"] == self.played_game
            and game["status"] != "playing"
            and not you["in_game"]
        ):
            if self.outcome.fair is None:
                self._check_fairness(table, game)
            if seat is not None and self.options.leave:
                # Free the seat (and, at a chip table, the chips) before the next game.
                return "stand", {}
            self._finish(picture, f"game {game['number']} is {game['status']}")
            return None
        if table["status"] == "closed":
            self._finish(picture, "the table was closed")
            return None
        if seat is None:
            if self.played_game is not None:
                self._finish(picture, "the bot's seat was taken away")
                return None
            return "sit", {}
        pending = table["pending"]
        if (
            pending is not None
            and seat in pending["seats"]
            and seat not in pending["given"]
            and pending["game"] not in self.seeded
        ):
            seed = "".join(secrets.choice(SEED_ALPHABET) for _ in range(16))
            self.seeded[pending["game"]] = (pending["commitment"], seed)
            return "client_seed", {"seed": seed}
        playing = game is not None and game["status"] == "playing"
        if playing and you["in_game"]:
            return await self._play(picture)
        if pending is not None or playing:
            return None
        me = next(entry for entry in table["seats"] if entry["id"] == seat)
        hosting = table["host"] is not None and table["host"] == me["name"]
        ai_seats = sum(1 for entry in table["seats"] if entry["ai"] is not None)
        if hosting and ai_seats < self.options.ai and len(table["seats"]) < table["seat_count"]:
            return "add_ai", {"level": self.options.ai_level}
        if not me["ready"]:
            return "ready", {}
        return None

    def _check_fairness(self, table: Frame, game: Frame) -> None:
        server_seed = game["server_seed"]
        if server_seed is None:
            return
        context = game["context"]  # what the commitment binds (a tournament's shoe: not this table)
        problems = []
        if fairness.commit(server_seed, context) != game["commitment"]:
            problems.append("the server seed does not match the commitment")
        sent = self.seeded.get(game["number"])
        if sent is not None:
            commitment, seed = sent
            if commitment != game["commitment"]:
                problems.append("the commitment is not the one announced before the deal")
            mine = {"seat": self.outcome.seat, "seed": seed}
            if mine not in game["client_seeds"]:
                problems.append("the bot's client seed is not among the game's")
        if fairness.derive(server_seed, context, game["client_seeds"]) != game["seed"]:
            problems.append("the seed does not follow from the server and client seeds")
        self.outcome.fair = not problems
        if problems:
            message = f"game {game['number']} fails its fairness check: " + "; ".join(problems)
            if self.options.strict:
                raise ProtocolMismatch(message)
            self.log(message)
        else:
            self.log(f"game {game['number']}: fairness checked (docs/fairness.md)")

    async def _play(self, picture: Frame) -> tuple[str, dict[str, Any]] | None:
        game = picture["game"]
        view = game["view"]
        seat = picture["you"]["seat"]
        limit = self.options.rounds
        if limit and len(self.settled) >= limit:
            if self.variant == "blackjack":
                return "end_session", {}
            if self.variant == "solo" and view.get("phase") != "draw" and view.get("bet") is None:
                return "stand", {}
        if view["turn"] != seat or not view["actions"] or game["paused"]:
            return None
        hint = None
        if self.variant in policy.COACHED:
            coach = await self._coach(picture["version"])
            if coach is None:
                return None
            hint = coach["hint"]
        try:
            decision = policy.decide(self.variant, view, hint)
        except policy.NoDecision as why:
            self.log(f"no decision: {why}")
            return None
        return "action", {**decision, "version": picture["version"]}

    async def _coach(self, version: int) -> dict[str, Any] | None:
        """The coach's answer for the table at `version`, or None when a newer frame is on
        its way (the coach has moved past the picture this decision would be made on)."""
        path = f"/tables/{self.table_id}/coach.json"
        for _ in range(self.options.coach_attempts):
            status, body = await self.transport.get_json(path)
            if status != 200 or not isinstance(body, dict):
                raise BotStopped(f"GET {path} answered {status}: {body!r}")
            problem = self.spec.body_problem("coach", 200, body)
            if problem is not None:
                message = f"the coach's answer does not fit its spec: {problem}"
                if self.options.strict:
                    raise ProtocolMismatch(message)
                self.log(message)
            if body["version"] == version:
                return body
            if body["version"] > version:
                return None
            await asyncio.sleep(0.05)  # older than our frame: ask again (§ "The coach")
        raise BotStopped(f"the coach stayed behind table version {version}")


def _view_version(frame: Frame) -> int:
    game = frame["game"]
    return game["view"]["version"] if game is not None else -1
