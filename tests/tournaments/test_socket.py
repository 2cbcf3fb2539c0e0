"""The tournament socket (docs/protocol.md §19): standings on connect and after each change
of the event, checked against contract.tournament and docs/asyncapi.yaml; no message taken;
4404 for no such event."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from contract.reading import Problem, read
from contract.tournament import TournamentFrame
from tests.contract.frames import spec_problem
from tests.play.ws_helpers import HEADERS
from tests.tournaments.helpers import make_tournament
from tournaments.services import entry_register, entry_withdraw, tournament_registration_open

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


class TournamentCommunicator(WebsocketCommunicator):
    """Every frame it receives is read strictly by its definition and, once per kind,
    validated against the committed docs/asyncapi.yaml."""

    async def receive_output(self, timeout: float = 1) -> Any:
        output = await super().receive_output(timeout)
        if output.get("type") == "websocket.send" and output.get("text") is not None:
            frame = json.loads(output["text"])
            found = read(frame, TournamentFrame)  # type: ignore[arg-type]
            if isinstance(found, Problem):
                pytest.fail(f"a tournament frame out of §19: {found}\n{frame!r}")
            refused = spec_problem(frame, "tournament")
            if refused is not None:
                pytest.fail(f"{refused}\n{frame!r}")
        return output


async def watch(tournament_id: int) -> TournamentCommunicator:
    comm = TournamentCommunicator(application, f"/ws/tournaments/{tournament_id}/", headers=HEADERS)
    connected, _ = await comm.connect()
    assert connected
    return comm


@database_sync_to_async
def an_open_event() -> Any:
    return tournament_registration_open(tournament=make_tournament(buy_in=100))


async def test_a_watcher_gets_the_standings_and_fresh_ones_after_each_registration(make_user):
    tournament = await an_open_event()
    comm = await watch(tournament.pk)  # anonymous: anyone may watch
    first = await comm.receive_json_from(timeout=5)
    assert first["type"] == "standings" and first["entries"] == []
    assert first["tournament"]["status"] == "registering"
    assert first["tournament"]["commitment"] == tournament.commitment
    assert first["tournament"]["server_seed"] is None
    ann = await database_sync_to_async(make_user)("ann")
    await database_sync_to_async(entry_register)(
        tournament_id=tournament.pk, player=ann, now=timezone.now()
    )
    fresh = await comm.receive_json_from(timeout=5)
    assert [e["player"] for e in fresh["entries"]] == ["ann"]
    assert fresh["tournament"]["pool"] == 100 and fresh["tournament"]["entrants"] == 1
    assert fresh["prizes"] == [100]
    await database_sync_to_async(entry_withdraw)(tournament_id=tournament.pk, player=ann)
    after = await comm.receive_json_from(timeout=5)
    assert after["entries"] == [] and after["tournament"]["pool"] == 0
    await comm.disconnect()


async def test_the_socket_takes_no_message_and_says_so():
    tournament = await an_open_event()
    comm = await watch(tournament.pk)
    await comm.receive_json_from(timeout=5)
    await comm.send_to(text_data=json.dumps({"type": "register"}))
    refused = await comm.receive_json_from(timeout=5)
    assert refused["type"] == "error" and refused["code"] == "unknown_type"
    await comm.send_to(text_data="not json")
    assert (await comm.receive_json_from(timeout=5))["code"] == "bad_json"
    await comm.disconnect()


async def test_no_such_tournament_closes_with_4404():
    comm = TournamentCommunicator(application, "/ws/tournaments/999999/", headers=HEADERS)
    connected, _ = await comm.connect()
    assert connected
    closed = await comm.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4404}
