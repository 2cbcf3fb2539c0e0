"""Where daphne's CPU goes (`--profile`): py-spy's raw collapsed stacks, each sample put in
the first category whose files appear in its frames.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.live.figures import RunFigures

# Each sample goes to the first category whose patterns appear in one of its frames'
# files — kinds of work first (the database, the ORM, JSON), then the concerns, then the
# server's own socket work, then the rest. The event loop's and the thread pool's own
# frames at the root of every stack are cut off before matching (see `_own_frames`), so
# that `twisted`/`daphne`/`asyncio` match only work they do themselves. orjson is C:
# without --native py-spy shows no frame of it, so its time falls to its caller.
PROFILE_CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("PostgreSQL queries/commits", ("psycopg", "django/db/backends/")),
    ("ORM model building", ("django/db/",)),
    ("JSON", ("json/", "orjson")),
    ("per-seat views and frames", ("games/", "play/frames/build.py", "play/frames/viewing.py")),
    # Counted through the cache, or its Redis client directly (accounts.throttling).
    ("Redis cache (message budgets)", ("django/core/cache/", "accounts/throttling.py")),
    (
        "channel layer",
        ("channels_redis/", "msgpack/", "redis/", "channels/layers.py", "config/channel_layer.py"),
    ),
    ("presence", ("play/services/presence.py", "play/edge/connections.py")),
    ("lobby", ("lobby/",)),
    (
        "sessions/auth",
        (
            "django/contrib/sessions/",
            "django/contrib/auth/",
            "channels/sessions.py",
            "channels/auth.py",
            "django/core/signing.py",
        ),
    ),
    ("WebSocket server", ("autobahn/", "twisted/", "daphne/", "txaio/")),
    ("live play, other app code", ("play/", "tables/", "accounts/", "config/", "history/")),
    ("Channels/asgiref plumbing", ("channels/", "asgiref/", "concurrent/futures/")),
    ("asyncio event loop", ("asyncio/", "selectors.py")),
)
OTHER_CATEGORY = "other"
# The frames a stack starts with that are only the loop or the pool calling a callback.
_ROOT_FRAMES = ("asyncio/events.py", "concurrent/futures/thread.py")


def _frame_file(frame: str) -> str:
    """`function (path/file.py:123)` -> `path/file.py`."""
    inner = frame[frame.rfind("(") + 1 :].rstrip(")")
    return inner.rsplit(":", 1)[0]


def _own_frames(files: list[str]) -> list[str]:
    """The frames below the last loop/pool dispatch frame (all of them when none)."""
    cut = 0
    for index, path in enumerate(files):
        if path.endswith(_ROOT_FRAMES):
            cut = index + 1
    return files[cut:]


def categorize(stack: str) -> str:
    frames = [f for f in stack.split(";") if not f.startswith(("thread (", "process "))]
    files = _own_frames([_frame_file(f) for f in frames])
    if not files:
        return "asyncio event loop"
    for name, patterns in PROFILE_CATEGORIES:
        if any(pattern in path for path in files for pattern in patterns):
            return name
    return OTHER_CATEGORY


def summarize_profile(text: str) -> Counter[str]:
    """Samples per category of a py-spy `--format raw` file (collapsed stacks, one
    `frame;frame;… count` a line)."""
    counts = Counter[str]()
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count.isdigit():
            counts[categorize(stack)] += int(count)
    return counts


@dataclass
class Profile:
    """py-spy's samples of daphne during one more run of a step (not one of its runs)."""

    path: Path
    run: RunFigures | None  # that run's figures
    samples: Counter[str]
    rate: int
    error: str | None = None

    @property
    def total(self) -> int:
        return sum(self.samples.values())


PROFILE_RATE = 100  # samples a second
