"""Golden hand records: every file in tests/games/golden/<variant>/ replays exactly.

Each file is a completed record (docs/hand-record.md): the input, with a `description` of
the rules it covers — a bare "§2.5" is a section of docs/rules/<variant>.md — plus the
expected `result`, or the expected `error` (code and action index). The records go through
the real command line, `python -m games replay -`, as an outside conformance checker would
run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import VARIANT_KEYS
from games.record import replay_text

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("golden")
RECORDS = sorted(GOLDEN.glob("*/*.json"))
MINIMUM_PER_VARIANT = 10


def _load(path: Path) -> tuple[dict, dict]:
    completed = json.loads(path.read_text(encoding="utf-8"))
    expected = {k: completed.pop(k) for k in ("result", "error") if k in completed}
    assert len(expected) == 1, f"{path.name}: give exactly one of result / error"
    return completed, expected


@pytest.mark.parametrize("variant", VARIANT_KEYS)
def test_every_variant_has_enough_golden_records(variant: str):
    count = len(list((GOLDEN / variant).glob("*.json")))
    assert count >= MINIMUM_PER_VARIANT, f"{variant}: {count} golden records"


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_record_replays_exactly(path: Path):
    record, expected = _load(path)
    output, status = replay_text(json.dumps(record))
    if "error" in expected:
        assert status == 1, f"expected an error, got {json.dumps(output)[:400]}"
        error = output["error"]
        assert error["message"], "an error says what was wrong"
        assert {"code": error["code"], "action_index": error["action_index"]} == {
            "code": expected["error"]["code"],
            "action_index": expected["error"]["action_index"],
        }
    else:
        assert status == 0, f"unexpected error: {output}"
        assert {k: v for k, v in output.items() if k != "result"} == record, "input unchanged"
        assert output["result"] == expected["result"]


def test_replay_command_line_reads_stdin_and_files_and_sets_exit_status(tmp_path: Path):
    path = next(p for p in RECORDS if "result" in json.loads(p.read_text(encoding="utf-8")))
    record, expected = _load(path)
    by_stdin = subprocess.run(
        [sys.executable, "-m", "games", "replay", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert by_stdin.returncode == 0, by_stdin.stderr
    assert json.loads(by_stdin.stdout)["result"] == expected["result"]
    file = tmp_path / "record.json"
    file.write_text(json.dumps(record), encoding="utf-8")
    by_file = subprocess.run(
        [sys.executable, "-m", "games", "replay", str(file)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert json.loads(by_file.stdout) == json.loads(by_stdin.stdout)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", "bad_record"),
        ("[]", "bad_record"),
        ('{"variant": "poker", "seats": [{"id": "a"}]}', "bad_record"),
        ('{"variant": "classic", "seats": "ann"}', "bad_record"),
        (
            '{"variant": "classic", "seats": [{"id": "a"}, {"id": "b"}], "deck": ["ZZ"]}',
            "invalid_deck",
        ),
    ],
)
def test_malformed_records_exit_1_with_an_error_object(text: str, code: str):
    done = subprocess.run(
        [sys.executable, "-m", "games", "replay", "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == code and error["action_index"] is None and error["message"]
