"""Property tests of the live tables: random interleavings of everything that can happen
at a table, played through the services, with the ledger and the records checked after
every step.

Each Hypothesis example plays one table from its first seat to a random end: legal moves
of the seat on turn (fresh, resent, refused-then-reused client ids, with or without the
expected version), timeouts swept at the deadline, moves with a stale version, moves by
the wrong player, connections opening and closing (the reconnect grace), players standing
up and sitting down, pauses and resumes, a blackjack player ending the session, and the
host closing the table mid-game.

Each example runs inside its own transaction, rolled back at its end, so examples do not
see each other's tables, users or chips. Turn deadlines are real timestamps: a timeout is
a sweep with `now` just past the deadline, and before every step a sweep at the real time
plays what is already due (a seat that stood up), as the ticker would.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone
from hypothesis import HealthCheck, event, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from accounts.models import Account
from accounts.services import GRANTS_ACCOUNT_CODE, chips_adjust, wallet_for
from games import engine
from games.record import replay
from play.clock import sweep
from play.models import ClientCommand, Game, GameEvent
from play.services import closing, commands, errors, lifecycle, moves, presence, records, seating
from tables import services
from tables.models import Seat, Table
from tests.conftest import examples

MS = datetime.timedelta(milliseconds=1)

# variant: (table fields, human seats, AI seats, wallet range set before play or None)
TABLES: dict[str, tuple[dict[str, Any], int, list[str], tuple[int, int] | None]] = {
    "banker36": ({"stake": 10, "entry_limit": 100, "seat_count": 4}, 3, [], (100, 400)),
    "salon": (
        {"min_bet": 10, "max_bet": 100, "entry_limit": 10, "seat_count": 4},
        3,
        [],
        (10, 300),
    ),
    "blackjack": ({"seat_count": 4}, 1, ["easy", "hard"], None),
    "classic": ({"match_length": 5, "seat_count": 4}, 2, ["easy"], None),
    # One player against the game's own banker, for the game's coins: no clock.
    "solo": ({}, 1, [], None),
}

NAMES = ["ulla", "bo", "kim"]
TABLE_ID = 900_001

# Step kinds, repeated by weight.
STEPS = (
    ["move"] * 8
    + ["timeout"] * 4
    + ["resend"] * 2
    + ["join"] * 2
    + ["leave"] * 3
    + ["stale", "wrong_player", "stand", "sit", "ready"]
    + ["pause", "resume", "close"]
)

# Steps added for one variant, and how many steps an example may take there (else 5-45).
# A classic match of five rounds takes some thirty decisions: with moves and timeouts
# weighted up and more steps, matches finish (and are removed from: `stand`). A banker36
# decision is a ponter's; `drop` closes the connections of the player on turn, so that
# the reconnect grace is given there too. Solo's «new game» ends a game and deals the next.
VARIANT_STEPS: dict[str, list[str]] = {
    "blackjack": ["end_session"],
    "classic": ["move"] * 16 + ["timeout"] * 8,
    "banker36": ["drop"] * 2,
    "solo": ["new_game"] * 2,
}
MOST_STEPS = {"classic": 100}


@contextlib.contextmanager
def rolled_back() -> Iterator[None]:
    """One example's writes, undone when it ends (the test's own transaction stays)."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def code_of(answer: Any) -> str | None:
    if isinstance(answer, errors.PlayError):
        return answer.code
    if isinstance(answer, ValidationError):
        return str(getattr(answer, "code", None))
    return None


