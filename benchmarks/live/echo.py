"""The echo baseline: the same players' sessions and socket count as a live step, in groups
of 4 on the bare echo consumer (benchmarks/live/consumer.py), sending at the live step's
rate with frames padded to the tables' mean update size. What it costs is what daphne, the
WebSocket and the Redis layer cost without any of the game; its saturation point is the
ceiling a live table is compared with.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

from benchmarks.live.figures import Latency, RunFigures, Window, num, passes, summarize
from benchmarks.live.options import SEATS, Options, log
from benchmarks.live.sockets import CONNECT_CONCURRENCY, gather_limited, open_socket, quiesce
from benchmarks.live.stack import Stack, measure

# The echo's search: a rate passes when its p99 is under the limit and at most this share
# of its frames was dropped (a lossy layer must not pass by losing the slow ones).
ECHO_LOST_SHARE = 0.01
ECHO_FASTER = 2.0  # each echo probe's rate × this (÷ when the step's rate already fails)


@dataclass
class Echo:
    port: int
    rng: random.Random
    rate: float = 0.0  # messages per second per connection
    pad: int = 0
    sending: bool = False
    sent: dict[tuple[int, int], float] = field(default_factory=dict)
    got: dict[tuple[int, int], dict[int, float]] = field(default_factory=dict)
    errors: list[float] = field(default_factory=list)


class EchoClient:
    """One socket to the echo consumer, sending at the phase's rate (a Poisson process)."""

    def __init__(self, echo: Echo, index: int, cookie: str, port: int | None = None) -> None:
        self.echo, self.index, self.cookie = echo, index, cookie
        self.port = port if port is not None else echo.port
        self.group = index // SEATS
        self.members = list(range(self.group * SEATS, self.group * SEATS + SEATS))
        self.ws: Any = None
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self) -> None:
        self.ws = await open_socket(self.port, f"/ws/bench/echo/{self.group}/", self.cookie)
        self.tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._talk())]

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        with contextlib.suppress(ConnectionClosed):
            async for text in self.ws:
                now = time.monotonic()
                frame = json.loads(text)
                self.echo.got.setdefault((frame["from"], frame["seq"]), {}).setdefault(
                    self.index, now
                )

    async def _talk(self) -> None:
        from websockets.exceptions import ConnectionClosed

        echo = self.echo
        seq = 0
        while True:
            if not echo.sending or echo.rate <= 0:
                await asyncio.sleep(0.2)
                continue
            # Poisson arrivals: the first message too comes after a random wait, so that
            # the sockets do not all send at the instant sending is switched on.
            await asyncio.sleep(echo.rng.expovariate(echo.rate))
            if not echo.sending:
                continue
            seq += 1
            message = json.dumps({"from": self.index, "seq": seq, "pad": echo.pad})
            echo.sent[self.index, seq] = time.monotonic()
            try:
                await self.ws.send(message)
            except ConnectionClosed:
                echo.errors.append(time.monotonic())
                return

    def close_now(self) -> None:
        for task in self.tasks:
            task.cancel()

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)


def echo_run_figures(echo: Echo, clients: list[EchoClient], window: Window) -> RunFigures:
    a: list[float] = []
    b: list[float] = []
    lost = count = 0
    for (sender, seq), sent in echo.sent.items():
        if not window.start <= sent < window.end:
            continue
        count += 1
        got = echo.got.get((sender, seq), {})
        lost += sum(1 for m in clients[sender].members if m not in got)
        if sender in got:
            a.append(got[sender] - sent)
        others = [got.get(m) for m in clients[sender].members if m != sender]
        if all(t is not None for t in others):
            b.append(max(t for t in others if t is not None) - sent)
    errors = sum(1 for t in echo.errors if window.start <= t < window.end)
    span = window.end - window.start
    return RunFigures(
        count / span, count / span, Latency.of(a, b), errors, 0, lost, window.usage, span
    )


@dataclass
class EchoPhase:
    runs: list[RunFigures]  # at the live step's rate
    at_saturation: list[RunFigures]  # at the saturation point's rate, when searched
    lost: int
    sent: int
    seconds: float
    rates: list[float] = field(default_factory=list)  # the rates asked for (msg/s in all)
    pad: int = 0
    probes: list[tuple[float, list[RunFigures]]] = field(default_factory=list)  # search
    layer: str = ""  # the channel layer of the stack it ran on

    @property
    def searched(self) -> bool:
        return bool(self.probes)

    def candidates(self) -> list[list[RunFigures]]:
        return [
            runs for runs in (self.runs, self.at_saturation, *(r for _, r in self.probes)) if runs
        ]

    @property
    def saturation(self) -> float | None:
        """The highest rate (msg/s, median of runs) that passed, among all it ran."""
        rates = [summarize(runs)["rate"] or 0.0 for runs in self.candidates() if echo_passes(runs)]
        return max(rates) if rates else None

    @property
    def saturated(self) -> bool:
        """Some rate it ran failed: the point is found, not only a floor."""
        return any(not echo_passes(runs) for runs in self.candidates())

    def lowest_rate(self) -> float:
        return min((summarize(runs)["rate"] or 0.0) for runs in self.candidates())


