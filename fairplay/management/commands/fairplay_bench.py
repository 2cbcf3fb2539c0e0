"""`make bench-fairplay`: the fair-play detector measured on a simulated population
(fairplay.simulation). It writes players, tables and games: run it on a database of its
own (the Makefile target makes a throwaway SQLite one)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from fairplay.simulation import VARIANTS, simulate


class Command(BaseCommand):
    help = "Simulate honest players and rings (banker36 or salon); measure the fair-play detector."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--honest", type=int, default=24, help="honest players")
        parser.add_argument("--dumping", type=int, default=4, help="rings that dump")
        parser.add_argument("--soft", type=int, default=2, help="rings that soft-play")
        parser.add_argument("--sessions", type=int, default=6)
        parser.add_argument("--ring-banks", type=int, default=12, help="banks per ring a session")
        parser.add_argument("--seed", default="fairplay")
        parser.add_argument("--prefix", default="sim", help="the simulated players' name prefix")
        parser.add_argument("--variant", choices=VARIANTS, default="banker36")

    def handle(self, *args: Any, **options: Any) -> None:
        outcome = simulate(
            honest=options["honest"],
            dumping=options["dumping"],
            soft=options["soft"],
            sessions=options["sessions"],
            ring_banks=options["ring_banks"],
            seed=options["seed"],
            prefix=options["prefix"],
            report=self.stdout.write,
            variant=options["variant"],
        )
        for ring in outcome.rings:
            self.stdout.write(
                f"ring {ring.number} ({ring.style}): "
                + (
                    f"flagged after {ring.flagged_after} of the ring's decisions "
                    f"({ring.toward_bank} toward the bank)"
                    if ring.flagged_after is not None
                    else "not flagged"
                )
            )
        soft = [r for r in outcome.rings if r.style == "soft"]
        self.stdout.write(
            f"decisions reviewed {outcome.decisions}; honest ordered pairs "
            f"{outcome.honest_pairs}, flagged {outcome.honest_flagged}; soft-play rings "
            f"flagged {sum(r.flagged_after is not None for r in soft)}/{len(soft)}"
        )
        self.stdout.write(outcome.summary())
