"""`games/` is the pure rules engine: importing all of it must not pull in a framework."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import games

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("django", "channels", "celery", "redis", "daphne")


def test_importing_every_games_module_imports_no_framework():
    names = [m.name for m in pkgutil.walk_packages(games.__path__, "games.")]
    assert "games.engine" in names and "games.variants.classic" in names
    program = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "", f"games/ imported: {done.stdout.strip()}"


def test_games_uses_no_global_random_and_no_clock():
    offenders = []
    for path in (ROOT / "games").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for needle in (
            "import random",
            "from random",
            "import time",
            "from time",
            "datetime.now",
            "import datetime",
        ):
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert offenders == []
