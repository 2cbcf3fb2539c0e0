"""A record's `fairness` object is checked by replay (docs/fairness.md)."""

from __future__ import annotations

import copy

import pytest

from games import fairness
from games.record import ReplayError, replay
from games.shuffle import fresh_seed

CONTEXT = {"table": 7, "shoe": 3, "variant": "solo"}
CLIENTS = [{"seat": "ann", "seed": "4pX-_q9"}]


def _record() -> dict:
    server_seed = fresh_seed()
    return {
        "variant": "solo",
        "seats": [{"id": "ann"}],
        "seed": fairness.derive(server_seed, CONTEXT, CLIENTS),
        "fairness": fairness.fairness_object(
            server_seed=server_seed,
            commitment=fairness.commit(server_seed, CONTEXT),
            context=CONTEXT,
            client_seeds=CLIENTS,
        ),
        "actions": [{"seat": "ann", "action": "bet", "amount": 10}],
    }


def _flip(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


def test_a_record_whose_seed_is_derived_from_its_committed_inputs_replays():
    assert replay(_record())["result"]["status"] == "awaiting_action"


def test_an_unrevealed_server_seed_has_nothing_to_check_yet():
    record = _record()
    record["fairness"]["server_seed"] = None
    del record["seed"]
    record["deck"] = ["6S", "7S"]
    replay(record)


@pytest.mark.parametrize(
    "path",
    [
        ("seed",),
        ("fairness", "commitment"),
        ("fairness", "server_seed"),
        ("fairness", "client_seeds", 0, "seed"),
        ("fairness", "client_seeds", 0, "seat"),
        ("fairness", "nonce"),
        ("fairness", "context", "table"),
        ("fairness", "context", "shoe"),
        ("fairness", "context", "variant"),
        ("fairness", "algorithm"),
    ],
)
def test_one_changed_byte_in_any_fairness_field_is_a_fairness_mismatch(path):
    record = _record()
    holder = record
    for key in path[:-1]:
        holder = holder[key]
    value = holder[path[-1]]
    holder[path[-1]] = value + 1 if isinstance(value, int) else _flip(str(value))
    with pytest.raises(ReplayError) as caught:
        replay(copy.deepcopy(record))
    assert caught.value.error["code"] == "fairness_mismatch"


def test_a_missing_client_seed_changes_the_seed():
    record = _record()
    record["fairness"]["client_seeds"] = []
    with pytest.raises(ReplayError) as caught:
        replay(record)
    assert caught.value.error["code"] == "fairness_mismatch"
