"""`python -m benchmarks.live` (`make bench-live`): sets the benchmark up, runs its steps
on one stack after another and prints the report (and writes it as JSON with `--json`).

The order: a database of its own created and migrated, the Redis database flushed, the
players created; the live stack started on the channel layer its settings give, its idle
CPU measured, every player signed in once; the steps (live tables, then the echo at the
same rate); the two-process step on a stack of two daphne processes; the echo again on a
stack started on the other channel layer. Whatever happens, the processes are stopped,
the database dropped (unless `--keep`) and the Redis database flushed on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.live.load import create_players, sign_in_all
from benchmarks.live.options import log, parse_options
from benchmarks.live.report import as_json, report
from benchmarks.live.stack import (
    OTHER_LAYER,
    Stack,
    flush_redis,
    measure_idle,
    migrate,
    process_env,
    recreate_database,
    server_layer,
    setup_django,
)
from benchmarks.live.steps import bench, other_layer_echo, run_step
from benchmarks.live.usage import load_average


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    # A bench stopped with SIGTERM (kill, a CI timeout) stops its daphne, worker and beat
    # on the way out, as after Ctrl+C: left running, a beat would go on sending sweeps
    # into the Redis database the next run measures.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    context: dict[str, Any] = {"cores": os.cpu_count(), "load_before": load_average()}
    env = process_env(options)
    began = time.monotonic()
    logs = Path(tempfile.mkdtemp(prefix="bench-live-"))
    log(f"bench-live: database {options.database}, Redis {options.redis_url}, logs in {logs}")
    recreate_database(options.pg_url, options.database)
    stack: Stack | None = None
    try:
        flush_redis(options.redis_url)
        migrate(env)
        setup_django(env)
        names = create_players(options.max_players)
        # The live stack runs on whatever the settings give (no CHANNEL_LAYER set here):
        # read back from them, as the servers will read it.
        found = server_layer(env)
        layer = found["layer"] or ("pubsub" if "PubSub" in str(found["backend"]) else "core")
        other = OTHER_LAYER[layer] if found["layer"] is not None else None
        context["layer"] = {"live": layer, "backend": found["backend"], "other": other}
        log(f"channel layer of the live stack: {layer} ({found['backend']})")
        context["idle"] = {}
        stack = Stack(env, logs)
        stack.start()
        if options.idle > 0:
            context["idle"][layer] = measure_idle(stack, options.idle)
        started = time.monotonic()
        cookies = sign_in_all(stack.port, names)
        log(
            f"setup: {len(names)} players signed in through /login/ in "
            f"{time.monotonic() - started:.0f} s ({time.monotonic() - began:.0f} s since start)"
        )
        results = asyncio.run(bench(options, stack, cookies, names, layer=layer, logs=logs))
        if options.two_webs:
            # The same stack with two web processes on one Redis layer (docs/deployment.md).
            stack.stop()
            stack = Stack(env, logs, webs=2)
            stack.start()
            log(f"step: {options.two_webs} players on two daphne processes")
            players = names[: options.two_webs]
            results.append(
                asyncio.run(run_step(stack, cookies, players, options, search=False, layer=layer))
            )
        if options.layers == "live":
            context["layers_skipped"] = "not run (--layers live)"
        elif other is None:
            context["layers_skipped"] = "not run (these settings have no CHANNEL_LAYER)"
        else:
            # The echo alone on the other layer: a stack of its own, the same sessions.
            stack.stop()
            other_env = {**env, "CHANNEL_LAYER": other}
            context["layer"]["other_backend"] = server_layer(other_env)["backend"]
            stack = Stack(other_env, logs)
            stack.start()
            if options.idle > 0:
                context["idle"][other] = measure_idle(stack, options.idle)
            asyncio.run(other_layer_echo(stack, cookies, names, options, results, other))
        context["load_after"] = load_average()
        context["seconds"] = round(time.monotonic() - began)
        print(report(results, options, context))
        print(f"(whole run: {context['seconds']} s)")
        if options.json_path:
            Path(options.json_path).write_text(json.dumps(as_json(results, context), default=str))
        return 0
    except BaseException:
        if stack is not None:
            for service in stack.services:
                log(f"----- {service.name} log (tail) -----\n{service.log_text()[-4000:]}")
        raise
    finally:
        if stack is not None:
            stack.stop()
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        if not options.keep:
            with contextlib.suppress(Exception):
                recreate_database(options.pg_url, options.database, drop_only=True)
        with contextlib.suppress(Exception):
            flush_redis(options.redis_url)


if __name__ == "__main__":
    sys.exit(main())
