"""Every frame a test receives from a lobby socket is checked against its definition
(contract.lobby) and against docs/asyncapi.yaml: a key the protocol does not document, a
wrong type or a missing field fails the test that received it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from contract.lobby import LobbyFrame
from contract.reading import Problem, read
from tests.contract.frames import spec_problem


def assert_lobby_frame(frame: Any) -> None:
    problem = read(frame, LobbyFrame)
    if isinstance(problem, Problem):
        pytest.fail(
            f"a lobby frame out of docs/protocol.md §14 (contract.lobby): {problem.field!r} "
            f"{problem.reason}: {problem.detail}\n{frame!r}"
        )
    # And by the committed docs/asyncapi.yaml, once per kind of frame (tests/contract/frames).
    refused = spec_problem(frame, "lobby")
    if refused is not None:
        pytest.fail(f"{refused}\n{frame!r}")


class LobbyCommunicator(WebsocketCommunicator):
    """A lobby socket's test client: every frame it receives, however the test reads it
    (`receive_json_from`, `receive_from`, `receive_output`), is checked."""

    async def receive_output(self, timeout: float = 1) -> Any:
        output = await super().receive_output(timeout)
        if output.get("type") == "websocket.send" and output.get("text") is not None:
            assert_lobby_frame(json.loads(output["text"]))
        return output


def communicator(application: Any, path: str, **kwargs: Any) -> WebsocketCommunicator:
    """A test client of `path`: a lobby socket's checks what it receives."""
    kind = LobbyCommunicator if path.startswith("/ws/lobby/") else WebsocketCommunicator
    return kind(application, path, **kwargs)
