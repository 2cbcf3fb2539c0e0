"""Command line: `python -m games replay FILE|-`, `deal`, `strategy`, `simulate`, `review-ai`.

Benchmarks need a clock, which the engine never reads: they live in `benchmarks/`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from games import engine
from games.record import replay_text
from games.shuffle import shuffled

_DECK_OF = {
    "classic": ("standard52", 1),
    "salon": ("standard52", 2),
    "solo": ("russian36", 1),
    "banker36": ("russian36", 1),
    "blackjack": ("standard52", 6),
}
# `verify`'s exit statuses (docs/fairness.md, «Check it yourself»); `deal` and the other
# commands also refuse bad input with BAD_INPUT.
VERIFIED, NOT_VERIFIED, BAD_INPUT, NOT_YET = 0, 1, 2, 3


def _replay(args: argparse.Namespace) -> int:
    try:
        text = _read(args.file)
    except _Unreadable as error:
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
    from games.fairness import SERVER_SEED

    if not SERVER_SEED.fullmatch(args.seed):
        return _refuse(
            "deal",
            "--seed is a record's seed: 64 lowercase hex characters (docs/fairness.md)",
        )
    if args.shuffle < 0:
        return _refuse("deal", "--shuffle is a shuffle's number: 0 or more")
    kind, copies = _DECK_OF[args.variant]
    order = shuffled(shoe(kind, copies), args.seed, args.shuffle)
    print(f"variant: {args.variant}  deck: {kind} x{copies}  shuffle: {args.shuffle}")
    print(" ".join(order))
    return 0


def _refuse(command: str, message: str) -> int:
    print(f"{command}: {message}", file=sys.stderr)
    return BAD_INPUT


def _verify(args: argparse.Namespace) -> int:
    """Each check of a record's fairness, in plain words, then its replay. A record whose
    server seed is not revealed yet (its game is in play) cannot be verified: it is not
    replayed, and the status is NOT_YET — unless it shows it is not in play (a seed, a
    result, a status other than playing), which is a failed check (NOT_VERIFIED)."""
    from games import fairness
    from games.record import ReplayError, replay

    try:
        text = _read(args.file)
    except _Unreadable as error:
        return _refuse("verify", str(error))
    try:
        record = json.loads(text)
    except ValueError as error:
        return _refuse("verify", f"the record is not valid JSON: {error}")
    if not isinstance(record, dict) or "fairness" not in record:
        return _refuse("verify", 'the record has no "fairness" object to verify')
    checks = fairness.checks(record["fairness"], record.get("seed"), record.get("variant"))
    waiting = any(passed is None for _words, passed in checks)
    tampered = fairness.in_play_check(record) if waiting else None
    if tampered is not None:
        # Not "not revealed yet": it was revealed and taken out. The failed check takes
        # the place of the wait line, and a seed nobody can check is not replayed.
        checks = [check for check in checks if check[1] is not None] + [tampered]
    dealt = fairness.deck_check(record) if not waiting else None
    if dealt is not None:
        checks.append(dealt)
    if not waiting:
        try:
            replayed = replay(record)
            checks.append(("the record replays from its seed and actions", True))
            stored = record.get("result")
            if stored is not None:
                same = {k: v for k, v in replayed["result"].items()} == stored
                checks.append(("the replay reproduces the stored result", same))
        except ReplayError as error:
            checks.append(
                (f"the record replays: {error.error['code']}: {error.error['message']}", False)
            )
    for words, passed in checks:
        print(f"{_MARK[passed]}  {words}")
    if any(passed is False for _words, passed in checks):
        print("NOT verified")
        return NOT_VERIFIED
    if waiting:
        print("not verifiable yet: the server seed is revealed when the record is over")
        return NOT_YET
    print("verified: every check passed")
    return VERIFIED


_MARK = {True: "ok  ", False: "FAIL", None: "wait"}


class _Unreadable(Exception):
    """A record's file that cannot be read as text; the message says why."""


def _read(name: str) -> str:
    """The text of the file `name` (standard input for "-"), read as UTF-8."""
    where = "standard input" if name == "-" else name
    try:
        if name == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as handle:
                data = handle.read()
    except OSError as error:
        raise _Unreadable(f"cannot read {where}: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _Unreadable(
            f"{where} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


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


def _review_ai(args: argparse.Namespace) -> int:
    from games.strategy.ai_review import LEVELS, format_review_ai, review_levels

    if args.rounds < 1:
        print("--rounds must be at least 1", file=sys.stderr)
        return 2
    levels = None
    if args.levels is not None:
        levels = [level.strip() for level in args.levels.split(",") if level.strip()]
        unknown = [level for level in levels if level not in LEVELS[args.variant]]
        if not levels or unknown:
            return _refuse(
                "review-ai",
                f"--levels: {', '.join(unknown) or 'none given'}; the {args.variant} levels "
                f"are: {', '.join(LEVELS[args.variant])}",
            )
    try:
        results = review_levels(
            args.variant, levels, rounds=args.rounds, seed=args.seed, workers=args.workers
        )
    except ValueError as error:
        return _refuse("review-ai", str(error))
    print(format_review_ai(results))
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

    verify = commands.add_parser(
        "verify",
        help="check a hand record's fairness (commitment, seed, replay) in plain words; "
        "exit 0 verified, 1 NOT verified, 2 bad input, 3 not verifiable yet (game in play)",
    )
    verify.add_argument("file", help="the record's file, or - for standard input")
    verify.set_defaults(run=_verify)

    strategy = commands.add_parser(
        "strategy", help="print a variant's computed optimal chart and expected return"
    )
    strategy.add_argument(
        "--variant", required=True, choices=("blackjack", "classic", "banker36", "solo", "salon")
    )
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

    review_ai = commands.add_parser(
        "review-ai",
        help="play N rounds per AI level on the same deals and review every AI decision: "
        "accuracy and value lost per 100 decisions",
    )
    review_ai.add_argument(
        "--variant", required=True, choices=("blackjack", "classic", "banker36", "solo")
    )
    review_ai.add_argument(
        "--levels", default=None, help="comma-separated AI levels (default: every level)"
    )
    review_ai.add_argument(
        "--rounds", type=int, required=True, help="rounds per level (banker36: banks)"
    )
    review_ai.add_argument("--seed", required=True)
    review_ai.add_argument(
        "--workers", type=int, default=None, help="processes to use (default: every core)"
    )
    review_ai.set_defaults(run=_review_ai)

    arguments = list(sys.argv[1:] if argv is None else argv)
    for argument in arguments:
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8 reach Python as surrogates
            return _refuse("python -m games", f"an argument is not UTF-8 text: {argument!r}")
    args = parser.parse_args(arguments)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
