"""One step of the benchmark: the live tables of N players, then the echo on the same
sockets at the rate the players sent; the steps of a run in order, and the echo again on
the other channel layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.live.echo import EchoPhase, echo_phase
from benchmarks.live.figures import num, passes, summarize
from benchmarks.live.load import LivePhase, live_phase
from benchmarks.live.options import SEATS, Options, log
from benchmarks.live.stack import Stack


@dataclass
class StepResult:
    live: LivePhase
    echo: EchoPhase
    saturation_rate: float | None = None
    webs: int = 1  # daphne processes
    other_echo: EchoPhase | None = None  # the same echo on the other channel layer


def saturation_rate(phase: LivePhase) -> float | None:
    """The highest action rate (median of runs) among the paces whose p99 stayed under
    the limit, the step's own pace included."""
    candidates = [(1.0, phase.runs), *phase.probes]
    rates = [summarize(runs)["rate"] or 0.0 for _pace, runs in candidates if passes(runs)]
    return max(rates) if rates else None


async def run_step(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    *,
    search: bool,
    layer: str = "",
    profile_logs: Path | None = None,
) -> StepResult:
    names = names[: len(names) - len(names) % SEATS]
    live = await live_phase(
        stack, cookies, names, options, search=search, profile_logs=profile_logs
    )
    step = summarize(live.runs)
    log(
        f"  live: {live.seconds:.0f} s; {step['rate'] or 0:.1f} actions/s, "
        f"p99 (a) {num(step['latency'].a[99])} ms, (b) {num(step['latency'].b[99])} ms"
    )
    # The echo baseline at the rate the players sent actions (and at the saturation
    # point's): the same offered load, whatever the tables managed to answer.
    rates = [step["sent_rate"] or 0.0]
    point = saturation_rate(live) if search else None
    if point:
        rates.append(point)
    echo = await echo_phase(
        stack,
        cookies,
        names,
        options,
        rates,
        int(live.frame_bytes) - 60,
        search=search,
        layer=layer,
    )
    base = summarize(echo.runs)
    log(
        f"  echo: {echo.seconds:.0f} s; {base['rate'] or 0:.1f} msg/s, "
        f"p99 (a) {num(base['latency'].a[99])} ms, (b) {num(base['latency'].b[99])} ms"
    )
    return StepResult(live, echo, point, webs=len(stack.ports))


async def bench(
    options: Options,
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    *,
    layer: str = "",
    logs: Path | None = None,
) -> list[StepResult]:
    results = []
    search = options.saturation_players if options.search else None
    steps = list(options.steps)
    if search is not None and search not in steps:
        steps.append(search)
    for players in steps:
        log(
            f"step: {players} players"
            + (" (then the saturation search)" if players == search else "")
        )
        profile = options.profile and players == options.profile_players
        results.append(
            await run_step(
                stack,
                cookies,
                names[:players],
                options,
                search=players == search,
                layer=layer,
                profile_logs=logs if profile else None,
            )
        )
    return results


async def other_layer_echo(
    stack: Stack,
    cookies: dict[str, str],
    names: list[str],
    options: Options,
    results: list[StepResult],
    layer: str,
) -> None:
    """The echo of every one-process step again, on a stack whose channel layer is the
    other one: the same sockets and sessions, the same rates and padding, and the echo's
    saturation search where the live stack's echo had one."""
    for result in results:
        if result.webs != 1:
            continue
        players = result.live.players
        log(f"echo on the {layer} layer: {players} players")
        result.other_echo = await echo_phase(
            stack,
            cookies,
            names[:players],
            options,
            result.echo.rates,
            result.echo.pad,
            search=result.echo.searched,
            layer=layer,
        )
        base = summarize(result.other_echo.runs)
        log(
            f"  echo ({layer}): {result.other_echo.seconds:.0f} s; {base['rate'] or 0:.1f} "
            f"msg/s, p99 (a) {num(base['latency'].a[99])} ms, (b) "
            f"{num(base['latency'].b[99])} ms"
        )
