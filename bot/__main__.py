"""`python -m bot`: play a table as the reference bot (bot/README.md)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from bot.frames import DEFAULT_SPEC_DIR, Spec
from bot.lobby import LobbyRefused, find_table, open_table
from bot.player import Bot, BotStopped, Options
from bot.transport import WebTransport

VARIANTS = ("classic", "salon", "solo", "banker36", "blackjack")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bot",
        description="The reference bot: plays one game of a Twenty-One table over the "
        "public protocol (docs/asyncapi.yaml, docs/openapi.yaml).",
    )
    p.add_argument(
        "--server",
        default=os.environ.get("BOT_SERVER", "http://127.0.0.1:8000"),
        help="the site's address (default: $BOT_SERVER or http://127.0.0.1:8000)",
    )
    p.add_argument(
        "--token",
        default=os.environ.get("BOT_TOKEN"),
        help="a personal access token with the scopes read and play (default: $BOT_TOKEN)",
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", type=int, help="the id of the table to play")
    where.add_argument("--open", choices=VARIANTS, help="open a table of this variant and play it")
    where.add_argument("--join", choices=VARIANTS, help="sit at a listed table of this variant")
    p.add_argument(
        "--rounds",
        type=int,
        default=10,
        help="blackjack and solo: rounds to play before ending the game (0: to its end)",
    )
    p.add_argument(
        "--ai",
        type=int,
        default=0,
        help="classic, blackjack: AI seats to add to a table the bot hosts",
    )
    p.add_argument("--ai-level", default="hard", choices=("easy", "medium", "hard"))
    p.add_argument("--seats", type=int, help="--open: the table's seat_count")
    p.add_argument(
        "--decision-seconds", type=int, help="--open: the table's decision clock (5-120)"
    )
    p.add_argument(
        "--bots-allowed",
        action="store_true",
        help="--open: let bot accounts sit (salon and banker36 keep them out by default)",
    )
    p.add_argument(
        "--spec",
        type=Path,
        default=DEFAULT_SPEC_DIR,
        help="the directory of asyncapi.yaml and openapi.yaml (default: this checkout's docs/)",
    )
    p.add_argument("--quiet", action="store_true", help="print only the outcome")
    return p


async def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.token:
        print("a token is needed: --token or $BOT_TOKEN (bot/README.md)", file=sys.stderr)
        return 2
    spec = Spec.load(args.spec)
    transport = WebTransport(args.server, args.token)
    try:
        if args.open:
            table = await open_table(
                transport,
                args.open,
                seat_count=args.seats,
                decision_seconds=args.decision_seconds,
                bots_allowed=True if args.bots_allowed else None,
                spec=spec,
            )
            print(f"opened table {table}: {args.server}/tables/{table}/")
        elif args.join:
            table = await find_table(transport, args.join, spec=spec)
            print(f"joining table {table}")
        else:
            table = args.table
        bot = Bot(
            transport,
            table,
            Options(rounds=args.rounds, ai=args.ai, ai_level=args.ai_level, spec=spec),
            log=None if args.quiet else print,
        )
        outcome = await bot.run()
    except (BotStopped, LobbyRefused) as stopped:
        print(f"stopped: {stopped}", file=sys.stderr)
        return 1
    print(
        f"table {outcome.table} ({outcome.variant}): seat {outcome.seat}, game "
        f"{outcome.game} {outcome.status}, {outcome.rounds} rounds settled, "
        f"{outcome.commands} commands, {outcome.reconnections} reconnections, fairness "
        + {True: "checked", False: "FAILED", None: "not checked"}[outcome.fair]
    )
    return 0 if outcome.fair is not False else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
