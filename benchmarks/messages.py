"""Decode + validate + encode of real frames with msgspec and with pydantic: the numbers
that chose the library of the message definitions (contract/). Both model the same
messages: the `action` command a client sends (bytes in, a checked object out) and a
blackjack `update` (docs/protocol.md §16.5, read from benchmarks/blackjack_update.json:
a dict as the frame builders made it, checked and encoded; and built as the frame builders
make it now, as contract.table_out structs, and encoded). The baseline is what the
socket did before: the standard library's json and a hand-written check in, orjson out.

    python -m benchmarks.messages [--rounds N]

pydantic is not a dependency of the project: install it beside to compare
(`pip install pydantic`); without it only msgspec and the baseline are timed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import orjson

FRAME = json.loads((Path(__file__).parent / "blackjack_update.json").read_text())
ACTION = b'{"type": "action", "id": "c17", "action": "hit", "version": 12}'

Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class MAction(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["action"]
    id: Id
    action: str
    amount: int | None = None
    position: int | None = None
    version: int | None = None


class MSeat(msgspec.Struct, forbid_unknown_fields=True):
    number: int
    id: str
    name: str
    ai: str | None
    ready: bool
    leaving: bool
    connected: bool
    away_since: int | None


class MTable(msgspec.Struct, forbid_unknown_fields=True):
    id: int
    name: str
    variant: str
    status: str
    private: bool
    seat_count: int
    options: dict[str, int]
    entry_limit: int
    decision_seconds: int
    reconnect_grace_seconds: int
    host: str | None
    next_game_at: int | None
    pending: dict[str, Any] | None
    seats: list[MSeat]


class MHand(msgspec.Struct, forbid_unknown_fields=True):
    cards: list[str]
    total: int
    soft: bool
    wager: int
    split: bool
    natural: bool
    done: bool
    active: bool


class MOther(msgspec.Struct, forbid_unknown_fields=True):
    seat: str
    hands: list[MHand]
    splits: int
    balance: int


class MDealer(msgspec.Struct, forbid_unknown_fields=True):
    cards: list[str]
    total: int
    soft: bool
    hidden: int = 0


class MView(msgspec.Struct, forbid_unknown_fields=True):
    seat: str | None
    round: int
    rounds_total: int
    hands: list[MHand]
    hand: int
    splits: int
    balance: int
    dealer: MDealer
    others: list[MOther]
    balances: dict[str, int]
    last_round: dict[str, Any] | None
    variant: str
    version: int
    finished: bool
    turn: str | None
    actions: list[dict[str, Any]]


class MClientSeed(msgspec.Struct, forbid_unknown_fields=True):
    seat: str
    seed: str


class MGame(msgspec.Struct, forbid_unknown_fields=True):
    id: int
    number: int
    status: str
    commitment: str
    seed: str | None
    server_seed: str | None
    client_seeds: list[MClientSeed]
    result: dict[str, Any] | None
    seats: list[str]
    carry: dict[str, int]
    deadline: int | None
    clock_starts: int | None
    deadline_seat: str | None
    paused: bool
    paused_remaining_ms: int | None
    view: MView


class MYou(msgspec.Struct, forbid_unknown_fields=True):
    seat: str | None
    in_game: bool


class MUpdate(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["update"]
    version: int
    server_time: int
    table: MTable
    you: MYou
    game: MGame | None
    events: list[dict[str, Any]]


def _pydantic_models() -> tuple[Any, Any] | None:
    try:
        import pydantic
    except ImportError:
        return None
    from pydantic import BaseModel, ConfigDict, Field

    strict = ConfigDict(extra="forbid", strict=True)

    class PAction(BaseModel):
        model_config = strict
        type: Literal["action"]
        id: Annotated[str, Field(min_length=1, max_length=64)]
        action: str
        amount: int | None = None
        position: int | None = None
        version: int | None = None

    def model(name: str, fields: type) -> type:
        annotations = dict(fields.__annotations__)
        defaults = {k: v for k, v in vars(fields).items() if k in annotations}
        return pydantic.create_model(  # type: ignore[call-overload,no-any-return]
            name,
            __config__=strict,
            **{k: (t, defaults.get(k, ...)) for k, t in annotations.items()},
        )

    ns: dict[str, Any] = {}
    for struct in (MSeat, MTable, MHand, MOther, MDealer, MView, MClientSeed, MGame, MYou):
        hints = {
            k: eval(str(v).replace("M", "P") if isinstance(v, str) else v, {**globals(), **ns})
            for k, v in struct.__annotations__.items()
        }
        holder = type("F", (), {"__annotations__": hints, **_defaults(struct)})
        ns["P" + struct.__name__[1:]] = model("P" + struct.__name__[1:], holder)
    hints = {
        k: eval(str(v).replace("M", "P"), {**globals(), **ns})
        for k, v in MUpdate.__annotations__.items()
    }
    hints["type"] = Literal["update"]
    update = model("PUpdate", type("F", (), {"__annotations__": hints}))
    return PAction, update


def _defaults(struct: type) -> dict[str, Any]:
    return {
        name: default
        for name, default in zip(
            struct.__struct_fields__[-len(struct.__struct_defaults__) :]
            if struct.__struct_defaults__
            else (),
            struct.__struct_defaults__,
            strict=True,
        )
    }


def _hand_checked(data: bytes) -> dict[str, Any]:
    """The check the table socket made before (play.edge.consumers._check_arguments)."""
    message = json.loads(data)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ValueError
    cid = message.get("id")
    if not isinstance(cid, str) or not 1 <= len(cid) <= 64:
        raise ValueError
    if not isinstance(message.get("action"), str):
        raise ValueError
    for name in ("amount", "position", "version"):
        if name in message and (type(message[name]) is not int):
            raise ValueError
    return message


def _time(run: Callable[[], Any], rounds: int, batch: int = 2000) -> float:
    """Median microseconds per call over `rounds` batches."""
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(batch):
            run()
        samples.append((time.perf_counter() - started) / batch * 1e6)
    return statistics.median(samples)


def _as_dicts(frame: dict[str, Any]) -> dict[str, Any]:
    """The update made as play.frames.build made it before: nested dict literals."""
    table, game = frame["table"], frame["game"]
    return {
        **frame,
        "table": {**table, "seats": [dict(seat) for seat in table["seats"]]},
        "you": dict(frame["you"]),
        "game": {**game, "view": game["view"]},
    }


def _as_contract(frame: dict[str, Any]) -> Any:
    """The update made as play.frames.build makes it now: contract.table_out's structs
    around the engine's plain view and events."""
    from contract import table_out

    table, game = frame["table"], frame["game"]
    info = table_out.TableInfo(
        **{key: value for key, value in table.items() if key != "seats"},
        closing=False,  # fields the saved frame predates
        bots=False,
        seats=[table_out.TableSeat(**seat, bot=False) for seat in table["seats"]],
    )
    return table_out.Update(
        version=frame["version"],
        server_time=frame["server_time"],
        table=info,
        you=table_out.You(**frame["you"]),
        game=table_out.GameInfo(**game),
        events=frame["events"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    action_decoder = msgspec.json.Decoder(MAction)
    encoder = msgspec.json.Encoder()
    rows: list[tuple[str, float, float]] = []
    rows.append(
        (
            "baseline (json + hand check; orjson)",
            _time(lambda: _hand_checked(ACTION), rounds),
            _time(lambda: orjson.dumps(FRAME), rounds),
        )
    )
    rows.append(
        (
            "msgspec (strict, unknown fields refused)",
            _time(lambda: action_decoder.decode(ACTION), rounds),
            _time(lambda: encoder.encode(msgspec.convert(FRAME, MUpdate, strict=True)), rounds),
        )
    )
    rows.append(
        (
            "built as dict literals; orjson (the old builders)",
            _time(lambda: _hand_checked(ACTION), rounds),
            _time(lambda: orjson.dumps(_as_dicts(FRAME)), rounds),
        )
    )
    rows.append(
        (
            "built as contract.table_out; msgspec (now)",
            _time(lambda: action_decoder.decode(ACTION), rounds),
            _time(lambda: encoder.encode(_as_contract(FRAME)), rounds),
        )
    )
    models = _pydantic_models()
    if models is not None:
        p_action, p_update = models
        p_action.model_validate_json(ACTION)
        p_update.model_validate(FRAME)
        rows.append(
            (
                "pydantic 2 (strict, extra forbidden)",
                _time(lambda: p_action.model_validate_json(ACTION), rounds),
                _time(lambda: p_update.model_validate(FRAME).model_dump_json(), rounds),
            )
        )
    print(f"{'':44} {'action in (µs)':>15} {'update out (µs)':>16}")
    for name, incoming, outgoing in rows:
        print(f"{name:44} {incoming:15.2f} {outgoing:16.2f}")
    print(f"frame: {len(orjson.dumps(FRAME))} bytes; medians of {rounds} batches of 2000")


if __name__ == "__main__":
    main()