class LiveRun:
    """One table played by Hypothesis's choices, and the checks after each step."""

    def __init__(self, data: Any, variant: str, make_user: Callable[..., Any]) -> None:
        self.data = data
        self.variant = variant
        fields, humans, ais, chips = TABLES[variant]
        self.chips = chips is not None
        # Names whose order as JSON keys (PostgreSQL's jsonb sorts them: shorter first) is
        # not the seats' order: the rules must not take the table's order from a dict.
        self.humans = [make_user(name) for name in NAMES[:humans]]
        self.host = self.humans[0]
        self.outsider = make_user("zed")
        self.users = {u.pk: u for u in [*self.humans, self.outsider]}
        if chips is not None:
            for user in self.humans:
                keep = data.draw(st.integers(*chips), label=f"chips of {user.username}")
                wallet = wallet_for(user)
                chips_adjust(
                    wallet=wallet,
                    amount=keep - wallet.balance,
                    memo="test",
                    by=self.host,
                    idempotency_key=f"keep:{user.pk}",
                )
        # The same id in every example: a game's seed is derived with its table's id, and
        # PostgreSQL does not roll its sequences back, so the cards would change between
        # two runs of one example (Hypothesis needs them to replay it).
        self.table = services.table_create(
            id=TABLE_ID, variant=variant, name=variant, created_by=self.host, **fields
        )
        for user in self.humans:
            seating.seat_take(table=self.table, player=user)
        for level in ais:
            seating.ai_seat_add(table=self.table, by=self.host, level=level)
        if self.game() is None:
            moves.game_start(table=self.table, by=self.host)
        self.ids = itertools.count(1)
        # (user pk, client id) -> (first outcome, the command's run)
        self.accepted: dict[tuple[int, str], tuple[dict[str, Any], Callable[[], Any]]] = {}
        self.refused: dict[int, list[str]] = {pk: [] for pk in self.users}
        self.channels: dict[int, list[str]] = {pk: [] for pk in self.users}
        self.last_version = self.version()
        self.closed = False
        self.check()

    # --- reading the table ---------------------------------------------------------------

    def version(self) -> int:
        return int(Table.objects.values_list("version", flat=True).get(pk=self.table.pk))

    def game(self) -> Game | None:
        return Game.objects.filter(table=self.table, status=Game.Status.PLAYING).first()

    def seat_of(self, user: Any) -> Seat | None:
        return Seat.objects.filter(table=self.table, player=user).first()

    def turn_user(self, game: Game) -> Any | None:
        """The player on turn, if a person still sitting (not an AI, not standing up)."""
        turn = engine.legal_actions(game.state)
        assert turn is not None
        entry = game.player_entry(turn["seat"])
        if entry is None or entry["user"] is None:
            return None
        seat = Seat.objects.filter(table=self.table, player_id=entry["user"]).first()
        if seat is None or seat.leaving:
            return None
        return self.users[entry["user"]]

    def draw(self, strategy: Any, label: str) -> Any:
        return self.data.draw(strategy, label=label)

    def draw_move(self, game: Game | None) -> dict[str, Any]:
        if game is None:
            return {"action": "hit"}
        turn = engine.legal_actions(game.state)
        assert turn is not None
        choice = self.draw(st.sampled_from(turn["actions"]), "action")
        move: dict[str, Any] = {"action": choice["action"]}
        if "amounts" in choice:
            move["amount"] = self.draw(st.sampled_from(choice["amounts"]), "amount")
        elif "min" in choice:
            key = "position" if choice["action"] == "cut" else "amount"
            move[key] = self.draw(st.integers(choice["min"], choice["max"]), key)
        return move

    # --- sending commands ----------------------------------------------------------------

    def client_id(self, user: Any) -> str:
        """A fresh id, or one used before: accepted (a resend), refused, or another user's."""
        kind = self.draw(st.sampled_from(["fresh", "fresh", "accepted", "refused", "other"]), "id")
        if kind == "accepted":
            mine = sorted(cid for pk, cid in self.accepted if pk == user.pk)
            if mine:
                return str(self.draw(st.sampled_from(mine), "accepted id"))
        elif kind == "refused" and self.refused[user.pk]:
            return str(self.draw(st.sampled_from(self.refused[user.pk]), "refused id"))
        elif kind == "other":
            theirs = sorted(cid for pk, cid in self.accepted if pk != user.pk)
            if theirs:
                return str(self.draw(st.sampled_from(theirs), "another user's id"))
        return f"c{next(self.ids)}"

    def command(self, user: Any, client_id: str, run: Callable[[], Any]) -> Any:
        """Send one command as the consumer does; check the idempotency contract."""
        known = self.accepted.get((user.pk, client_id))
        before = self.version()
        table = Table.objects.get(pk=self.table.pk)
        try:
            answer: Any = commands.command_run(user=user, table=table, client_id=client_id, run=run)
        except (errors.PlayError, ValidationError) as error:
            answer = error
        event("command: " + ("resent" if known is not None else "sent"))
        if known is not None:
            # A resend of an accepted id: the first answer, and nothing changes.
            assert answer == {**known[0], "repeat": True}, (client_id, answer, known[0])
            assert self.version() == before, "a repeated client id changed the table"
            return answer
        stored = ClientCommand.objects.filter(user=user, table=table, client_id=client_id)
        if isinstance(answer, dict):
            assert "repeat" not in answer
            assert [c.outcome for c in stored] == [answer]
            self.accepted[(user.pk, client_id)] = (answer, run)
            if client_id in self.refused[user.pk]:
                self.refused[user.pk].remove(client_id)
        else:
            assert not stored.exists(), "a refused command was stored"
            assert self.version() == before, f"a refused command changed the table: {answer!r}"
            if client_id not in self.refused[user.pk]:
                self.refused[user.pk].append(client_id)
        return answer

    def act(self, user: Any, move: dict[str, Any], version: int | None, client_id: str) -> Any:
        table = Table.objects.get(pk=self.table.pk)

        def run() -> dict[str, Any]:
            return moves.game_act(table=table, player=user, action=move, version=version)

        return self.command(user, client_id, run)

    def settle_due(self) -> None:
        """Play whatever is due at the real time (a standing player's turn), as the
        ticker does, so that each step starts from a table with nothing overdue."""
        for _ in range(1000):
            if sweep.deadlines_sweep(now=timezone.now()) == 0:
                return
            self.check()
        raise AssertionError("the sweep never ran out of due decisions")

    # --- the steps -----------------------------------------------------------------------

    def step(self, kind: str) -> None:
        self.settle_due()
        getattr(self, f"do_{kind}")()
        self.check()

    def do_move(self) -> None:
        game = self.game()
        if game is None or (not game.paused and self.turn_user(game) is None):
            self.do_timeout()  # an AI's or a leaving seat's turn, or between games
            return
        if game.paused:
            user = self.draw(st.sampled_from(self.humans), "user")
            expect = "paused" if self.in_game(user, game) else "not_seated"
            move = self.draw_move(game)
            answer = self.act(user, move, None, self.client_id(user))
            if not isinstance(answer, dict) or "repeat" not in answer:
                assert code_of(answer) == expect, answer
            return
        user = self.turn_user(game)
        move = self.draw_move(game)
        with_version = self.draw(st.booleans(), "send the version")
        before = self.version()
        client_id = self.client_id(user)
        repeat = (user.pk, client_id) in self.accepted
        answer = self.act(user, move, before if with_version else None, client_id)
        if repeat:
            return
        if move["action"] == "new_game":  # solo: this game's record ends, the next deals
            assert answer == {"version": self.version()} and self.version() > before
            assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
            following = self.game()
            assert following is not None and following.number == game.number + 1
            event("solo: a new game from the table")
            return
        assert answer == {"version": before + 1}, answer
        assert self.version() == before + 1
        after = Game.objects.get(pk=game.pk)
        assert after.state["version"] == game.state["version"] + 1
        sid = self.seat_of(user).seat_id
        assert after.actions[-1] == {"seat": sid, **move}

    def do_timeout(self) -> None:
        game = self.game()
        before = self.version()
        if game is not None and (game.paused or not clocked(game)):
            # The clocks are stopped (or the variant has none: solo's player takes their
            # time): even a sweep a day later plays nothing.
            later = timezone.now() + datetime.timedelta(days=1)
            assert sweep.deadlines_sweep(now=later) == 0
            assert self.version() == before
            assert Game.objects.get(pk=game.pk).state["version"] == game.state["version"]
            return
        if game is not None:
            assert game.deadline is not None
            seat = game.deadline_seat
            # One millisecond early, nothing happens; at the deadline, the decision is made.
            assert sweep.deadlines_sweep(now=game.deadline - MS) == 0
            assert sweep.deadlines_sweep(now=game.deadline) == 1
            after = Game.objects.get(pk=game.pk)
            assert after.state["version"] == game.state["version"] + 1
            assert after.actions[-1]["seat"] == seat
            if not seat.startswith("ai:"):
                assert after.actions[-1] == {"seat": seat, "action": "timeout"}
            assert self.version() == before + 1
            return
        table = Table.objects.get(pk=self.table.pk)
        if table.next_game_at is not None:
            at = table.next_game_at
            assert sweep.deadlines_sweep(now=at - MS) == 0
            # Players away (no connection) longer than the grace lose their seats first.
            cutoff = at - datetime.timedelta(seconds=table.reconnect_grace_seconds)
            absent = set(table.seats.filter(away_since__lt=cutoff).values_list("pk", flat=True))
            started = sweep.deadlines_sweep(now=at)
            event(f"the next game started by itself: {started}, absent stood up: {len(absent)}")
            assert started == (1 if self.game() is not None else 0)
            assert not Seat.objects.filter(pk__in=absent).exists()
            # The game (or «waiting for players»), after the absent stood up.
            assert self.version() == before + 1 + (1 if absent else 0)
            return
        user = self.draw(st.sampled_from([*self.humans, self.outsider]), "starter")
        table_ = Table.objects.get(pk=self.table.pk)
        answer = self.command(
            user,
            self.client_id(user),
            lambda: {"game": moves.game_start(table=table_, by=user).number},
        )
        if isinstance(answer, dict) and "repeat" not in answer:
            # Playing, or over at once (a salon shoe in which nobody can hold the bank).
            started = Game.objects.get(table=self.table, number=answer["game"])
            assert started.is_playing or started.state["finished"]
        elif not isinstance(answer, dict):
            assert code_of(answer) in {"not_host", "not_enough_players", "cannot_start"}, answer

    def do_resend(self) -> None:
        if not self.accepted:
            self.do_move()
            return
        key = self.draw(st.sampled_from(sorted(self.accepted)), "resent command")
        self.command(self.users[key[0]], key[1], self.accepted[key][1])

    def do_stale(self) -> None:
        game = self.game()
        user = (game and self.turn_user(game)) or self.draw(st.sampled_from(self.humans), "user")
        current = self.version()
        off = self.draw(st.integers(1, 3), "versions behind")
        stale = current - off if current - off >= 0 else current + off
        answer = self.act(user, self.draw_move(game), stale, self.client_id(user))
        if isinstance(answer, dict) and answer.get("repeat"):
            return
        assert code_of(answer) == ("no_game" if game is None else "stale_version"), answer

    def in_game(self, user: Any, game: Game) -> bool:
        seat = self.seat_of(user)
        return seat is not None and seat.seat_id in game.seat_ids

    def do_wrong_player(self) -> None:
        game = self.game()
        on_turn = game and not game.paused and self.turn_user(game)
        others = [u for u in [*self.humans, self.outsider] if u != on_turn]
        user = self.draw(st.sampled_from(others), "wrong player")
        if game is None:
            expect = "no_game"
        elif not self.in_game(user, game):
            expect = "not_seated"
        elif game.paused:
            expect = "paused"
        else:
            turn = engine.legal_actions(game.state)
            assert turn is not None
            # A seat standing up may still be on turn (after a timeout swept in the future).
            expect = "not_your_turn" if turn["seat"] != self.seat_of(user).seat_id else None
            if expect is None:
                return
        with_version = self.draw(st.booleans(), "send the version")
        version = self.version() if with_version else None
        answer = self.act(user, self.draw_move(game), version, self.client_id(user))
        if isinstance(answer, dict) and answer.get("repeat"):
            return
        assert code_of(answer) == expect, answer

    def do_join(self) -> None:
        self.do_join_of(self.draw(st.sampled_from([*self.humans, self.outsider]), "joining"))

    def do_leave(self) -> None:
        open_ = sorted((pk, ch) for pk, chs in self.channels.items() for ch in chs)
        if not open_:
            self.do_join()
            return
        pk, channel = self.draw(st.sampled_from(open_), "closing")
        self.leave(pk, channel)

    def leave(self, pk: int, channel: str) -> None:
        """One connection of user `pk` closes: the reconnect grace if it was their last
        and their decision runs (once per decision), else nothing changes."""
        self.channels[pk].remove(channel)
        user = self.users[pk]
        game = self.game()
        before = self.version()
        presence.presence_leave(table=self.table, user=user, channel_name=channel)
        delta = self.version() - before
        if self.channels[pk] or game is None:
            assert delta == 0  # another tab is still open (or no decision to wait for)
            if game is not None:
                assert Game.objects.get(pk=game.pk).deadline == game.deadline
            return
        after = Game.objects.get(pk=game.pk)
        seat = self.seat_of(user)
        running = (
            seat is not None
            and game.deadline_seat == seat.seat_id
            and game.deadline is not None
            and self.table.reconnect_grace_seconds > 0
        )
        if running and game.grace_version != game.state["version"]:
            event("reconnect grace given")
            # The last connection of the player whose decision runs: the grace, once.
            assert delta == 1
            assert after.grace_version == game.state["version"]
            assert after.deadline >= game.deadline
            assert after.deadline >= timezone.now() + datetime.timedelta(
                seconds=self.table.reconnect_grace_seconds - 5
            )
        else:
            assert delta == 0
            assert after.deadline == game.deadline

    def do_drop(self) -> None:
        """The player on turn loses every connection (opened first if they had none)."""
        game = self.game()
        user = game and not game.paused and self.turn_user(game)
        if not user:
            self.do_leave()
            return
        if not self.channels[user.pk]:
            self.do_join_of(user)
        for channel in list(self.channels[user.pk]):
            self.leave(user.pk, channel)

    def do_join_of(self, user: Any) -> None:
        channel = f"test.{user.username}.{next(self.ids)}"
        before = self.version()
        presence.presence_join(table=self.table, user=user, channel_name=channel)
        self.channels[user.pk].append(channel)
        assert self.version() == before

    def do_new_game(self) -> None:
        """Solo's «new game» command: ends the game in play (unless a bet is in it) and
        deals the next, or deals one between games."""
        game = self.game()
        user = self.draw(st.sampled_from([*self.humans, self.outsider]), "new game by")
        table = Table.objects.get(pk=self.table.pk)
        client_id = self.client_id(user)
        repeat = (user.pk, client_id) in self.accepted
        before = self.version()
        answer = self.command(
            user, client_id, lambda: moves.solo_new_game(table=table, player=user)
        )
        if repeat:
            return
        seated = self.seat_of(user) is not None
        if not seated:
            assert code_of(answer) == "not_seated", answer
        elif game is not None and game.paused:
            assert code_of(answer) == "paused", answer
        elif game is not None and game.state.get("bet") is not None:
            assert code_of(answer) == "illegal_action", answer
        else:
            assert isinstance(answer, dict) and answer["version"] == self.version() > before
            following = self.game()
            assert following is not None
            if game is not None:
                assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
                assert following.number == game.number + 1
            event("solo: a new game by command")

    def do_stand(self) -> None:
        user = self.draw(st.sampled_from([*self.humans, self.outsider]), "standing up")
        seated = self.seat_of(user) is not None
        before = self.version()
        table = Table.objects.get(pk=self.table.pk)
        client_id = self.client_id(user)
        repeat = (user.pk, client_id) in self.accepted

        def run() -> dict[str, Any]:
            seating.seat_leave(table=table, player=user)
            return {}

        answer = self.command(user, client_id, run)
        if not repeat:
            assert answer == {}
            assert self.version() == before + (1 if seated else 0)

    def do_sit(self) -> None:
        user = self.draw(st.sampled_from([*self.humans, self.outsider]), "sitting down")
        table = Table.objects.get(pk=self.table.pk)
        answer = self.command(
            user,
            self.client_id(user),
            lambda: {"seat": seating.seat_take(table=table, player=user).seat_id},
        )
        if not isinstance(answer, dict):
            leaving = Seat.objects.filter(table=table, player=user, leaving=True).exists()
            allowed = {"leaving"} if leaving else {"table_full", "below_entry_limit"}
            assert code_of(answer) in allowed, answer
        elif "repeat" not in answer:
            assert self.seat_of(user) is not None

    def do_ready(self) -> None:
        user = self.draw(st.sampled_from(self.humans), "ready")
        table = Table.objects.get(pk=self.table.pk)

        def run() -> dict[str, Any]:
            seating.seat_ready(table=table, player=user, ready=True)
            return {}

        answer = self.command(user, self.client_id(user), run)
        if not isinstance(answer, dict):
            assert code_of(answer) == "not_seated", answer

    def do_pause(self) -> None:
        user = self.draw(st.sampled_from([self.host, self.host, self.outsider]), "pausing")
        game = self.game()
        table = Table.objects.get(pk=self.table.pk)
        client_id = self.client_id(user)
        repeat = (user.pk, client_id) in self.accepted
        before = self.version()
        answer = self.command(user, client_id, lambda: moves.game_pause(table=table, by=user))
        if repeat:
            return
        if user != self.host:
            assert code_of(answer) == "not_host", answer
        elif game is None:
            assert code_of(answer) == "no_game", answer
        elif game.paused:
            assert answer == {"version": before} and self.version() == before
        else:
            assert answer == {"version": before + 1}
            after = Game.objects.get(pk=game.pk)
            assert after.paused and after.deadline is None

    def do_resume(self) -> None:
        user = self.draw(st.sampled_from([self.host, self.host, self.outsider]), "resuming")
        game = self.game()
        table = Table.objects.get(pk=self.table.pk)
        client_id = self.client_id(user)
        repeat = (user.pk, client_id) in self.accepted
        before = self.version()
        answer = self.command(user, client_id, lambda: moves.game_resume(table=table, by=user))
        if repeat:
            return
        if user != self.host:
            assert code_of(answer) == "not_host", answer
        elif game is None or not game.paused:
            assert code_of(answer) == "not_paused", answer
        else:
            assert answer == {"version": before + 1}
            after = Game.objects.get(pk=game.pk)
            assert not after.paused and (after.deadline is not None) == clocked(after)

    def do_close(self) -> None:
        game = self.game()
        table = Table.objects.get(pk=self.table.pk)

        def run() -> dict[str, Any]:
            closing.table_close(table=table)
            return {}

        answer = self.command(self.host, self.client_id(self.host), run)
        if isinstance(answer, dict) and answer.get("repeat"):
            return
        assert answer == {}
        self.closed = True
        assert self.game() is None
        assert not Seat.objects.filter(table=self.table).exists()
        if game is not None:
            voided = Game.objects.get(pk=game.pk)
            assert voided.status == Game.Status.VOIDED
            if self.chips:  # every stake in play went back; settled results stand
                for entry in voided.players:
                    wallet = wallet_for(self.users[entry["user"]]).balance
                    assert wallet == entry["chips"] + voided.state["deltas"][entry["id"]]

    def do_end_session(self) -> None:
        """Blackjack: the player ends the training session (the shoe's record ends)."""
        game = self.game()
        table = Table.objects.get(pk=self.table.pk)
        host = self.host
        answer = self.command(
            host,
            self.client_id(host),
            lambda: moves.session_end(table=table, player=host),
        )
        if isinstance(answer, dict) and answer.get("repeat"):
            return
        if game is None:
            assert code_of(answer) == "no_game", answer
        elif not isinstance(answer, dict):
            assert code_of(answer) == "not_seated", answer
        else:
            assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
            assert Table.objects.get(pk=self.table.pk).next_game_at is None

    # --- the invariants ------------------------------------------------------------------

    def check(self) -> None:
        people = ~Q(kind=Account.Kind.SYSTEM)
        ledger = Account.objects.aggregate(
            held=Sum("balance", filter=people),
            granted=Sum("balance", filter=Q(code=GRANTS_ACCOUNT_CODE)),
            negative=Count("pk", filter=people & Q(balance__lt=0)),
        )
        assert ledger["held"] == -ledger["granted"], "chips were created or destroyed"
        assert ledger["negative"] == 0, "an account went below zero"
        version = self.version()
        assert version >= self.last_version, "the table version went back"
        self.last_version = version
        games = list(Game.objects.filter(table=self.table))
        assert sum(g.status == Game.Status.PLAYING for g in games) <= 1
        escrows = dict(
            Account.objects.filter(code__in=[f"escrow:game:{g.pk}" for g in games]).values_list(
                "code", "balance"
            )
        )
        wallets = dict(
            Account.objects.filter(kind=Account.Kind.PLAYER, owner__in=self.users).values_list(
                "owner_id", "balance"
            )
        )
        versions: dict[int, list[int]] = {g.pk: [] for g in games}
        rows = GameEvent.objects.filter(game__table=self.table).order_by("game", "version")
        for game_id, number in rows.values_list("game_id", "version"):
            versions[game_id].append(number)
        for game in games:
            held = escrows.get(f"escrow:game:{game.pk}", 0)
            if game.status == Game.Status.PLAYING:
                staked = engine.in_play(game.state)
                assert held == sum(staked.values()), (held, staked)
                if self.chips:
                    assert held == sum(game.escrowed.values())
                    for entry in game.players:
                        sid = entry["id"]
                        expected = entry["chips"] + game.state["deltas"][sid] - staked.get(sid, 0)
                        assert wallets[entry["user"]] == expected, (sid, wallets, expected)
                turn = engine.legal_actions(game.state)
                assert turn is not None and game.deadline_seat == turn["seat"]
                assert (game.deadline is None) == (game.paused or not clocked(game))
            else:
                assert held == 0, f"{held} chips left in the escrow of a {game.status} game"
                assert game.deadline is None and game.result is not None
            # One event per engine version, none missing, none twice.
            assert versions[game.pk] == list(range(game.state["version"] + 1))
            assert len(game.actions) == game.state["version"]

    def final_check(self) -> None:
        for game in Game.objects.filter(table=self.table):
            event(f"a game {game.status}")
            if game.variant == "classic" and game.status == Game.Status.FINISHED:
                played = len(game.result["rounds"]) == game.options["rounds"]
                event("classic: a match " + ("played to its last round" if played else "cut short"))
            record = records.game_record(game)
            replayed = replay(record)["result"]
            # A state read back from PostgreSQL's jsonb has its keys in another order:
            # the rules must play the same whatever the order.
            assert replay_keys_reversed(record) == replayed, game.number
            if game.status == Game.Status.PLAYING:
                assert replayed["status"] == "awaiting_action"
                assert replayed["deltas"] == game.state["deltas"]
            else:
                assert replayed == game.result, game.number


