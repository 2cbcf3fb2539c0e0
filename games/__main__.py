"""Command line: `python -m games replay FILE|-`, `deal`, `strategy`, `simulate`.

Benchmarks need a clock, which the engine never reads: they live in `benchmarks/`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from games import engine
from games.record import replay_text
from games.shuffle import commitment, shuffled

_DECK_OF = {
    "classic": ("standard52", 1),
    "salon": ("standard52", 2),
    "solo": ("russian36", 1),
    "banker36": ("russian36", 1),
    "blackjack": ("standard52", 6),
}


def _replay(args: argparse.Namespace) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            print(
                json.dumps(
                    {"error": {"code": "bad_record", "message": str(error), "action_index": None}}
                )
            )
            return 1
    output, status = replay_text(text)
    print(json.dumps(output, ensure_ascii=False, indent=2))
    return status


def _deal(args: argparse.Namespace) -> int:
    from games.cards import shoe

    kind, copies = _DECK_OF[args.variant]
    order = shuffled(shoe(kind, copies), args.seed, args.shuffle)
    print(f"variant: {args.variant}  deck: {kind} x{copies}  shuffle: {args.shuffle}")
    print(f"commitment: sha256(seed) = {commitment(args.seed)}")
    print(" ".join(order))
    return 0


def _strategy(args: argparse.Namespace) -> int:
    from games.strategy import main_strategy

    print(main_strategy(args.variant))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from games.simulation import format_simulation, simulate

    if args.rounds < 1:
        print("--rounds must be at least 1", file=sys.stderr)
        return 2
    try:
        outcome = simulate(
            variant=args.variant,
            level=args.ai,
            rounds=args.rounds,
            seed=args.seed,
            workers=args.workers,
        )
    except ValueError as error:
        print(f"simulate: {error}", file=sys.stderr)
        return 2
    print(format_simulation(outcome))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    replay = commands.add_parser("replay", help="replay a hand record (JSON) and print it")
    replay.add_argument("file", help="the record's file, or - for standard input")
    replay.set_defaults(run=_replay)

    deal = commands.add_parser("deal", help="print the order a seed gives a variant's stock")
    deal.add_argument("--variant", required=True, choices=engine.VARIANT_KEYS)
    deal.add_argument("--seed", required=True)
    deal.add_argument(
        "--shuffle", type=int, default=0, help="which shuffle of the record (0 = the first)"
    )
    deal.set_defaults(run=_deal)

    strategy = commands.add_parser(
        "strategy", help="print a variant's computed optimal chart and expected return"
    )
    strategy.add_argument("--variant", required=True, choices=("blackjack", "classic", "banker36"))
    strategy.set_defaults(run=_strategy)

    simulate = commands.add_parser(
        "simulate", help="play N rounds with AI seats through the engine; mean and 95%% CI"
    )
    simulate.add_argument("--variant", required=True, choices=engine.VARIANT_KEYS)
    simulate.add_argument("--ai", required=True, help="the AI level (e.g. easy, medium, hard)")
    simulate.add_argument("--rounds", type=int, required=True)
    simulate.add_argument("--seed", required=True)
    simulate.add_argument(
        "--workers", type=int, default=None, help="processes to use (default: every core)"
    )
    simulate.set_defaults(run=_simulate)

    args = parser.parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
