"""What a client sends a table socket (docs/protocol.md §4, §5, §17): one definition per
`type`. Every command carries an `id` and may carry the table `version` it was decided
on; a field a definition does not name is refused (`bad_message`, naming it). An
optional field is absent or of its type: `null` is not a value of any of them (UNSET is
msgspec's "absent")."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType

from contract.base import CommandId, Message, TableVersion
from contract.registry import SocketMessage

# A client seed's alphabet is checked by the service (`bad_client_seed`, §5.5): the
# contract asks only for a string, so that a wrong seed is told apart from a wrong type.
SeedText = Annotated[str, msgspec.Meta(description="1–64 of A–Z a–z 0–9 _ - (§5.5)")]


class Request(Message, kw_only=True):
    """A request without an id of its own: it may carry one, which its answer repeats."""

    id: str | UnsetType = UNSET


class Ping(Request, kw_only=True, tag_field="type", tag="ping"):
    """Answered with `pong`: a keep-alive, and the table's version."""


class SnapshotRequest(Request, kw_only=True, tag_field="type", tag="snapshot"):
    """Answered with a `snapshot` for this connection."""


class RecordRequest(Request, kw_only=True, tag_field="type", tag="record"):
    """The hand record of this table's game number `game` (§15)."""

    game: int


class Command(Message, kw_only=True):
    """A command: answered with exactly one `ack` or `error` carrying its `id`."""

    id: CommandId
    version: TableVersion | UnsetType = UNSET


class Sit(Command, kw_only=True, tag_field="type", tag="sit"):
    invite: str | UnsetType = UNSET


class Stand(Command, kw_only=True, tag_field="type", tag="stand"):
    pass


class Ready(Command, kw_only=True, tag_field="type", tag="ready"):
    ready: bool = True


class Start(Command, kw_only=True, tag_field="type", tag="start"):
    match_length: int | UnsetType = UNSET
    # The older name of `match_length`, kept for the clients written against it.
    rounds: int | UnsetType = UNSET


class ClientSeed(Command, kw_only=True, tag_field="type", tag="client_seed"):
    seed: SeedText


class Action(Command, kw_only=True, tag_field="type", tag="action"):
    action: str
    amount: int | UnsetType = UNSET
    position: int | UnsetType = UNSET


class Pause(Command, kw_only=True, tag_field="type", tag="pause"):
    pass


class Resume(Command, kw_only=True, tag_field="type", tag="resume"):
    pass


class Remove(Command, kw_only=True, tag_field="type", tag="remove"):
    seat: str


class AddAi(Command, kw_only=True, tag_field="type", tag="add_ai"):
    level: str


class RemoveAi(Command, kw_only=True, tag_field="type", tag="remove_ai"):
    number: int


class NewGame(Command, kw_only=True, tag_field="type", tag="new_game"):
    pass


class EndSession(Command, kw_only=True, tag_field="type", tag="end_session"):
    pass


class Close(Command, kw_only=True, tag_field="type", tag="close"):
    pass


class Chat(Command, kw_only=True, tag_field="type", tag="chat"):
    """One of `text`, `phrase` or `reaction` (§17.1)."""

    text: str | UnsetType = UNSET
    phrase: str | UnsetType = UNSET
    reaction: str | UnsetType = UNSET


class Visibility(Message, kw_only=True, tag_field="type", tag="visibility"):
    """The table page says whether it is visible now (§5.6); no answer. «Ваш ход» by Web Push
    reaches a player only while none of their pages of the table is visible."""

    visible: bool


REQUESTS: dict[str, type[Request]] = {
    "ping": Ping,
    "snapshot": SnapshotRequest,
    "record": RecordRequest,
}
COMMANDS: dict[str, type[Command]] = {
    "sit": Sit,
    "stand": Stand,
    "ready": Ready,
    "start": Start,
    "client_seed": ClientSeed,
    "action": Action,
    "pause": Pause,
    "resume": Resume,
    "remove": Remove,
    "add_ai": AddAi,
    "remove_ai": RemoveAi,
    "new_game": NewGame,
    "end_session": EndSession,
    "close": Close,
    "chat": Chat,
}

# Notes: neither an id nor an answer (a page's state, told to the server).
NOTES: dict[str, type[Message]] = {"visibility": Visibility}

MESSAGES = tuple(
    SocketMessage("table", "send", kind, name, (kind.__doc__ or name).split("\n\n")[0])
    for name, kind in {**REQUESTS, **COMMANDS, **NOTES}.items()
)
