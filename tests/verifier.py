"""`python -m games verify` run on a hand record in a fresh interpreter, as a stranger runs
it (docs/fairness.md): the tests' one way to verify a record from outside."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def verified(record: dict[str, Any]) -> tuple[int, str]:
    """The verifier's exit status (0: every check passed) and its output."""
    done = subprocess.run(
        [sys.executable, "-m", "games", "verify", "-"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr
