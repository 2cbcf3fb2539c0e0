"""What each process of the stack costs, read from /proc: CPU seconds and RSS per process
group (a service and its children), per server tree (PostgreSQL forks a backend per
connection), and the whole machine's busy time. Two samples make a `Usage`: CPU in % of
one core over the time between them.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Proc:
    pid: int
    ppid: int
    pgrp: int
    comm: str
    cpu: float  # seconds, its own
    children_cpu: float  # seconds, of its children it has reaped
    rss: float  # MB


def scan() -> dict[int, Proc]:
    """Every process on the machine, from /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        f = text[text.rindex(")") + 2 :].split()
        found[int(entry.name)] = Proc(
            pid=int(entry.name),
            ppid=int(f[1]),
            pgrp=int(f[2]),
            comm=comm,
            cpu=(int(f[11]) + int(f[12])) / CLK_TCK,
            children_cpu=(int(f[13]) + int(f[14])) / CLK_TCK,
            rss=int(f[21]) * PAGE_SIZE / 1e6,
        )
    return found


def group_usage(procs: dict[int, Proc], pgid: int) -> tuple[float, float]:
    """CPU seconds (the reaped children's included) and RSS (MB) of a process group."""
    members = [p for p in procs.values() if p.pgrp == pgid]
    cpu = sum(p.cpu for p in members) + sum(p.children_cpu for p in members if p.pid == pgid)
    return cpu, sum(p.rss for p in members)


def tree_usage(procs: dict[int, Proc], root: int | None) -> tuple[float, float]:
    """CPU seconds of a server and its children, live and reaped (PostgreSQL forks a
    backend per connection); RSS of the server process alone (the rest is shared)."""
    if root is None or root not in procs:
        return 0.0, 0.0
    top = procs[root]
    cpu = top.cpu + top.children_cpu + sum(p.cpu for p in procs.values() if p.ppid == root)
    return cpu, top.rss


def find_postmaster(procs: dict[int, Proc]) -> int | None:
    for proc in procs.values():
        parent = procs.get(proc.ppid)
        if proc.comm in ("postgres", "postmaster") and (parent is None or parent.comm != proc.comm):
            return proc.pid
    return None


def find_redis(procs: dict[int, Proc], port: int) -> int | None:
    candidates = [p.pid for p in procs.values() if p.comm == "redis-server"]
    for pid in candidates:
        with contextlib.suppress(OSError):
            if f":{port}" in Path(f"/proc/{pid}/cmdline").read_text():
                return pid
    return candidates[0] if candidates else None


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Sample:
    wall: float
    groups: dict[str, tuple[float, float]]
    machine: tuple[int, int]


@dataclass
class Usage:
    cpu: dict[str, float]  # percent of one core
    rss: dict[str, float]  # MB at the end
    machine_busy: float  # percent of all cores


def usage_between(a: Sample, b: Sample) -> Usage:
    wall = max(b.wall - a.wall, 1e-6)
    cpu = {name: 100 * (b.groups[name][0] - a.groups[name][0]) / wall for name in b.groups}
    rss = {name: b.groups[name][1] for name in b.groups}
    busy = b.machine[0] - a.machine[0]
    total = max(b.machine[1] - a.machine[1], 1)
    return Usage(cpu=cpu, rss=rss, machine_busy=100 * busy / total)
