from typing import Any

from django.conf import settings
from django.urls import path

from lobby.consumers import LobbyConsumer
from play.edge.consumers import TableConsumer
from tournaments.consumers import TournamentConsumer


def bench_patterns() -> list[Any]:
    """The live benchmark's echo baseline (benchmarks/live/consumer.py), mounted only when the
    settings ask for it — the benchmark's own settings (benchmarks/live/settings.py) do;
    production's never do."""
    if not getattr(settings, "BENCH_ECHO", False):
        return []
    from benchmarks.live.consumer import EchoConsumer

    return [path("ws/bench/echo/<int:group>/", EchoConsumer.as_asgi())]


websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
    *bench_patterns(),
]
