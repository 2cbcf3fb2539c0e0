"""A measured detector (issue 32, item 4): a population plays `banker36` or `salon`
through the real services — honest players at the AI levels, and rings in which one
player feeds a partner's bank — and the detector (reviews, leaks, the z-test) is run as
play goes on. A `salon` game is one shoe, its bank held by one seat (the next game's by
the next): "banks" below are games at either table.

Rings:
* **dump** — when the partner holds the bank, the feeder takes the option the coach
  values least (`games.strategy.review.assess`: the deliberate bad decision), and plays
  its level otherwise;
* **soft** — when the partner holds the bank, the feeder risks nothing: the smallest bet,
  and no card drawn (it stands at once), and plays its level otherwise.

Play goes in sessions: each ring's pair at a table of its own (a ring's table: the feeder
plays the partner's bank every other bank), the honest players three (or two) to a table
drawn afresh each session (so honest pairs meet many partners); each table plays
BANKS_PER_SEAT banks per seat, so that the bank goes round. After every
session the decisions are reviewed and the detector runs; a ring's "decisions until
flagged" is the feeder's decisions toward the partner's bank when its pair was first
flagged. Rings are not linked by sign-in traces here: the detector is measured on its
own, as for a ring that signs in from two homes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.test import override_settings

from accounts.models import LedgerEntry
from accounts.services import chips_transfer, grants_account, wallet_for
from fairplay.flows import flows_record
from fairplay.leak import leaks_record, pair_leaks, reviews_settled
from fairplay.models import Leak
from games import ai, engine
from games.strategy.review import assess
from insights.models import Decision
from insights.reviews import game_review
from play.models import Game
from play.services import closing, moves, seating
from tables import services
from tables.models import Table

VARIANTS = ("banker36", "salon")
# The tables' limits: banker36's stake of 10; salon's bets of 10 to 100.
TABLE_FIELDS: dict[str, dict[str, int]] = {
    "banker36": {"stake": 10, "entry_limit": 100},
    "salon": {"min_bet": 10, "max_bet": 100, "entry_limit": 100},
}
# A wallet below this is topped up from the grants account between sessions, so that a
# feeder who lost its chips keeps playing (a ring refills its feeders the same way).
TOP_UP_BELOW, TOP_UP_TO = 2_000, 10_000
HONEST_PER_TABLE = 3
# Banks a table plays per session, per seat: the bank goes round this many times.
BANKS_PER_SEAT = 2
MOVES_PER_GAME = 5_000  # a bank that has not ended after this many is a bug


@dataclass
class Member:
    user: Any
    level: str  # games.ai level played whenever not feeding
    ring: int | None = None
    style: str = ""  # "dump" or "soft" for a feeder
    partner_id: int | None = None  # the bank a feeder feeds


@dataclass
class Ring:
    number: int
    style: str
    feeder_id: int
    bank_id: int
    flagged_after: int | None = None  # the ring's decisions (both players') when flagged
    toward_bank: int = 0  # of which the feeder's toward the partner's bank


@dataclass
class Outcome:
    rings: list[Ring]
    honest_pairs: int
    honest_flagged: int
    flagged_pairs: int
    ring_pairs_flagged: int
    decisions: int
    sessions: int
    lines: list[str] = field(default_factory=list)

    def dumping(self) -> list[Ring]:
        return [ring for ring in self.rings if ring.style == "dump"]

    @property
    def recall(self) -> float:
        rings = self.dumping()
        return sum(r.flagged_after is not None for r in rings) / len(rings) if rings else 0.0

    @property
    def precision(self) -> float:
        return self.ring_pairs_flagged / self.flagged_pairs if self.flagged_pairs else 1.0

    @property
    def false_positive_rate(self) -> float:
        return self.honest_flagged / self.honest_pairs if self.honest_pairs else 0.0

    def summary(self) -> str:
        dumping = self.dumping()
        flagged = [r for r in dumping if r.flagged_after is not None]
        until = max((r.flagged_after or 0) for r in flagged) if flagged else 0
        return (
            f"rings flagged {len(flagged)}/{len(dumping)}, decisions until flagged "
            f"{until} (max), recall {self.recall:.2f}, precision {self.precision:.2f}, "
            f"false-positive rate {self.false_positive_rate:.4f}"
        )


def _move_of(option: Any) -> dict[str, Any]:
    move: dict[str, Any] = {"action": option.action}
    if option.amount is not None:
        move["amount"] = option.amount
    return move


def _soft(legal: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Risk nothing: the smallest bet, and stand at once; None where neither is offered
    (a cut: the member's level plays it)."""
    by_name = {a["action"]: a for a in legal}
    if "bet" in by_name and by_name["bet"].get("amounts"):
        return {"action": "bet", "amount": min(by_name["bet"]["amounts"])}
    if "bet" in by_name and "min" in by_name["bet"]:  # salon: any amount from the minimum
        return {"action": "bet", "amount": by_name["bet"]["min"]}
    if "stand" in by_name:
        return {"action": "stand"}
    return None


