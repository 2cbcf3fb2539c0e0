"""A record's `fairness` object is checked by replay (docs/fairness.md)."""

from __future__ import annotations

import copy

import pytest

from games.record import ReplayError, replay
from games.shuffle import commitment, fairness_object, fresh_seed


def _record() -> dict:
    seed = fresh_seed()
    return {
        "variant": "solo",
        "seats": [{"id": "ann"}],
        "seed": seed,
        "fairness": fairness_object(seed, commitment(seed), {"table": 1, "game": 1}),
        "actions": [{"seat": "ann", "action": "bet", "amount": 10}],
    }


def test_a_record_whose_seed_matches_its_commitment_replays():
    record = _record()
    assert replay(record)["result"]["status"] == "awaiting_action"


def test_an_unrevealed_server_seed_has_nothing_to_check_yet():
    record = _record()
    record["fairness"]["server_seed"] = None
    replay(record)


@pytest.mark.parametrize("field", ["commitment", "server_seed", "seed"])
def test_one_changed_character_in_a_fairness_field_is_a_fairness_mismatch(field):
    record = _record()
    target = record if field == "seed" else record["fairness"]
    value = target[field]
    target[field] = ("0" if value[0] != "0" else "1") + value[1:]
    with pytest.raises(ReplayError) as caught:
        replay(copy.deepcopy(record))
    assert caught.value.error["code"] == "fairness_mismatch"


def test_an_unknown_algorithm_is_a_fairness_mismatch():
    record = _record()
    record["fairness"]["algorithm"] = "trust-me/0"
    with pytest.raises(ReplayError) as caught:
        replay(record)
    assert caught.value.error["code"] == "fairness_mismatch"