def echo_passes(runs: list[RunFigures]) -> bool:
    """p99 under the limit, as the tables', and (a lossy layer must not pass by dropping
    its slow frames) at most ECHO_LOST_SHARE of the frames lost."""
    frames = SEATS * sum(r.rate * r.span for r in runs)
    return passes(runs) and sum(r.lost for r in runs) <= ECHO_LOST_SHARE * frames


async def echo_phase(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    rates: list[float],
    pad: int,
    *,
    search: bool = False,
    layer: str = "",
) -> EchoPhase:
    """The same sockets (the same sessions), in groups of 4, sending `rates[i]` messages
    a second in all: the step's runs at the first rate, then the probe runs at the next;
    with `search`, then the echo's own saturation search: the rate doubled (halved when the
    step's rate already fails) until its verdict changes, then once between the two."""
    began = time.monotonic()
    echo = Echo(port=stack.port, rng=random.Random(options.seed + 1), pad=pad)
    clients = [
        EchoClient(echo, index, cookies[name], stack.ports[index % len(stack.ports)])
        for index, name in enumerate(names)
    ]
    await quiesce(stack, clients[0].cookie)
    opened = await gather_limited(
        (c.open() for c in clients), CONNECT_CONCURRENCY, within=options.connect_limit
    )
    failed = [r for r in opened if isinstance(r, BaseException)]
    if len(failed) > len(clients) // 2:
        raise RuntimeError(f"{len(failed)} echo sockets did not open: {failed[0]!r}")
    for client in clients:
        if client.ws is None:
            client.close_now()
        client.members = [m for m in client.members if clients[m].ws is not None]

    async def at(rate: float, count: int, seconds: float) -> list[Window]:
        echo.rate, echo.sending = rate / len(clients), True
        await asyncio.sleep(options.settle)
        windows = [await measure(stack, seconds) for _ in range(count)]
        echo.sending = False
        await asyncio.sleep(1.5)
        return windows

    phases: list[list[Window]] = []
    for index, rate in enumerate(rates):
        count = options.runs if index == 0 else options.saturation_runs
        seconds = options.duration if index == 0 else options.saturation_duration
        phases.append(await at(rate, count, seconds))
    probe_windows: list[tuple[float, list[Window]]] = []
    search_began = time.monotonic()  # the phase's lost/sent count the messages before it
    if search and rates:
        verdicts = {
            rate: echo_passes([echo_run_figures(echo, clients, w) for w in windows])
            for rate, windows in zip(rates, phases, strict=True)
        }
        base = verdicts[rates[0]]

        async def probe(rate: float) -> bool:
            windows = await at(rate, options.saturation_runs, options.saturation_duration)
            runs = [echo_run_figures(echo, clients, w) for w in windows]
            probe_windows.append((rate, windows))
            verdicts[rate] = echo_passes(runs)
            s = summarize(runs)
            log(
                f"  echo probe{f' ({layer})' if layer else ''}: {rate:.1f} msg/s asked, "
                f"{s['rate'] or 0:.1f} sent, p99 {num(s['latency'].worst_p99)} ms, "
                f"lost {s['lost']}"
            )
            return verdicts[rate]

        good = [r for r, ok in verdicts.items() if ok]
        rate = max(max(good) if base else rates[0], 1.0)
        for _ in range(options.echo_max_probes):
            rate = rate * ECHO_FASTER if base else rate / ECHO_FASTER
            if await probe(rate) != base:
                break
        good = [r for r, ok in verdicts.items() if ok]
        bad = [r for r, ok in verdicts.items() if not ok]
        if good and bad and max(good) < min(bad) and min(bad) / max(good) > 1.3:
            await probe(math.sqrt(max(good) * min(bad)))
    await asyncio.sleep(1.0)
    figures = [[echo_run_figures(echo, clients, w) for w in windows] for windows in phases]
    before = [key for key, sent in echo.sent.items() if sent < search_began]
    lost = sum(
        1
        for (sender, seq) in before
        for member in clients[sender].members
        if member not in echo.got.get((sender, seq), {})
    )
    await gather_limited((c.close() for c in clients), 200)
    return EchoPhase(
        runs=figures[0],
        at_saturation=figures[1] if len(figures) > 1 else [],
        lost=lost,
        sent=len(before),
        seconds=time.monotonic() - began,
        rates=list(rates),
        pad=pad,
        probes=[
            (rate, [echo_run_figures(echo, clients, w) for w in windows])
            for rate, windows in probe_windows
        ],
        layer=layer,
    )
