"""WebSocket consumers: thin; they authenticate, read through selectors, and send."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from tables.selectors import lobby_payload

LOBBY_GROUP = "lobby"
# 4401 mirrors HTTP 401: the browser sees it as the close code (a refusal before accept
# would reach it only as a failed handshake, without a reason).
CLOSE_UNAUTHENTICATED = 4401


class LobbyConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """Sends the open tables on connect; later issues push updates to the group."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.send_json({"type": "lobby", "tables": await self._tables()})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "lobby", "tables": await self._tables()})

    @database_sync_to_async  # type: ignore[misc]
    def _tables(self) -> list[dict[str, Any]]:
        return lobby_payload()