def clocked(game: Game) -> bool:
    """Whether the game's decisions run against a clock (solo's do not)."""
    return bool(engine.find_variant(game.variant).CLOCK)


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(value)}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


def replay_keys_reversed(record: dict[str, Any]) -> dict[str, Any]:
    """The record's result, played with every object's keys reversed before each move
    (as a database may return them: a JSON object has no order)."""
    state, _events = engine.new_game(
        record["variant"],
        seats=record["seats"],
        options=record["options"],
        first_banker=record.get("first_banker"),
        seed=record["seed"],
    )
    for action in record["actions"]:
        state, _events = engine.apply(reversed_keys(state), action)
    return engine.result(state)


def seeds(base: int) -> Callable[[], str]:
    """Seeds that Hypothesis chose: the same example deals the same cards when replayed."""
    numbers = itertools.count()
    return lambda: hashlib.sha256(f"{base}:{next(numbers)}".encode()).hexdigest()


def play(data: Any, variant: str, make_user: Callable[..., Any]) -> None:
    base = data.draw(st.integers(0, 2**32), label="seed")
    with rolled_back(), mock.patch.object(lifecycle, "fresh_seed", seeds(base)):
        run = LiveRun(data, variant, make_user)
        steps = data.draw(st.integers(5, MOST_STEPS.get(variant, 45)), label="steps")
        kinds = STEPS + VARIANT_STEPS.get(variant, [])
        for _ in range(steps):
            run.step(data.draw(st.sampled_from(kinds), label="step"))
            if run.closed:
                break
        run.final_check()


PROPERTY = hypothesis_settings(
    max_examples=examples(25),
    deadline=None,
    # As the engine's property tests: the same steps every run (the deals still vary).
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


@pytest.fixture
def live_settings(settings: Any) -> None:
    # The next game starts only when a sweep reaches its time, and an AI decides only
    # when its clock is swept: the steps decide when.
    settings.GAME_INTERLUDE_SECONDS = 120
    settings.AI_DECISION_SECONDS = 30


@pytest.mark.django_db
@pytest.mark.parametrize("variant", sorted(TABLES))
@PROPERTY
@given(data=st.data())
def test_random_live_play_keeps_chips_versions_and_records_sound(
    variant, data, make_user, live_settings
):
    play(data, variant, make_user)
