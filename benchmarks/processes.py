"""Subprocesses of the production stack, for `make bench-live` (benchmarks/live.py) and the
integration tests (tests/integration/live_stack.py): one wrapper for both.

A `Service` is one program (daphne, a Celery worker, beat, redis-server) run in a session
of its own, so that a signal reaches it and its children (the worker's pool) and nothing
else; restartable, each run logging to a file of its own.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT = 60.0


class ServiceError(AssertionError):
    """A service exited, or did not get ready in time. (An AssertionError: to a test it is
    a failure like any other.)"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Service:
    """One subprocess in its own process group, restartable, each run logging to its own
    file (`<name>-<run>.log`)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.argv, self.env, self.logs = name, argv, env, logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_files: list[Path] = []

    def start(self) -> None:
        log = self.logs / f"{self.name}-{len(self.log_files) + 1}.log"
        self.log_files.append(log)
        with log.open("wb") as out:
            # Its own session, so that a signal reaches it (and only it) by its group id.
            self.proc = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pgid(self) -> int:
        """Its process group (= its pid): itself and its children."""
        assert self.proc is not None
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _signal(self, sig: signal.Signals) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        if self.running():
            self._signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=10)

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM, then SIGKILL after `timeout` s; children of the group that outlived
        their parent (the worker's pool) are killed too."""
        if self.proc is None:
            return
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
            if self.proc.poll() is not None:
                break
            self._signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=wait)
        self._signal(signal.SIGKILL)

    def log_text(self, run: int | None = None) -> str:
        """Every run's log, or only run number `run` (1, 2, …)."""
        paths = self.log_files if run is None else self.log_files[run - 1 : run]
        return "".join(path.read_text(errors="replace") for path in paths if path.exists())

    def wait_for_log(
        self, pattern: str, timeout: float = STARTUP_TIMEOUT, *, run: int | None = None
    ) -> re.Match[str]:
        """The first match of `pattern` in the log (every run's, or run `run`'s), once it
        appears."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.search(pattern, self.log_text(run))
            if found:
                return found
            if not self.running():
                code = self.proc and self.proc.poll()
                raise ServiceError(
                    f"{self.name} exited (code {code}):\n{self.log_text(run)[-3000:]}"
                )
            time.sleep(0.1)
        raise ServiceError(f"{self.name}: no {pattern!r} in its log within {timeout:.0f} s")
