"""The live benchmark's echo baseline (benchmarks/live/consumer.py) is mounted only when the
benchmark's own settings ask for it, and broadcasts each message to its group."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from config import routing


def _paths(patterns: list[Any]) -> list[str]:
    return [str(p.pattern) for p in patterns]


def test_the_echo_route_is_not_mounted_by_default(settings: Any) -> None:
    assert not getattr(settings, "BENCH_ECHO", False)
    assert routing.bench_patterns() == []
    assert not any("bench" in path for path in _paths(routing.websocket_urlpatterns))


def test_production_settings_do_not_mount_it() -> None:
    from config import settings as production

    assert not hasattr(production, "BENCH_ECHO")


def test_the_benchmark_settings_mount_it(settings: Any) -> None:
    settings.BENCH_ECHO = True
    assert _paths(routing.bench_patterns()) == ["ws/bench/echo/<int:group>/"]


@pytest.mark.asyncio
async def test_each_message_goes_to_every_socket_of_its_group_and_no_other(settings: Any) -> None:
    settings.BENCH_ECHO = True
    application = URLRouter(routing.bench_patterns())
    sockets = [WebsocketCommunicator(application, f"/ws/bench/echo/{g}/") for g in (1, 1, 2)]
    for socket in sockets:
        connected, _ = await socket.connect()
        assert connected
    await sockets[0].send_to(text_data=json.dumps({"from": 0, "seq": 7, "pad": 100}))
    for socket in sockets[:2]:
        frame = json.loads(await socket.receive_from(timeout=5))
        assert frame == {"type": "echo", "from": 0, "seq": 7, "body": "x" * 100}
    assert await sockets[2].receive_nothing(timeout=0.3)
    await sockets[1].send_to(text_data="not json")  # ignored, the socket stays open
    assert await sockets[0].receive_nothing(timeout=0.3)
    for socket in sockets:
        await socket.disconnect()
