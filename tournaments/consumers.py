"""The tournament socket (docs/protocol.md §19): an event's standings, sent on connect and
again whenever the event changes (tournaments.standings.changed_on_commit). Anyone may
watch, signed in or not; it takes no message. Counted, rate-limited and size-limited as
every socket of ours (play.edge.sockets)."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import translation
from django.utils.translation import gettext as _

from contract.base import Message
from contract.tournament import FRAMES
from lib.jsontext import json_text
from play.edge.sockets import (
    CLOSE_NOT_FOUND,
    CLOSE_SESSION_ENDED,
    CountedAndSignedIn,
    DispatchesOnTheLoop,
    GuardedInput,
    SendsUntilGone,
    database,
    error_frame,
    session_ended_message,
    socket_language,
)
from play.frames import broadcast
from tournaments.standings import standings_of, tournament_group


class TournamentConsumer(  # type: ignore[misc]
    DispatchesOnTheLoop,
    SendsUntilGone,
    GuardedInput,
    CountedAndSignedIn,
    AsyncWebsocketConsumer,
):
    groups_joined: list[str]

    async def connect(self) -> None:
        broadcast.bind_loop()
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.groups_joined = []
        await self.accept()
        if not await self._count_in():
            return
        standings = await database(standings_of)(self.tournament_id)
        if standings is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        user_group = self._remember_session()
        self.groups_joined = [tournament_group(self.tournament_id)]
        if user_group is not None:
            self.groups_joined.append(user_group)
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self._send(standings)

    async def disconnect(self, code: int) -> None:
        await self._count_out()
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        with translation.override(socket_language(self.scope)):
            content = await self._read(text_data, bytes_data)
            if content is None:
                return
            await self._send(
                error_frame(
                    "unknown_type",
                    _("Сокет турнира ничего не принимает: он только присылает таблицу."),
                )
            )

    async def tournament_changed(self, event: dict[str, Any]) -> None:
        standings = await database(standings_of)(self.tournament_id)
        if standings is not None:
            await self._send(standings)

    async def _end_for_session(self) -> None:
        await self._send(error_frame("session_ended", session_ended_message()))
        await self.close(code=CLOSE_SESSION_ENDED)

    async def _send(self, message: Message | dict[str, Any]) -> None:
        """Send one frame, built as its definition (`contract.tournament.FRAMES`)."""
        if isinstance(message, dict):
            fields = dict(message)
            message = FRAMES[fields.pop("type")](**fields)
        await self.send(text_data=json_text(message))