def decide(member: Member, state: Mapping[str, Any], seat: str, bank_user: int | None) -> Any:
    """The member's action for `seat` on turn, from the seat's view and legal actions."""
    variant = state["variant"]
    view = engine.view(state, seat)
    turn = engine.legal_actions(state)
    assert turn is not None and turn["seat"] == seat
    legal = turn["actions"]
    feeding = member.partner_id is not None and member.partner_id == bank_user
    if feeding and member.style == "dump":
        assessment = assess(variant, view)
        if assessment is not None:
            return _move_of(min(assessment.options, key=lambda option: option.value))
    if feeding and member.style == "soft":
        soft = _soft(legal)
        if soft is not None:
            return soft
    move = dict(ai.choose_action(variant, member.level, view, legal))
    move.pop("seat", None)
    return move


def _top_up(members: Sequence[Member]) -> None:
    grants = grants_account()
    for member in members:
        wallet = wallet_for(member.user)
        if wallet.balance < TOP_UP_BELOW:
            chips_transfer(
                source=grants,
                destination=wallet,
                amount=TOP_UP_TO - wallet.balance,
                reason=LedgerEntry.Reason.ADMIN_GRANT,
                idempotency_key=f"fairplay-sim:top-up:{member.user.pk}:{wallet.balance}:"
                f"{LedgerEntry.objects.count()}",
                memo="fair-play simulation",
            )


def _play_table(
    table: Table,
    members: dict[int, Member],
    games: int,
    look: Callable[[], None] | None = None,
) -> None:
    """`games` banks at the table, every decision through live play's services; each bank
    reviewed as it ends (as insights does on `game_ended`). `look` runs the detector
    after every settlement (a duel, a deal) and at each bank's end, as a scan that comes
    while a long game goes on reads its settled part (fairplay.leak.reviews_settled)."""
    host = table.created_by
    for _ in range(games):
        game = moves.game_start(table=table, by=host)
        if game is None:
            game = Game.objects.filter(table=table, status=Game.Status.PLAYING).first()
        if game is None:
            return
        number = game.number
        settled = len(game.state["rounds"])
        for _step in range(MOVES_PER_GAME):
            game = Game.objects.get(table=table, number=number)
            if game.status != Game.Status.PLAYING:
                break
            if look is not None and len(game.state["rounds"]) > settled:
                settled = len(game.state["rounds"])
                look()
            turn = engine.legal_actions(game.state)
            if turn is None:
                break
            users = {p["id"]: p.get("user") for p in game.players}
            seat = turn["seat"]
            member = members[users[seat]]
            move = decide(member, game.state, seat, users.get(game.state.get("banker")))
            moves.game_act(table=table, player=member.user, action=move, version=None)
        else:  # pragma: no cover - a bank always ends
            raise AssertionError(f"game {game.pk} did not end")
        game_review(Game.objects.get(table=table, number=number))
        if look is not None:
            look()


def _table_for(members: Sequence[Member], name: str, variant: str) -> Table:
    table = services.table_create(
        variant=variant, name=name, created_by=members[0].user, **TABLE_FIELDS[variant]
    )
    for member in members:
        seating.seat_take(table=table, player=member.user)
    return table


def _close(table: Table) -> None:
    closing.table_close(table=table)


def _look(rings: Sequence[Ring]) -> None:
    """Run the detector; note each ring's decisions (the feeder's and the bank's, all of
    them) when its pair is first flagged."""
    reviews_settled()
    leaks_record()
    flows_record()
    flagged = {(p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged}
    for ring in rings:
        if ring.flagged_after is None and (ring.feeder_id, ring.bank_id) in flagged:
            ring.flagged_after = Decision.objects.filter(
                user_id__in=(ring.feeder_id, ring.bank_id)
            ).count()
            ring.toward_bank = Leak.objects.filter(
                giver_id=ring.feeder_id, taker_id=ring.bank_id
            ).count()


def simulate(
    *,
    honest: int,
    dumping: int,
    soft: int,
    sessions: int,
    ring_banks: int = 12,
    seed: str = "fairplay",
    prefix: str = "sim",
    report: Callable[[str], None] | None = None,
    variant: str = "banker36",
) -> Outcome:
    """Make the population, play `sessions` sessions of `variant` — each ring's table
    `ring_banks` banks a session (a ring plays together often) — and measure the
    detector."""
    rng = random.Random(seed)
    User = get_user_model()
    levels = ai.LEVELS[variant]
    make = lambda name: User.objects.create_user(  # noqa: E731
        username=f"{prefix}_{name}", password=None, email=f"{prefix}_{name}@example.com"
    )
    honest_members = [Member(make(f"h{i}"), levels[i % len(levels)]) for i in range(honest)]
    rings: list[Ring] = []
    ring_members: list[tuple[Member, Member]] = []
    for number, style in enumerate(["dump"] * dumping + ["soft"] * soft, start=1):
        bank = Member(make(f"r{number}bank"), rng.choice(levels), ring=number)
        feeder = Member(
            make(f"r{number}{style}"),
            rng.choice(levels),
            ring=number,
            style=style,
            partner_id=bank.user.pk,
        )
        ring_members.append((feeder, bank))
        rings.append(Ring(number, style, feeder.user.pk, bank.user.pk))
    everyone = honest_members + [m for pair in ring_members for m in pair]
    by_user = {m.user.pk: m for m in everyone}
    ring_ids = {m.user.pk for pair in ring_members for m in pair}
    lines: list[str] = []
    say = report or (lambda line: None)
    with override_settings(CLIENT_SEED_SECONDS=0, GAME_INTERLUDE_SECONDS=0):
        for session in range(1, sessions + 1):
            _top_up(everyone)
            pool = honest_members[:]
            rng.shuffle(pool)
            groups = [[feeder, bank] for feeder, bank in ring_members]
            while len(pool) >= 2:
                size = HONEST_PER_TABLE if len(pool) != HONEST_PER_TABLE + 1 else 2
                groups.append([pool.pop() for _ in range(min(size, len(pool)))])
            for index, group in enumerate(groups):
                table = _table_for(group, f"sim {session}.{index}", variant)
                ring_table = group[0].ring is not None
                _play_table(
                    table,
                    by_user,
                    games=ring_banks if ring_table else BANKS_PER_SEAT * len(group),
                    # A ring's table is looked at after every settlement, so that "decisions
                    # until flagged" is counted to the duel or deal, not to the session.
                    look=(lambda: _look(rings)) if ring_table else None,
                )
                _close(table)
            _look(rings)
            line = f"session {session}: " + ", ".join(
                f"ring {r.number} ({r.style}) "
                + (
                    f"flagged after {r.flagged_after} decisions ({r.toward_bank} toward the bank)"
                    if r.flagged_after
                    else "not flagged"
                )
                for r in rings
            )
            lines.append(line)
            say(line)
    pairs = pair_leaks()
    honest_pairs = [p for p in pairs if p.giver_id not in ring_ids and p.taker_id not in ring_ids]
    ring_pairs = {(r.feeder_id, r.bank_id) for r in rings}
    flagged = [p for p in pairs if p.flagged]
    return Outcome(
        rings=rings,
        honest_pairs=len(honest_pairs),
        honest_flagged=sum(p.flagged for p in honest_pairs),
        flagged_pairs=len(flagged),
        ring_pairs_flagged=sum((p.giver_id, p.taker_id) in ring_pairs for p in flagged),
        decisions=Leak.objects.count(),
        sessions=sessions,
        lines=lines,
    )
