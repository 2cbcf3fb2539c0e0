"""The report: the tables of figures, the targets each with its verdict, and the same as
JSON (`--json`; the keys are read by tests/benchmarks/test_bench_live.py and by whoever
compares runs, so they stay stable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.live.echo import ECHO_LOST_SHARE, EchoPhase, echo_passes
from benchmarks.live.figures import (
    SATURATION_P99_MS,
    RunFigures,
    cpu_per_message,
    num,
    passes,
    percentile,
    ratio_of,
    summarize,
)
from benchmarks.live.options import SEATS, TARGET_PLAYERS, Options
from benchmarks.live.profile import Profile
from benchmarks.live.sockets import CONNECT_RETRIES
from benchmarks.live.stack import IDLE_PROCESSES
from benchmarks.live.steps import StepResult

# One web process at the 400-player step: an action's update within this at p99, and
# within TARGET_ECHO_RATIO of the echo's p99 (there and at the crowd step).
TARGET_P99_MS = 150.0
TARGET_ECHO_RATIO = 3.0
TARGET_LATENESS_MS = 500.0  # a timeout applied this late after its deadline, at most
# Live play against the echo, as ratios measured in one run: the machine is shared and its
# speed varies, so the echo on the same processes in the same run is the yardstick.
TARGET_CPU_RATIO = 2.0  # daphne CPU per accepted action ÷ the echo's per broadcast
TARGET_SATURATION_SHARE = 0.5  # the live saturation point ÷ the echo's
TARGET_CROWD = 1_000  # the crowd step: p99 ≤ 3× the echo's, every table dealt, …
# Refusals a person's own play can earn at a healthy server (§13): the rules refusing a
# move. The bench's players only send what `game.view.actions` offers, so none should
# occur; any other code (a late seed's no_shuffle, a stale_version after an update came
# late, unavailable, …) is the server's doing and misses the crowd target.
PLAYERS_OWN_MISTAKES = frozenset({"not_your_turn", "illegal_action", "bad_amount"})


def profile_lines(profile: Profile, players: int) -> list[str]:
    lines = [
        f"Where daphne's CPU goes ({players}-player step, --profile): py-spy at "
        f"{profile.rate} Hz during one more run of the step (not one of its runs), the "
        "thread holding the GIL; raw collapsed stacks (a flame graph: flamegraph.pl or "
        f"speedscope) in {profile.path}",
    ]
    if profile.error or not profile.total or profile.run is None:
        lines.append(f"  no samples: {profile.error or 'py-spy wrote none'}")
        return lines
    per_action = cpu_per_message([profile.run])
    cpu_seconds = (profile.run.usage.cpu.get("daphne") or 0.0) / 100 * profile.run.span
    lines.append(
        f"  {profile.total:,} samples (= {profile.total / profile.rate:.1f} s with the GIL"
        f" held; daphne used "
        f"{cpu_seconds:.1f} CPU-s in the run); {num(profile.run.rate, 1)} actions/s accepted,"
        f" {num(per_action, 1)} ms of daphne CPU per accepted action"
    )
    lines.append(
        "  (py-spy samples the thread holding the GIL: Python at work, one thread at a time;"
        " work done with the GIL released — the kernel's socket calls, libpq's — is in the "
        "CPU from /proc but in no sample. The shares are of the samples, times the CPU per "
        "action measured from /proc)"
    )
    lines.append(f"  {'category':<28} {'samples':>8} {'share':>6} {'ms/action':>10}")
    for name, count in profile.samples.most_common():
        share = count / profile.total
        ms = None if per_action is None else share * per_action
        lines.append(f"  {name:<28} {count:>8,} {share:>6.1%} {num(ms, 2):>10}")
    return lines


def report(results: list[StepResult], options: Options, context: dict[str, Any]) -> str:
    ordered = sorted(results, key=lambda r: (r.webs, r.live.players))
    lines = [
        "Live tables over real WebSockets: one daphne process, a Celery worker (prefork) and "
        "beat, on PostgreSQL and Redis — all on this machine",
        f"({context['cores']} cores, shared with other work: load average "
        f"{context['load_before']} before, {context['load_after']} after). 4 players a "
        "table, banker36 and blackjack alternating, every seat a person; each acts 0.5–2 s "
        f"after their turn, {options.miss:.0%} of turns left to the {options.decision_seconds}"
        " s clock.",
        f"Each figure: median of {options.runs} runs of {options.duration:g} s. Latency in ms "
        "from sending an action to (a) the actor's update, (b) the last other seat's update.",
        "Echo: a bare consumer on the same daphne + Redis broadcasting each message to its "
        "group of 4 — the same players' sessions and socket count, the same message rate, "
        "frames padded to the tables' mean update size.",
    ]
    layer = context.get("layer") or {}
    if layer:
        lines.append(
            f"Channel layer of the live stack: {layer.get('live')} ({layer.get('backend')}), "
            "what its settings give (read back from them; nothing set for it here)."
        )
    if options.quick:
        lines.append(
            "QUICK: one small step; the saturation searches (live and echo) and the other "
            "layer's echo are shortened (fewer, shorter probes), the idle window is 5 s."
        )
    if options.extra_env:
        extra = " ".join(f"{k}={v}" for k, v in options.extra_env.items())
        lines.append(f"EXPERIMENT: the server processes ran with {extra} (not the defaults).")
    lines += idle_lines(context)
    lines += [
        "",
        f"{'players':>7} {'tables':>6} {'sent/s':>6} {'act/s':>6} │ {'(a) p50':>7} {'p95':>6}"
        f" {'p99':>6} │ {'(b) p50':>7} {'p95':>6} {'p99':>6} │ {'echo/s':>6} {'(a) p99':>7}"
        f" {'(b) p99':>7} │ {'× echo p99 (a)':>14} {'(b)':>6}",
    ]
    for result in ordered:
        live, echo = summarize(result.live.runs), summarize(result.echo.runs)
        la, le = live["latency"], echo["latency"]
        lines.append(
            f"{_players(result):>7} {result.live.tables:>6,} {num(live['sent_rate'], 1):>6}"
            f" {num(live['rate'], 1):>6} │"
            f" {num(la.a[50]):>7} {num(la.a[95]):>6} {num(la.a[99]):>6} │"
            f" {num(la.b[50]):>7} {num(la.b[95]):>6} {num(la.b[99]):>6} │"
            f" {num(echo['rate'], 1):>6} {num(le.a[99], 1):>7} {num(le.b[99], 1):>7} │"
            f" {num(ratio_of(la.a[99], le.a[99]), 1):>13}×"
            f" {num(ratio_of(la.b[99], le.b[99]), 1):>5}×"
        )
    lines.append(
        "  sent/s: actions the players sent; act/s: those accepted (acked). Latencies are of "
        "the accepted ones; '—': none was accepted in the runs."
    )
    lines += ["", *cpu_lines(ordered, str(layer.get("live", "")))]
    if any(r.webs > 1 for r in ordered):
        lines.append(
            "  N (2): the same step on two daphne processes sharing the Redis layer (no proxy:"
            " each table's players split over both, so every change crosses processes); the"
            " echo likewise. daphne CPU/RSS below: both together."
        )
    lines += [
        "",
        "Timeouts, errors and delivery. Lateness: when beat's sweep applied a timeout minus the "
        "deadline the players were shown (the GameEvent's created_at), every timeout of the "
        "step pooled. Errors: refused commands, by code below. Lost: versions a client never "
        "got as an update; resyncs: snapshots asked for after a gap (§7) + after a ping showed "
        "a client behind once play stopped (a lost last update leaves no gap to see); "
        "converged: clients whose last picture is their table's final version within 30 s of "
        "the tables closing.",
        f"{'players':>7} {'timeouts':>8} {'late p50':>8} {'p95':>6} {'p99':>6} │ {'errors':>6}"
        f" {'unanswered':>10} {'lost':>5} {'resyncs':>7} {'converged':>11} │"
        f" {'echo lost':>9} {'of sent':>8}",
    ]
    for result in ordered:
        live = result.live
        late = live.lateness_ms
        unanswered = summarize(live.runs)["unanswered"]
        connected = live.players - live.not_opened
        lines.append(
            f"{_players(result):>7} {len(late):>8} {num(percentile(late, 50)):>8}"
            f" {num(percentile(late, 95)):>6} {num(percentile(late, 99)):>6} │"
            f" {sum(live.errors.values()):>6} {unanswered:>10} {live.lost:>5}"
            f" {f'{live.resyncs}+{live.late_resyncs}':>7}"
            f" {f'{live.converged}/{connected}':>11} │"
            f" {result.echo.lost:>9} {result.echo.sent:>8}"
        )
    for result in ordered:
        if result.live.errors:
            codes = ", ".join(f"{c} {n}" for c, n in result.live.errors.most_common())
            lines.append(f"  {_players(result)} players, errors: {codes}")
    if CONNECT_RETRIES:
        lines.append(
            "  handshakes retried (daphne dropped them before accepting): "
            + ", ".join(f"{kind} {n}" for kind, n in sorted(CONNECT_RETRIES.items()))
        )
    lines += [
        "",
        "Processes during the runs: CPU in % of one core / RSS in MB, medians of the runs. "
        "postgres and redis are the machine's servers, shared with any other work on it "
        "(postgres: every backend, RSS of the postmaster). machine: all cores busy, "
        "everything on the machine included.",
        f"{'players':>7} │ {'daphne':>9} {'worker':>9} {'beat':>8} {'postgres':>8} {'redis':>8}"
        f" {'load-gen':>9} {'machine':>7} │ {'echo: daphne':>12} {'redis':>5} {'load-gen':>8}"
        f" {'machine':>7}",
    ]

    def cell(s: dict[str, Any], name: str, width: int, rss: bool = True) -> str:
        text = f"{num(s['cpu'].get(name))}%"
        if rss:
            text += f"/{num(s['rss'].get(name))}"
        return text.rjust(width)

    for result in ordered:
        live, echo = summarize(result.live.runs), summarize(result.echo.runs)
        lines.append(
            f"{_players(result):>7} │ {cell(live, 'daphne', 9)} {cell(live, 'worker', 9)}"
            f" {cell(live, 'beat', 8)} {cell(live, 'postgres', 8, False)}"
            f" {cell(live, 'redis', 8)} {cell(live, 'load-gen', 9)} {num(live['machine']):>6}% │"
            f" {cell(echo, 'daphne', 12)} {cell(echo, 'redis', 5, False)}"
            f" {cell(echo, 'load-gen', 8, False)} {num(echo['machine']):>6}%"
        )
    lines += ["", "Setup of each step (not measured):"]
    for result in ordered:
        live = result.live
        lines.append(
            f"  {_players(result):>7} players: sockets open in {live.connect_seconds:.0f} s"
            f"{f' ({live.not_opened} never opened)' if live.not_opened else ''}; "
            f"{live.dealt}/{live.tables} tables dealt {live.warmup_seconds:.0f} s after the "
            f"first start; the live phase took {live.seconds:.0f} s, the echo phase "
            f"{result.echo.seconds:.0f} s"
        )
    for result in ordered:
        if result.live.probes:
            lines += ["", *saturation_lines(result, options)]
        if result.echo.searched:
            lines += ["", *echo_search_lines(result.echo, result.live.players, options)]
    lines += ["", *layer_lines(ordered, context, options)]
    for result in ordered:
        if result.live.profile is not None:
            lines += ["", *profile_lines(result.live.profile, result.live.players)]
    lines += ["", *targets(results, context)]
    return "\n".join(lines)


def idle_lines(context: dict[str, Any]) -> list[str]:
    idle = context.get("idle") or {}
    live = (context.get("layer") or {}).get("live")
    lines = []
    for name, figures in sorted(idle.items(), key=lambda item: item[0] != live):
        cpu = figures["cpu"]
        text = ", ".join(f"{k} {num(cpu.get(k), 1)}%" for k in IDLE_PROCESSES)
        stack = "the live stack" if name == live else "the other layer's echo stack"
        lines.append(
            f"Idle ({stack}, {name} layer; no table, {figures['seconds']:g} s right after it "
            f"started, before any sign-in): {text} of one core; machine "
            f"{num(figures['machine'])}% of all cores (postgres and redis: the machine's "
            "servers, shared with any other work on it)"
        )
    return lines


def cpu_lines(ordered: list[StepResult], layer: str) -> list[str]:
    lines = [
        "daphne CPU per message: its CPU-seconds in the runs ÷ the actions accepted (live) / "
        f"the messages broadcast (echo), on the same layer ({layer or '?'}); target ratio ≤ "
        f"{TARGET_CPU_RATIO:g}×",
        f"{'players':>7} │ {'live ms/action':>14} │ {'echo ms/broadcast':>17} │ {'ratio':>6}",
    ]
    for result in ordered:
        live, echo = cpu_per_message(result.live.runs), cpu_per_message(result.echo.runs)
        lines.append(
            f"{_players(result):>7} │ {num(live, 2):>14} │ {num(echo, 2):>17} │"
            f" {num(ratio_of(live, echo), 1):>5}×"
        )
    return lines


def echo_search_lines(echo: EchoPhase, players: int, options: Options) -> list[str]:
    lines = [
        f"Echo saturation search on the {players}-player sockets ({echo.layer or '?'} layer): "
        f"the rate doubled (halved) until p99 crosses {SATURATION_P99_MS:g} ms or over "
        f"{ECHO_LOST_SHARE:.0%} of frames are lost, then once between; median of "
        f"{options.saturation_runs} runs of {options.saturation_duration:g} s per rate "
        f"(at most {options.echo_max_probes} probes + 1)",
        f"{'asked/s':>8} {'msg/s':>7} {'(a) p50':>8} {'(a) p99':>8} {'(b) p99':>8} {'lost':>6}"
        f" {'daphne':>7} {'load-gen':>8} {'machine':>8}  passes",
    ]
    rows = [
        *(zip(echo.rates, (echo.runs, echo.at_saturation), strict=False)),
        *echo.probes,
    ]
    for asked, runs in sorted((row for row in rows if row[1]), key=lambda row: row[0]):
        s = summarize(runs)
        lines.append(
            f"{asked:>8.1f} {num(s['rate'], 1):>7} {num(s['latency'].a[50]):>8}"
            f" {num(s['latency'].a[99]):>8} {num(s['latency'].b[99]):>8} {s['lost']:>6}"
            f" {num(s['cpu']['daphne']):>6}% {num(s['cpu']['load-gen']):>7}%"
            f" {num(s['machine']):>7}%  {'yes' if echo_passes(runs) else 'no'}"
        )
    lines.append("Echo saturation point: " + echo_point(echo) + " msg/s")
    return lines


def echo_point(echo: EchoPhase) -> str:
    if not echo.searched:
        return "not searched"
    if echo.saturation is None:
        return f"below {echo.lowest_rate():,.1f}"
    return f"about {echo.saturation:,.1f}" + ("" if echo.saturated else " or more")


def layer_lines(ordered: list[StepResult], context: dict[str, Any], options: Options) -> list[str]:
    layer = context.get("layer") or {}
    lines = [
        "Echo by layer: the same sockets, sessions, rates and frame size on each channel "
        f"layer; the live stack's is {layer.get('live', '?')}"
        + (
            f", the other ({layer.get('other')}: {layer.get('other_backend')}) on a stack of "
            "its own started with CHANNEL_LAYER set to it"
            if layer.get("other_backend")
            else f" ({context.get('layers_skipped', 'the other layer not run')})"
        )
        + ". lost: frames of the runs' messages never received, of those expected.",
        f"{'players':>7} {'layer':<7} {'msg/s':>6} │ {'(a) p50':>7} {'p99':>6} │ {'(b) p50':>7}"
        f" {'p99':>6} │ {'lost':>12} │ {'ms/broadcast':>12} │ saturation point",
    ]
    for result in ordered:
        if result.webs != 1:
            continue
        for echo in (result.echo, result.other_echo):
            if echo is None:
                continue
            s = summarize(echo.runs)
            lat = s["latency"]
            frames = SEATS * sum(r.rate * r.span for r in echo.runs)
            mark = "*" if echo.layer == layer.get("live") else " "
            lost = f"{s['lost']}/{frames:,.0f}"
            lines.append(
                f"{_players(result):>7} {echo.layer + mark:<7} {num(s['rate'], 1):>6} │"
                f" {num(lat.a[50], 1):>7} {num(lat.a[99], 1):>6} │"
                f" {num(lat.b[50], 1):>7} {num(lat.b[99], 1):>6} │"
                f" {lost:>12} │"
                f" {num(cpu_per_message(echo.runs), 2):>12} │"
                f" {echo_point(echo) if echo.searched else ''}"
            )
    lines.append("  *: the live stack's layer (the live figures above ran on it)")
    return lines


def saturation_lines(result: StepResult, options: Options) -> list[str]:
    live = result.live
    lines = [
        f"Saturation search on the {live.players}-player tables: the think time × pace; median "
        f"of {options.saturation_runs} runs of {options.saturation_duration:g} s per pace (after "
        f"{options.settle:g} s to settle; pace 1 is the step above)",
        f"{'pace':>6} {'act/s':>6} {'(a) p50':>8} {'(a) p99':>8} {'(b) p99':>8} {'daphne':>7}"
        f" {'load-gen':>8}"
        f" {'machine':>8}  p99 < {SATURATION_P99_MS:g} ms",
    ]
    rows = sorted([(1.0, live.runs), *live.probes], key=lambda row: -row[0])
    for pace, runs in rows:
        s = summarize(runs)
        lines.append(
            f"{pace:>6g} {num(s['rate'], 1):>6} {num(s['latency'].a[50]):>8}"
            f" {num(s['latency'].a[99]):>8}"
            f" {num(s['latency'].b[99]):>8} {num(s['cpu']['daphne']):>6}%"
            f" {num(s['cpu']['load-gen']):>7}% {num(s['machine']):>7}%"
            f"  {'yes' if passes(runs) else 'no'}"
        )
    fastest = min(pace for pace, _runs in rows)
    if result.saturation_rate is None:
        lowest = min(summarize(runs)["rate"] or 0.0 for _pace, runs in rows)
        lines.append(
            f"Saturation point: below {lowest:,.1f} actions/s — p99 was over "
            f"{SATURATION_P99_MS:g} ms at every pace tried"
        )
    else:
        text = f"Saturation point: about {result.saturation_rate:,.1f} actions/s"
        if all(passes(runs) for pace, runs in rows if pace == fastest):
            text += " or more (still under the limit at the fastest pace tried)"
        lines.append(text)
        if result.echo.at_saturation:
            echo = summarize(result.echo.at_saturation)
            lines.append(
                f"  the echo at that rate: {num(echo['rate'], 1)} msg/s, p99 (a) "
                f"{num(echo['latency'].a[99], 1)} ms, (b) {num(echo['latency'].b[99], 1)} ms"
            )
    return lines


def _players(result: StepResult) -> str:
    players = f"{result.live.players:,}"
    return players if result.webs == 1 else f"{players} ({result.webs})"


def targets(results: list[StepResult], context: dict[str, Any] | None = None) -> list[str]:
    lines = ["Targets for one daphne process:"]
    results = [r for r in results if r.webs == 1]
    step = next((r for r in results if r.live.players == TARGET_PLAYERS), None)
    if step is None:
        lines.append(f"  (no {TARGET_PLAYERS}-player step in this run: latency targets not judged)")
    else:
        live = summarize(step.live.runs)["latency"]
        echo = summarize(step.echo.runs)["latency"]
        worst = live.worst_p99
        met = worst is not None and worst < TARGET_P99_MS
        lines.append(
            f"  {TARGET_PLAYERS} players at p99 under {TARGET_P99_MS:g} ms: (a) {num(live.a[99])}"
            f" ms, (b) {num(live.b[99])} ms — {'met' if met else 'MISSED'}"
        )
        ratios = [ratio_of(live.a[99], echo.a[99]), ratio_of(live.b[99], echo.b[99])]
        known = [r for r in ratios if r is not None]
        met = bool(known) and max(known) <= TARGET_ECHO_RATIO
        lines.append(
            f"  within {TARGET_ECHO_RATIO:g}× of the echo p99: (a) {num(ratios[0], 1)}×, (b)"
            f" {num(ratios[1], 1)}× — {'met' if met else 'MISSED'}"
        )
    lines.append("  " + lateness_line(results))
    lines.append("Targets for live play against the echo (ratios measured in this run):")
    lines += [verdict.line() for verdict in echo_target_verdicts(results, context or {})]
    return lines


def lateness_line(results: list[StepResult]) -> str:
    verdicts = []
    for result in sorted(results, key=lambda r: r.live.players):
        late = result.live.lateness_ms
        p99 = percentile(late, 99)
        verdict = (
            "not measured" if p99 is None else "met" if p99 <= TARGET_LATENESS_MS else "MISSED"
        )
        verdicts.append(
            f"{result.live.players:,} players {num(p99)} ms ({len(late)} timeouts) — {verdict}"
        )
    return (
        f"timeouts applied within {TARGET_LATENESS_MS / 1000:g} s of their deadlines at p99: "
        + "; ".join(verdicts)
    )


@dataclass
class Verdict:
    target: str
    measured: str
    state: str  # met, MISSED, not judged, shown, not run, measured

    def line(self) -> str:
        return f"  {self.target}: {self.measured} — {self.state}"


def _judged_step(results: list[StepResult], players: int) -> tuple[StepResult | None, str]:
    """The one-process step with `players`, else the largest one (named in the verdict)."""
    ones = [r for r in results if r.webs == 1]
    exact = next((r for r in ones if r.live.players == players), None)
    if exact is not None or not ones:
        return exact, ""
    largest = max(ones, key=lambda r: r.live.players)
    return largest, f" [no {players:,}-player step: judged at {largest.live.players:,}]"


def _met(ok: bool | None) -> str:
    return "not judged" if ok is None else "met" if ok else "MISSED"


def cpu_verdict(results: list[StepResult]) -> Verdict:
    step, note = _judged_step(results, TARGET_PLAYERS)
    target = f"daphne CPU per accepted action ≤ {TARGET_CPU_RATIO:g}× the echo's per broadcast"
    if step is None:
        return Verdict(target, "no step", "not judged")
    live, echo = cpu_per_message(step.live.runs), cpu_per_message(step.echo.runs)
    ratio = ratio_of(live, echo)
    return Verdict(
        target,
        f"{num(live, 1)} ms against {num(echo, 1)} ms = {num(ratio, 1)}×{note}",
        _met(None if ratio is None else ratio <= TARGET_CPU_RATIO),
    )


def saturation_verdict(results: list[StepResult]) -> Verdict:
    target = f"saturation point ≥ {TARGET_SATURATION_SHARE:.0%} of the echo's"
    step = next((r for r in results if r.webs == 1 and r.live.probes), None)
    if step is None or not step.echo.searched:
        return Verdict(target, "no saturation search in this run", "not judged")
    live_rows = [(1.0, step.live.runs), *step.live.probes]
    live_floor = all(passes(runs) for _p, runs in live_rows)  # never saturated
    echo_floor = not step.echo.saturated
    live, echo = step.saturation_rate, step.echo.saturation
    live_text = (
        f"below {min(summarize(r)['rate'] or 0.0 for _p, r in live_rows):,.1f}"
        if live is None
        else f"{live:,.1f}{'+' if live_floor else ''}"
    )
    echo_text = (
        f"below {step.echo.lowest_rate():,.1f}"
        if echo is None
        else f"{echo:,.1f}{'+' if echo_floor else ''}"
    )
    measured = f"{live_text} actions/s against the echo's {echo_text} msg/s"
    ok: bool | None
    if live is None:
        ok = False if echo is not None else None
    elif echo is None:
        ok = None
    else:
        share = live / echo
        measured += f" = {share:.0%}"
        if live_floor or echo_floor:
            measured += " (+: a floor, not saturated at the fastest rate tried)"
        if share >= TARGET_SATURATION_SHARE:
            ok = None if echo_floor else True
        else:
            ok = None if live_floor else False
    return Verdict(target + f" ({step.live.players:,} players)", measured, _met(ok))


def crowd_verdicts(results: list[StepResult]) -> list[Verdict]:
    step, note = _judged_step(results, TARGET_CROWD)
    if step is None:
        return [Verdict(f"{TARGET_CROWD:,} players", "no step", "not judged")]
    live = step.live
    players = f"{live.players:,} players"
    lat, echo = summarize(live.runs)["latency"], summarize(step.echo.runs)["latency"]
    ratios = [ratio_of(lat.a[99], echo.a[99]), ratio_of(lat.b[99], echo.b[99])]
    known = [r for r in ratios if r is not None]
    verdicts = [
        Verdict(
            f"{players}: p99 ≤ {TARGET_ECHO_RATIO:g}× the echo's p99",
            f"(a) {num(lat.a[99])} ms = {num(ratios[0], 1)}×, (b) {num(lat.b[99])} ms = "
            f"{num(ratios[1], 1)}× (echo {num(echo.a[99], 1)} / {num(echo.b[99], 1)} ms)" + note,
            _met(max(known) <= TARGET_ECHO_RATIO if len(known) == 2 else None),
        )
    ]
    dealt = live.dealt if live.dealt_by_end is None else live.dealt_by_end
    verdicts.append(
        Verdict(
            f"{players}: every table dealt",
            f"{dealt}/{live.tables} by the end ({live.dealt} when the runs began)",
            _met(dealt == live.tables),
        )
    )
    p99 = percentile(live.lateness_ms, 99)
    verdicts.append(
        Verdict(
            f"{players}: timeouts applied within {TARGET_LATENESS_MS / 1000:g} s at p99",
            f"{num(p99)} ms late at p99 ({len(live.lateness_ms)} timeouts)",
            _met(None if p99 is None else p99 <= TARGET_LATENESS_MS),
        )
    )
    own = {c: n for c, n in live.errors.items() if c in PLAYERS_OWN_MISTAKES}
    other = {c: n for c, n in live.errors.items() if c not in PLAYERS_OWN_MISTAKES}
    listed = ", ".join(f"{c} {n}" for c, n in sorted(other.items(), key=lambda i: -i[1]))
    verdicts.append(
        Verdict(
            f"{players}: no errors but the players' own mistakes "
            f"({', '.join(sorted(PLAYERS_OWN_MISTAKES))})",
            (f"others: {listed}" if other else "no other error")
            + (f"; own mistakes {sum(own.values())}" if own else ""),
            _met(not other),
        )
    )
    connected = live.players - live.not_opened
    verdicts.append(
        Verdict(
            f"{players}: every client converged",
            f"{live.converged}/{connected}"
            + (f" ({live.not_opened} sockets never opened)" if live.not_opened else ""),
            _met(live.converged == connected and not live.not_opened),
        )
    )
    return verdicts


def layers_verdict(results: list[StepResult], context: dict[str, Any]) -> Verdict:
    target = "the echo's own line on both layers"
    rows = []
    for result in results:
        if result.webs != 1:
            continue
        for echo in (result.echo, result.other_echo):
            if echo is not None:
                s = summarize(echo.runs)["latency"]
                rows.append(
                    f"{echo.layer or '?'} {result.live.players:,}: p99 {num(s.worst_p99, 1)} ms"
                )
    shown = any(r.other_echo is not None for r in results)
    why = context.get("layers_skipped") or "not run"
    return Verdict(target, "; ".join(rows) if rows else "no echo", "shown" if shown else why)


def idle_verdict(context: dict[str, Any]) -> Verdict:
    idle = context.get("idle") or {}
    live = idle.get(context.get("layer", {}).get("live", ""))
    if not live:
        return Verdict("idle costs nothing", "not measured", "not run")
    cpu = live["cpu"]
    text = ", ".join(f"{k} {num(cpu.get(k), 1)}%" for k in IDLE_PROCESSES)
    return Verdict(
        "idle costs nothing (no numeric target)",
        f"{text} of one core over {live['seconds']:g} s",
        "measured",
    )


def echo_target_verdicts(results: list[StepResult], context: dict[str, Any]) -> list[Verdict]:
    return [
        cpu_verdict(results),
        saturation_verdict(results),
        *crowd_verdicts(results),
        layers_verdict(results, context),
        idle_verdict(context),
    ]


def as_json(results: list[StepResult], context: dict[str, Any]) -> dict[str, Any]:
    def figures(runs: list[RunFigures]) -> dict[str, Any]:
        if not runs:
            return {}
        s = summarize(runs)
        latency = s.pop("latency")
        return {**s, "p50_a": latency.a[50], "p99_a": latency.a[99], "p99_b": latency.b[99]}

    steps = []
    for r in results:
        live = r.live
        steps.append(
            {
                "players": live.players,
                "webs": r.webs,
                "tables": live.tables,
                "not_opened": live.not_opened,
                "live": figures(live.runs),
                "echo": figures(r.echo.runs),
                "timeouts": len(live.lateness_ms),
                "lateness_p99": percentile(live.lateness_ms, 99),
                "errors": dict(live.errors),
                "lost": live.lost,
                "resyncs": live.resyncs,
                "late_resyncs": live.late_resyncs,
                "converged": live.converged,
                "echo_lost": r.echo.lost,
                "echo_sent": r.echo.sent,
                "probes": [{"pace": p, **figures(runs)} for p, runs in live.probes],
                "saturation_rate": r.saturation_rate,
                "dealt": live.dealt,
                "dealt_by_end": live.dealt_by_end,
                "cpu_per_action_ms": cpu_per_message(live.runs),
                "echo_cpu_per_broadcast_ms": cpu_per_message(r.echo.runs),
                "cpu_ratio": ratio_of(cpu_per_message(live.runs), cpu_per_message(r.echo.runs)),
                "echo_by_layer": [
                    echo_json(echo) for echo in (r.echo, r.other_echo) if echo is not None
                ],
                "profile": profile_json(live.profile),
            }
        )
    return {
        "context": context,
        "steps": steps,
        "connect_retries": dict(CONNECT_RETRIES),
        "targets": [vars(v) for v in echo_target_verdicts(results, context)],
    }


def echo_json(echo: EchoPhase) -> dict[str, Any]:
    s = summarize(echo.runs)
    latency = s["latency"]
    return {
        "layer": echo.layer,
        "rate": s["rate"],
        "p50_a": latency.a[50],
        "p99_a": latency.a[99],
        "p50_b": latency.b[50],
        "p99_b": latency.b[99],
        "lost": s["lost"],
        "frames": SEATS * sum(r.rate * r.span for r in echo.runs),
        "cpu_per_broadcast_ms": cpu_per_message(echo.runs),
        "probes": [
            {
                "asked": rate,
                **{k: v for k, v in summarize(runs).items() if k != "latency"},
                "p99": summarize(runs)["latency"].worst_p99,
                "passes": echo_passes(runs),
            }
            for rate, runs in echo.probes
        ],
        "saturation_rate": echo.saturation if echo.searched else None,
        "saturated": echo.saturated if echo.searched else None,
    }


def profile_json(profile: Profile | None) -> dict[str, Any] | None:
    if profile is None:
        return None
    per_action = cpu_per_message([profile.run]) if profile.run else None
    return {
        "path": str(profile.path),
        "rate": profile.rate,
        "samples": profile.total,
        "error": profile.error,
        "cpu_per_action_ms": per_action,
        "categories": {
            name: {
                "samples": count,
                "share": count / profile.total,
                "ms_per_action": None if per_action is None else per_action * count / profile.total,
            }
            for name, count in profile.samples.most_common()
        },
    }
