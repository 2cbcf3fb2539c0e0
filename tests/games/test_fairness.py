"""The shuffle is provably fair: docs/fairness.md's own verifier reproduces it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from games import shuffle
from games.cards import RUSSIAN36, STANDARD52, shoe

ROOT = Path(__file__).resolve().parents[2]
FAIRNESS_DOC = ROOT / "docs" / "fairness.md"

# A deal recorded once and kept: if the algorithm ever changes, every stored round's
# seed stops reproducing its cards, so this must fail loudly.
RECORDED_SEED = "5b1f0c6d2a4e8f9071c3b5d7e9f1a3c5e7092b4d6f8a1c3e5b7d9f0a2c4e6b81"
RECORDED_COMMITMENT = "678aa438164438d380210c5122a37dfef182b132b90c28af5e1caa2dd68d60ff"
RECORDED_FIRST_EIGHT = ["6H", "AS", "TD", "8C", "AC", "QH", "JS", "TS"]


def _verifier() -> ModuleType:
    blocks = re.findall(r"```python\n(.*?)```", FAIRNESS_DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "docs/fairness.md should hold exactly one verifier block"
    assert len(blocks[0].strip().splitlines()) <= 35, "the verifier is meant to stay short"
    module = ModuleType("fairness_verifier")
    exec(compile(blocks[0], str(FAIRNESS_DOC), "exec"), module.__dict__)
    return module


@pytest.mark.parametrize(
    ("deck", "decks", "shuffle_no"),
    [("standard52", 1, 0), ("standard52", 2, 3), ("standard52", 6, 1), ("russian36", 1, 7)],
)
def test_documented_verifier_reproduces_engine_shuffles(deck: str, decks: int, shuffle_no: int):
    seed = shuffle.fresh_seed()
    order = _verifier().verify(seed, shuffle.commitment(seed), deck, decks, shuffle_no)
    assert order == shuffle.shuffled(shoe(deck, decks), seed, shuffle_no)


def test_verifier_rejects_a_seed_that_does_not_match_the_commitment():
    with pytest.raises(SystemExit, match="does not match"):
        _verifier().verify("a-seed", shuffle.commitment("another-seed"))


def test_recorded_deal_still_reproduces():
    assert shuffle.commitment(RECORDED_SEED) == RECORDED_COMMITMENT
    order = shuffle.shuffled(shoe("standard52"), RECORDED_SEED, 0)
    assert order[:8] == RECORDED_FIRST_EIGHT
    assert _verifier().verify(RECORDED_SEED, RECORDED_COMMITMENT)[:8] == RECORDED_FIRST_EIGHT


def test_deal_command_prints_commitment_and_order():
    seed = "check-me"
    out = subprocess.run(
        [sys.executable, "-m", "games", "deal", "--variant", "banker36", "--seed", seed],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert shuffle.commitment(seed) in out
    assert " ".join(shuffle.shuffled(list(RUSSIAN36), seed, 0)) in out


def test_shuffle_is_a_permutation_and_depends_on_seed_and_number():
    a = shuffle.shuffled(list(STANDARD52), "s", 0)
    assert sorted(a) == sorted(STANDARD52)
    assert a != shuffle.shuffled(list(STANDARD52), "s", 1)
    assert a != shuffle.shuffled(list(STANDARD52), "t", 0)
    assert a == shuffle.shuffled(list(reversed(STANDARD52)), "s", 0), "input order is irrelevant"


def test_uniform_draw_has_no_modulo_bias_at_the_rejection_boundary():
    stream = shuffle.SeedStream("bias", "0")
    counts = [0, 0, 0]
    for _ in range(30_000):
        counts[stream.below(3)] += 1
    assert all(9_400 < c < 10_600 for c in counts), counts


def test_fresh_seeds_are_long_and_distinct():
    seeds = {shuffle.fresh_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(re.fullmatch(r"[0-9a-f]{64}", s) for s in seeds)


def test_replay_with_seed_deals_the_seeded_order():
    record = {
        "variant": "classic",
        "seats": [{"id": "a"}, {"id": "b"}],
        "seed": RECORDED_SEED,
        "actions": [],
    }
    out = subprocess.run(
        [sys.executable, "-m", "games", "replay", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout
    assert json.loads(out.stdout)["result"]["status"] == "awaiting_action"
