"""The lobby socket: the open tables on connect and whatever changes them after, and
`open_table` (docs/protocol.md §14). Thin, as every consumer: one service per message."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from contract.base import Message
from contract.lobby import FRAMES, OpenTable
from contract.reading import Problem, read
from lib.jsontext import json_text
from lib.problems import problem_text
from lobby import rows as lobby_rows
from lobby.broadcast import LOBBY_GROUP
from lobby.forms import LobbyFilterForm
from lobby.selectors import lobby_listing
from lobby.services import TABLE_OPEN_FIELDS, table_open_with
from play.edge.sockets import (
    CLOSE_SESSION_ENDED,
    CLOSE_UNAUTHENTICATED,
    CountedAndSignedIn,
    DispatchesOnTheLoop,
    GuardedInput,
    SendsUntilGone,
    database,
    echo,
    error_frame,
    refusal_of,
    scope_refusal,
    session_ended_message,
    socket_language,
)
from play.frames import broadcast
from play.services.errors import PlayError
from play.services.seating import Sitter, sitter_of

logger = logging.getLogger(__name__)


class LobbyConsumer(  # type: ignore[misc]
    DispatchesOnTheLoop,
    SendsUntilGone,
    GuardedInput,
    CountedAndSignedIn,
    AsyncJsonWebsocketConsumer,
):
    """The open tables, sent on connect and again whenever one changes."""

    # The viewer's seats and chips (their join verdicts), and whether the client asked for
    # each row's markup (`?html=1`): set by the first message's listing.
    sitter: Sitter | None = None
    html = False

    async def send_json(self, content: Message | dict[str, Any], close: bool = False) -> None:
        """Send one frame, built as its definition (`contract.lobby.FRAMES` by its `type`):
        a field the contract does not name, or a required one missing, fails here rather
        than in a client. Rows and the like inside stay plain data (the suite reads every
        frame it receives strictly)."""
        if isinstance(content, dict):
            fields = dict(content)
            content = FRAMES[fields.pop("type")](**fields)
        await self.send(text_data=json_text(content), close=close)

    async def connect(self) -> None:
        broadcast.bind_loop()
        user = self.scope.get("user")
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        if not await self._count_in():
            return
        self.groups_joined = [LOBBY_GROUP, str(self._remember_session())]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.send_json({"type": "lobby", **await self._listing(user)})

    async def disconnect(self, code: int) -> None:
        await self._count_out()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def _end_for_session(self, answering: dict[str, str] | None = None) -> None:
        await self.send_json(
            error_frame("session_ended", session_ended_message(), **(answering or {}))
        )
        await self.close(code=CLOSE_SESSION_ENDED)

    async def _send(self, message: dict[str, Any]) -> None:
        await self.send_json(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        with translation.override(socket_language(self.scope)):
            content = await self._read(text_data, bytes_data)
            if content is None:
                return
            # Every lobby message may open a table: only while the session stands.
            if not await self._session_current():
                await self._end_for_session(echo(content))
                return
            await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if content.get("type") != "open_table":
            await self.send_json(
                error_frame(
                    "unknown_type",
                    _("Сообщение лобби одно: open_table (docs/protocol.md)."),
                    **echo(content),
                )
            )
            return
        if (refusal := scope_refusal(self.scope, "play", **echo(content))) is not None:
            await self.send_json(refusal)  # an access token without `play`
            return
        opening = read(content, OpenTable)
        if isinstance(opening, Problem):
            await self.send_json(open_table_refusal(opening, echo(content)))
            return
        fields = {
            name: getattr(opening, name)
            for name in TABLE_OPEN_FIELDS
            if getattr(opening, name) is not None  # left out or null: the default
        }
        try:
            table = await database(table_open_with)(
                by=self.scope["user"],
                variant=opening.variant,
                private=opening.private,
                fields=fields,
            )
        except PlayError as error:
            named: dict[str, Any] = {"field": error.field} if error.field else {}
            if error.limit:
                named["limit"] = error.limit
            if error.retry_after is not None:
                named["retry_after"] = error.retry_after
            await self.send_json(error_frame(error.code, error.message, **named, **echo(content)))
            return
        await self.send_json(
            {
                "type": "table_opened",
                "table": table.pk,
                "invite": table.invite_code or None,
                **echo(content),
            }
        )

    async def lobby_diff(self, event: dict[str, Any]) -> None:
        """Changed tables (lobby.broadcast.lobby_changed): each as its own message, in
        this connection's language and with this viewer's join verdict (play.services.seating) —
        not the whole list again — then the batch's `lobby_counts` (docs/protocol.md §14)."""
        language = socket_language(self.scope)
        tables = event["tables"]
        rows = tables.get(language) or tables.get(settings.LANGUAGE_CODE) or []
        closed = event.get("closed") or {}
        closed_rows = {
            row["id"]: row
            for row in closed.get(language) or closed.get(settings.LANGUAGE_CODE) or []
        }
        added = set(event["added"])
        hosts = event.get("hosts") or {}
        user_id = getattr(self.scope.get("user"), "pk", None)
        await self._sitter_after(event, rows)
        with translation.override(language):
            for row in rows:
                kind = "table_added" if row["id"] in added else "table_changed"
                shown = lobby_rows.for_viewer(row, self.sitter, html=self.html)
                message: dict[str, Any] = {"type": kind, "table": shown}
                if user_id is not None and hosts.get(str(row["id"])) == user_id:
                    # Only to the one who opened it: their «Ваши столы» (lobby.json's `me`)
                    # has a new table, without every other client asking lobby.json.
                    message["yours"] = True
                await self.send_json(message)
            for table_id in event["removed"]:
                message = {"type": "table_removed", "table": table_id}
                if self.html and table_id in closed_rows:
                    gone = lobby_rows.for_viewer(
                        closed_rows[table_id], self.sitter, html=True, closed=True
                    )
                    message["html"] = gone["html"]
                await self.send_json(message)
        if "counts" in event:  # (a diff from a web process of the release before has none)
            await self.send_json(
                {
                    "type": "lobby_counts",
                    "counts": event["counts"],
                    "counts_total": event["counts_total"],
                }
            )

    async def _sitter_after(self, event: dict[str, Any], rows: list[dict[str, Any]]) -> None:
        """The viewer's seats and chips read again when the batch changed a table they
        sit at or just sat down at (their verdicts may change), or before the first
        listing read them; any other batch costs no query."""
        user_id = getattr(self.scope.get("user"), "pk", None)
        held = {seat.table for seat in self.sitter.seats} if self.sitter else set()
        seated = event.get("seated") or {}
        touched = any(
            row["id"] in held or user_id in seated.get(str(row["id"]), ()) for row in rows
        ) or any(table_id in held for table_id in event["removed"])
        if self.sitter is not None and not touched:
            return
        try:
            self.sitter = await database(sitter_of)(self.scope["user"])
        except Exception:  # the database is away: the verdicts of the seats known before
            logger.exception("a lobby viewer's seats could not be read")

    @database  # type: ignore[misc]
    def _listing(self, user: Any) -> dict[str, Any]:
        """The first message's page of tables, under the filters of the socket's query
        string (as lobby.json takes them), with this viewer's verdicts; the viewer's
        seats and chips are kept for the verdicts of the changes that follow."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        filters = LobbyFilterForm({k: v[0] for k, v in query.items()}).filters()
        self.html = query.get("html", [""])[0] == "1"
        self.sitter = sitter_of(user)
        with translation.override(socket_language(self.scope)):  # as lobby_diff sends it
            listing = lobby_listing(**filters)
            listing["tables"] = [
                lobby_rows.for_viewer(row, self.sitter, html=self.html) for row in listing["tables"]
            ]
        return listing


# The fields of `open_table` the table model checks: a value out of their documented
# range is the table refused (`bad_table`), as the model refuses it; any other problem
# is the message's shape (`bad_message`) (docs/protocol.md §14).
_TABLE_FIELDS = TABLE_OPEN_FIELDS | {"variant", "private"}


def open_table_refusal(problem: Problem, answering: dict[str, str]) -> dict[str, Any]:
    """The `error` answering an `open_table` that does not fit its definition
    (contract.lobby.OpenTable), naming the field, in the active language."""
    if problem.reason == "value" and problem.field in _TABLE_FIELDS:
        return error_frame("bad_table", problem_text(problem), field=problem.field, **answering)
    return refusal_of(problem, **answering)
