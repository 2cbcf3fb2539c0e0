"""The table socket: thin. It authenticates from the session, checks a message's shape,
calls one service, and sends what it answers (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.core.exceptions import ValidationError
from django.db import DatabaseError
from django.utils import translation
from django.utils.translation import gettext as _
from msgspec import UNSET

from accounts import sessions
from contract import table_in
from contract.base import Message
from contract.reading import Problem, read
from contract.table_out import FRAMES, Snapshot
from lib.jsontext import json_text
from play.db import selectors
from play.edge import extensions
from play.edge.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_SESSION_ENDED,
    CountedAndSignedIn,
    DispatchesOnTheLoop,
    GuardedInput,
    SendsUntilGone,
    database,
    echo,
    error_frame,
    refusal_of,
    safe_id,
    scope_refusal,
    session_ended_message,
    socket_language,
)
from play.frames import broadcast, viewing
from play.frames.broadcast import table_group
from play.models import Game
from play.services import closing, commands, moves, presence, seating
from play.services.errors import PlayError
from play.services.records import public_record, record_sealed_message
from tables.models import Table

logger = logging.getLogger(__name__)


class TableConsumer(  # type: ignore[misc]
    DispatchesOnTheLoop,
    SendsUntilGone,
    GuardedInput,
    CountedAndSignedIn,
    AsyncWebsocketConsumer,
):
    """One live table: anyone may watch; signed-in players sit and play."""

    # Every frame of a table socket carries a version; none is read for a refusal.
    _REFUSAL_EXTRA = {"version": None}

    async def connect(self) -> None:
        broadcast.bind_loop()
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.signed_in = bool(self.user is not None and self.user.is_authenticated)
        self.language = socket_language(self.scope)
        self.joined: list[str] = []
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.invite = (query.get("invite") or [""])[0]
        await self.accept()
        # Before the database is read: a flood of sockets costs the cache alone.
        if not await self._count_in():
            return
        user_group = self._remember_session()
        table = await self._table()
        if table is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        if table.private and not await self._may_watch_private(table):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if (query.get("view") or [""])[0] == "spectator":
            # Watch only (classic's shared screen, on a TV that may be signed in as a
            # seated player): from here on the connection is an anonymous spectator — the
            # spectators' frames, no presence, no command. Its session has only let it
            # watch a private table above.
            self.signed_in = False
        # Every change and presence note comes through the table's group
        # (play.frames.broadcast); `table_frames` picks this connection's frame of a change.
        self.joined = [table_group(self.table_id), *([user_group] if user_group else [])]
        for group in self.joined:
            await self.channel_layer.group_add(group, self.channel_name)
        if self.signed_in:
            await database(presence.presence_join)(
                table=table, user=self.user, channel_name=self.channel_name
            )
            self.heartbeat = asyncio.ensure_future(self._beat())
        await self._send_snapshot()
        await self._connect_extensions()

    async def _connect_extensions(self) -> None:
        """What the layers above live play add to this socket (play.edge.extensions), each
        after the snapshot: a failing one is logged and leaves the socket open."""
        self.extended = extensions.Connection(
            table_id=self.table_id,
            user=self.user if self.signed_in else None,
            language=self.language,
            send=self._send,
            join=self._join,
            channel_name=self.channel_name,
            session_key=self.session_key if self.signed_in else None,
            session_user_id=(
                self.user.pk if self.user is not None and self.user.is_authenticated else None
            ),
            token_scopes=(
                frozenset(self.scope["token"]["scopes"]) if self.scope.get("token") else None
            ),
        )
        for extension in extensions.registered():
            try:
                with translation.override(self.language):
                    await extension.on_connect(self.extended)
            except Exception:
                logger.exception("extension %s failed at connect", extension.name)

    async def _join(self, group: str) -> None:
        if group not in self.joined:
            self.joined.append(group)
            await self.channel_layer.group_add(group, self.channel_name)

    async def _beat(self) -> None:
        """Keep this connection's presence fresh: a server that dies leaves connections
        that stop beating, and the sweep then counts them as drops. A beat is a cache
        write (presence.presence_touch), made off the consumers' database thread."""
        while True:
            await asyncio.sleep(selectors.PRESENCE_HEARTBEAT_SECONDS)
            try:
                await sync_to_async(presence.presence_touch, thread_sensitive=False)(
                    channel_name=self.channel_name
                )
            except Exception:
                # One failed beat (Redis or the database unreachable for a moment) must
                # not end the heartbeat: the connection would stop being refreshed and,
                # a minute later, count as dropped while it is open.
                logger.exception("presence heartbeat of %s failed", self.channel_name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            # An exception ended the consumer without disconnect(): the channel layer
            # lost Redis (every consumer of the process fails at once), or a handler
            # failed. daphne closes the socket, but the heartbeat would go on refreshing
            # this connection's presence for as long as the process lives, so the player
            # would count as connected for ever — no presence frame, no reconnect grace,
            # never stood up as away. Leave as a closed connection does, as far as the
            # database allows.
            with contextlib.suppress(Exception):
                await self._leave()
            raise

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def _leave(self) -> None:
        """Forget this connection: once, however the consumer ends."""
        if getattr(self, "left", False):
            return
        self.left = True
        heartbeat = getattr(self, "heartbeat", None)
        if heartbeat is not None:
            heartbeat.cancel()
        await self._count_out()
        joined: list[str] = getattr(self, "joined", [])
        try:
            for group in joined:
                await self.channel_layer.group_discard(group, self.channel_name)
        finally:
            # Even when the groups cannot be left (Redis is down: they are gone with it).
            if joined and getattr(self, "signed_in", False):
                table = await self._table()
                if table is not None:
                    await database(presence.presence_leave)(
                        table=table, user=self.user, channel_name=self.channel_name
                    )

    # --- incoming ------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        with translation.override(self.language):
            message = await self._read(text_data, bytes_data)
            if message is not None:
                await self._dispatch(message)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        request = table_in.REQUESTS.get(kind)
        if request is not None:
            # Requests are read before anything else: a bad one gets `bad_message`.
            checked = read(message, request)
            if isinstance(checked, Problem):
                await self._send(refusal_of(checked, **echo(message)))
            elif kind == "ping":
                await self._send({"type": "pong", "version": await self._version()})
            elif kind == "snapshot":
                await self._send_snapshot()
            else:
                assert isinstance(checked, table_in.RecordRequest)
                await self._send_record(checked.game, message)
            return
        handler = self._COMMANDS.get(kind)
        if handler is None:
            extension = extensions.for_message(kind)
            if extension is not None and hasattr(self, "extended"):
                # What an access token needs for it: the extension's say (chat's `chat`).
                needed = getattr(extension, "token_scope", "play")
                refusal = scope_refusal(self.scope, needed, **echo(message))
                if refusal is not None:
                    await self._send(refusal)
                    return
                await extension.on_message(self.extended, message)
                return
            await self._send(
                error_frame(
                    "unknown_type",
                    _("Неизвестный тип сообщения %(type)r; см. docs/asyncapi.yaml.")
                    % {"type": kind[:40]},
                    **echo(message),
                )
            )
            return
        client_id = message.get("id")
        if not self.signed_in:
            await self._send(
                error_frame("not_signed_in", _("Войдите, чтобы играть."), id=safe_id(client_id))
            )
            return
        refusal = scope_refusal(self.scope, "play", id=safe_id(client_id))
        if refusal is not None:  # an access token without `play`
            await self._send(refusal)
            return
        if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
            await self._send(
                error_frame("bad_message", _('Каждое действие несёт "id": строку до 64 знаков.'))
            )
            return
        checked = read(message, table_in.COMMANDS[kind])
        if isinstance(checked, Problem):
            await self._send(refusal_of(checked, id=client_id))
            return
        # An action's version is checked by the move itself (moves.game_act), with
        # the overdue decision it may meet; any other command's here.
        move = kind == "action"
        version = None if move or checked.version is UNSET else checked.version
        await self._command(
            client_id,
            lambda table: handler(self, table, checked),
            version,
            locks_its_table=kind in self._LOCK_THEIR_TABLE,
        )

    async def _command(
        self,
        client_id: str,
        build: Callable[[Table], Any],
        version: int | None = None,
        *,
        locks_its_table: bool = False,
    ) -> None:
        def run() -> dict[str, Any]:
            with translation.override(self.language):
                # In this trip to the database thread: one query more per command.
                if not sessions.session_current(session_key=self.session_key, user=self.user):
                    raise PlayError("session_ended", session_ended_message())
                # A command that reads its table itself, under the table's lock, is given
                # the table's id alone, not a read of ours that would be stale by then.
                table = (
                    Table(pk=self.table_id)
                    if locks_its_table
                    else Table.objects.get(pk=self.table_id)
                )
                outcome = commands.command_run(
                    user=self.user,
                    table=table,
                    client_id=client_id,
                    run=lambda: build(table),
                    version=version,
                    plays_overdue=locks_its_table,
                )
                if "version" not in outcome:
                    # The ack's version (as _send would add it), read in this call rather
                    # than in another trip to the database thread.
                    outcome = {**outcome, "version": self._version_now()}
                return outcome

        try:
            outcome = await database(run)()
        except PlayError as error:
            await self._send(error_frame(error.code, error.message, id=client_id))
            if error.code == "stale_version":
                await self._send_snapshot()
            elif error.code == "session_ended":
                await self.close(code=CLOSE_SESSION_ENDED)
            return
        except ValidationError as error:  # SeatError
            code = getattr(error, "code", None) or "refused"
            await self._send(error_frame(code, " ".join(error.messages), id=client_id))
            return
        except DatabaseError:
            # The database connection failed mid-command (PostgreSQL restarted, the
            # backend terminated): the command's transaction rolled back — unless its
            # commit was what failed — so nothing of it was applied. Raised, this killed
            # the consumer: the socket closed with no answer to the command. Answer it
            # instead; a resend with the same id runs it at most once (docs/protocol.md).
            logger.exception("command %s at table %s failed", client_id, self.table_id)
            await self._send(
                error_frame(
                    "unavailable",
                    _("Сервер не смог выполнить команду: повторите её с тем же id."),
                    id=client_id,
                )
            )
            return
        await self._send({"type": "ack", "id": client_id, **outcome})

    async def _end_for_session(self) -> None:
        await self._send(error_frame("session_ended", session_ended_message()))
        await self.close(code=CLOSE_SESSION_ENDED)

    # Each command: (consumer, table, the message read by its definition in
    # contract.table_in) -> outcome dict. Run inside command_run.
    def _sit(self, table: Table, message: table_in.Sit) -> dict[str, Any]:
        # The invite in the message, else the one the connection came in with.
        invite = self.invite if message.invite is UNSET else message.invite
        seat = seating.seat_take(table=table, player=self.user, invite=invite)
        return {"seat": seat.seat_id}

    def _stand(self, table: Table, message: table_in.Stand) -> dict[str, Any]:
        seating.seat_leave(table=table, player=self.user)
        return {}

    def _ready(self, table: Table, message: table_in.Ready) -> dict[str, Any]:
        seating.seat_ready(table=table, player=self.user, ready=message.ready)
        return {}

    def _start(self, table: Table, message: table_in.Start) -> dict[str, Any]:
        # `match_length` is the table's name for it (open_table, the lobby); `rounds`,
        # the name `start` first took, stays an alias for the clients written against it.
        given = [n for n in (message.match_length, message.rounds) if n is not UNSET]
        length = given[0] if given else None
        if len(set(given)) > 1:
            raise PlayError(
                "bad_message",
                _("match_length и rounds — одна длина партии: укажите одно значение."),
            )
        game = moves.game_start(table=table, by=self.user, rounds=length)
        table.refresh_from_db(fields=["pending"])
        return {"game": game.number if game is not None else table.pending["number"]}

    def _client_seed(self, table: Table, message: table_in.ClientSeed) -> dict[str, Any]:
        return moves.client_seed_give(table=table, player=self.user, seed=message.seed)

    def _action(self, table: Table, message: table_in.Action) -> dict[str, Any]:
        action: dict[str, Any] = {"action": message.action}
        if message.amount is not UNSET:
            action["amount"] = message.amount
        if message.position is not UNSET:
            action["position"] = message.position
        version = None if message.version is UNSET else message.version
        return moves.game_act(table=table, player=self.user, action=action, version=version)

    def _pause(self, table: Table, message: table_in.Pause) -> dict[str, Any]:
        return moves.game_pause(table=table, by=self.user)

    def _resume(self, table: Table, message: table_in.Resume) -> dict[str, Any]:
        return moves.game_resume(table=table, by=self.user)

    def _remove(self, table: Table, message: table_in.Remove) -> dict[str, Any]:
        seating.player_remove(table=table, by=self.user, seat_id=message.seat)
        return {}

    def _add_ai(self, table: Table, message: table_in.AddAi) -> dict[str, Any]:
        seat = seating.ai_seat_add(table=table, by=self.user, level=message.level)
        return {"seat": seat.seat_id}

    def _remove_ai(self, table: Table, message: table_in.RemoveAi) -> dict[str, Any]:
        seating.ai_seat_remove(table=table, by=self.user, number=message.number)
        return {}

    def _new_game(self, table: Table, message: table_in.NewGame) -> dict[str, Any]:
        return moves.solo_new_game(table=table, player=self.user)

    def _end_session(self, table: Table, message: table_in.EndSession) -> dict[str, Any]:
        return moves.session_end(table=table, player=self.user)

    def _close(self, table: Table, message: table_in.Close) -> dict[str, Any]:
        return closing.table_close_by_host(table=table, by=self.user)

    # Commands whose service reads the table under its lock before anything else
    # (moves.game_act, moves.client_seed_give): the two a game's play is made of.
    # Neither needs command_run's look for an overdue decision: a move plays one itself,
    # under that lock, and a client seed is given between games, when none can be due.
    _LOCK_THEIR_TABLE = frozenset({"action", "client_seed"})

    _COMMANDS: dict[str, Callable[..., dict[str, Any]]] = {
        "sit": _sit,
        "stand": _stand,
        "ready": _ready,
        "start": _start,
        "action": _action,
        "pause": _pause,
        "resume": _resume,
        "remove": _remove,
        "add_ai": _add_ai,
        "remove_ai": _remove_ai,
        "new_game": _new_game,
        "end_session": _end_session,
        "close": _close,
        "client_seed": _client_seed,
    }

    # --- outgoing ------------------------------------------------------------------------

    async def table_frame(self, event: dict[str, Any]) -> None:
        """A frame for every connection of the table (a presence note)."""
        await self._send(event["frame"])

    async def table_frames(self, event: dict[str, Any]) -> None:
        """A change of the table (play.frames.broadcast): a seated player's connection sends
        its player's own frame, any other connection — anonymous, a shared screen, a
        signed-in person not seated — the spectators'. Never another seat's."""
        own = event["players"].get(str(self.user.pk)) if self.signed_in else None
        # Encoded once for every socket it goes to (play.frames.broadcast.send_frames).
        await self.send(text_data=own if own is not None else event["spectator"])

    async def table_extension(self, event: dict[str, Any]) -> None:
        """A group event of an extension (play.edge.extensions.extension_event), handed to it
        with this connection."""
        extension = extensions.named(event.get("extension", ""))
        if extension is None or not hasattr(self, "extended"):
            return  # not registered here, or the socket is still opening
        with translation.override(self.language):
            await extension.on_event(self.extended, event["event"])

    async def _send(self, message: Message | dict[str, Any]) -> None:
        """Send one frame. A frame given as its fields (an answer, a presence note, a chat
        message) is built here as its definition (`contract.table_out.FRAMES` by its
        `type`): a field the contract does not name, or a required one missing, fails
        here rather than in a client."""
        if isinstance(message, dict):
            fields = dict(message)
            if "version" not in fields:  # every server message carries the table's version
                fields["version"] = await self._version()
            message = FRAMES[fields.pop("type")](**fields)
        await self.send(text_data=json_text(message))

    async def _send_snapshot(self) -> None:
        snapshot = await database(self._snapshot)()
        if snapshot is not None:
            await self._send(snapshot)

    def _snapshot(self) -> Snapshot | None:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return None
        return viewing.table_snapshot(table=table, user=self.user if self.signed_in else None)

    async def _send_record(self, number: int, message: dict[str, Any]) -> None:
        record = await database(self._record)(number)
        await self._send({**record, **echo(message)})

    def _record(self, number: int) -> dict[str, Any]:
        with translation.override(self.language):
            game = Game.objects.filter(table_id=self.table_id, number=number).first()
            if game is None:
                return error_frame("not_found", _("Такой игры за этим столом нет."))
            if not self.signed_in or not _played_in(game, self.user):
                return error_frame("forbidden", _("Запись раздачи видят только её игроки."))
            if game.sealed:
                return error_frame("record_sealed", record_sealed_message())
            return {"type": "record", "game": number, "record": public_record(game)}

    @database  # type: ignore[misc]
    def _table(self) -> Table | None:
        return Table.objects.filter(pk=self.table_id).first()

    @database  # type: ignore[misc]
    def _version(self) -> int | None:
        return self._version_now()

    def _version_now(self) -> int | None:
        return Table.objects.filter(pk=self.table_id).values_list("version", flat=True).first()

    @database  # type: ignore[misc]
    def _may_watch_private(self, table: Table) -> bool:
        if self.invite and self.invite == table.invite_code:
            return True
        if not self.signed_in:
            return False
        return bool(
            self.user.is_staff
            or table.created_by_id == self.user.pk
            or table.seats.filter(player=self.user).exists()
        )


def _played_in(game: Game, user: Any) -> bool:
    return bool(user.is_staff or any(p["user"] == user.pk for p in game.players))
