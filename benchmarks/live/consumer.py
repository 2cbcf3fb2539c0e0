"""The echo baseline of `make bench-live` (benchmarks/live/): a bare consumer on the
same daphne and channel layer as the tables, with a table's fan-out and nothing else.

Each connection to `ws/bench/echo/<group>/` joins the channel-layer group
`bench-echo-<group>`; every text frame it sends is broadcast to that group (the
benchmark puts 4 connections in each, as a table seats 4), and each member sends it on
to its client — padded to `pad` bytes, so that the baseline carries frames as large as a
table's updates. No database, no rules, no per-viewer frames: what is left is daphne,
the WebSocket and the Redis layer.

Mounted only when the settings say `BENCH_ECHO = True` (benchmarks/live/settings.py,
which only the benchmark's processes use): never in production routing.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

MAX_PAD = 65_536


class EchoConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    async def connect(self) -> None:
        self.group = f"bench-echo-{int(self.scope['url_route']['kwargs']['group'])}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data if text_data is not None else bytes_data or b"")
            pad = min(max(int(message.get("pad", 0)), 0), MAX_PAD)
            out = {"type": "echo", "from": message.get("from"), "seq": message.get("seq")}
        except (ValueError, TypeError, AttributeError):
            return
        out["body"] = "x" * pad
        await self.channel_layer.group_send(
            self.group, {"type": "echo.frame", "text": json.dumps(out)}
        )

    async def echo_frame(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])
