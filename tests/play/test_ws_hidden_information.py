"""The hidden-information rule (docs/rules/README.md §7), asserted on the raw text of every frame
every other seat and every spectator receives, for each variant and each kind of hidden
card.

After each step of play the server's full state (`Game.state`, read from the database)
says which cards each viewer may see at the moment of each frame. A card string alone
proves nothing — a six-deck shoe holds six AS, and a card may be face up elsewhere — so
the check counts: every card a frame shows (each two-character card string in its JSON)
must be covered by a card the viewer is entitled to see at that moment, copy for copy.
The cards the viewer may not see are computed too, so the test can show that every kind
of hidden card was really in play while frames were checked.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import engine
from play.models import Game
from play.services import lifecycle
from tests.play.ws_play import (
    Live,
    card_tokens,
    create_table,
    fetch_record,
    make_users,
    play_to_the_end,
    round_cards,
)

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("machine_speed_play"),
]


# --- what a viewer may see, from the full state -------------------------------------------


def _packed(cards: str) -> list[str]:
    return [cards[i : i + 2] for i in range(0, len(cards), 2)]


def entitled(state: dict[str, Any], seat: str | None) -> Counter[str]:
    """The cards `seat` (None: a spectator) may see in this state, as the rules say: the
    last settled round (shown as the last round/duel), its own cards, the face-up ones."""
    allowed: Counter[str] = Counter()
    if state["rounds"]:
        allowed += round_cards(state["rounds"][-1:])
    variant = state["variant"]
    if variant == "classic":
        if not state["finished"]:
            allowed.update(state["hands"].get(seat, []))
            allowed.update(state["dealer"][:1])  # the up-card; the hole card is hidden
    elif variant == "salon":
        deal = state["deal"]
        if deal is not None:
            allowed.update(deal["hands"].get(seat, []))  # every hand is private
    elif variant == "solo":
        allowed.update(state["hand"])  # the player's cards are face up
        banker = state["banker_cards"]
        allowed.update(banker if state["revealed"] else banker[1:])
    elif variant == "banker36":
        circle = state["circle"]
        if circle is not None:
            for holder, cards in circle["hands"].items():
                if holder == seat or circle["status"][holder] == "settled":
                    allowed.update(cards)
            allowed.update(circle["banker_cards"])  # the banker draws face up
    else:  # blackjack: players' cards face up, the dealer's hole card hidden
        for hand in state["hands"]:
            allowed.update(_packed(hand[4:]))
        dealer = _packed(state["dealer"])
        allowed.update(dealer if state["finished"] else dealer[:1])
    return allowed


def hidden(state: dict[str, Any], seat: str | None) -> dict[str, list[str]]:
    """The cards in play that `seat` may not see now, by kind."""
    kinds: dict[str, list[str]] = {}
    variant = state["variant"]
    if state["finished"]:
        return kinds
    if variant == "classic":
        kinds["other_hand"] = [c for s, h in state["hands"].items() if s != seat for c in h]
        kinds["hole"] = state["dealer"][1:2]
    elif variant == "salon" and state["deal"] is not None:
        deal = state["deal"]
        banker = state["banker"]
        kinds["banker"] = [] if seat == banker else list(deal["hands"][banker])
        kinds["ponter"] = [
            c for s, h in deal["hands"].items() if s not in (seat, banker) for c in h
        ]
        kinds["sat_out"] = [c for s in salon_sat_out(state) if s != seat for c in deal["hands"][s]]
    elif variant == "solo":
        kinds["face_down"] = [] if state["revealed"] else state["banker_cards"][:1]
    elif variant == "banker36" and state["circle"] is not None:
        circle = state["circle"]
        kinds["private"] = [
            c
            for s, h in circle["hands"].items()
            if s != seat and circle["status"][s] != "settled"
            for c in h
        ]
        kinds["sat_out"] = [
            c
            for s, h in circle["hands"].items()
            if s != seat and circle["status"][s] == "sat_out"
            for c in h
        ]
    elif variant == "blackjack":
        kinds["hole"] = _packed(state["dealer"])[1:2]
    return {k: v for k, v in kinds.items() if v}


def salon_sat_out(state: dict[str, Any]) -> list[str]:
    deal = state["deal"]
    ponters = deal["ponters"]
    asked = len(ponters) if state["phase"] != "bet" else deal["index"]
    return [p for p in ponters[:asked] if p not in deal["bets"]]


# --- the check, after every step ---------------------------------------------------------


class HiddenCheck:
    """Checks every raw frame each client got against the server's state."""

    def __init__(self, live: Live) -> None:
        self.live = live
        self.states: dict[tuple[int, int], dict[str, Any]] = {}
        self.games: dict[int, Game] = {}
        # (client, kind) -> frames checked while that kind of card was hidden from it
        self.coverage: Counter[tuple[str, str]] = Counter()
        self.frames = 0
        # Cards a salon ponter or banker36 seat sat out with: (game, seat, cards)
        self.sat_out: set[tuple[int, str, tuple[str, ...]]] = set()
        live.after_step.append(self)

    async def __call__(self, new: dict[str, list[str]]) -> None:
        table = self.live.table
        games = await database_sync_to_async(list)(Game.objects.filter(table_id=table.pk))
        self.games = {g.pk: g for g in games}
        for game in games:
            self.states[(game.pk, game.state["version"])] = game.state
        for name, raws in new.items():
            for raw in raws:
                self.check(name, raw)

    def state_at(self, game: Game, version: int) -> dict[str, Any]:
        """The game's state at an engine version: from the database when read at that
        version, else replayed from its seed and actions (exactly what the server did)."""
        key = (game.pk, version)
        if key not in self.states:
            state, _ = engine.new_game(
                game.variant,
                seats=[{k: p[k] for k in ("id", "chips") if k in p} for p in game.players],
                options=lifecycle.engine_options(self.live.table),
                first_banker=game.first_banker or None,
                seed=game.seed,
            )
            for action in game.actions[:version]:
                state, _ = engine.apply(state, action)
            self.states[key] = state
        return self.states[key]

    def seat_of(self, name: str, game: Game) -> str | None:
        user = self.live.who[name]
        if user is None:
            return None
        entry = next((p for p in game.players if p["user"] == user.pk), None)
        return entry["id"] if entry else None

    def check(self, name: str, raw: str) -> None:
        message = json.loads(raw)
        kind = message["type"]
        where = f"{name} got {kind} v{message.get('version')}"
        assert '"source"' not in raw and '"stacked"' not in raw, where
        for game in self.games.values():
            stock = game.state["shoe"]["cards"] if game.state.get("shoe") else ""
            assert len(stock) < 6 or stock not in raw, f"{where}: the stock"
            pile = game.state.get("discards") or ""  # banker36's, sat-out cards included
            assert len(pile) < 6 or pile not in raw, f"{where}: the discards"
            if game.seed in raw or game.server_seed in raw:
                self.check_seed_shown(message, game, where)
        if kind in ("update", "snapshot"):
            self.check_frame(name, message, where)
        elif kind == "record":
            game = next(g for g in self.games.values() if g.number == message["game"])
            record = message["record"]
            assert card_tokens({k: v for k, v in record.items() if k != "result"}) == [], where
            if record["table"]["status"] == "playing":
                assert record["result"] is None and "seed" not in record, where
            else:
                shown = Counter(card_tokens(record["result"]))
                assert not shown - round_cards(game.state["rounds"]), where
        else:  # ack, error, presence, pong: no card at all
            assert card_tokens(message) == [], f"{where}: {message}"

    def check_seed_shown(self, message: dict[str, Any], game: Game, where: str) -> None:
        """A seed may show only in a frame or record of its own game once it is over."""
        if message["type"] == "record":
            assert message["game"] == game.number, where
            assert message["record"]["table"]["status"] != "playing", where
        else:
            shown = message.get("game") or {}
            assert shown.get("id") == game.pk and shown["status"] != "playing", where
        assert game.status != Game.Status.PLAYING, where

    def check_frame(self, name: str, message: dict[str, Any], where: str) -> None:
        info = message["game"]
        rest = {k: v for k, v in message.items() if k not in ("game", "events", "history")}
        assert card_tokens(rest) == [], where
        if info is None:
            assert card_tokens(message.get("events", [])) == [], where
            return
        game = self.games[info["id"]]
        view = info["view"]
        state = self.state_at(game, view["version"])
        seat = self.seat_of(name, game)
        if seat is not None:
            assert message["you"]["seat"] == seat, where
        stock = state["shoe"]["cards"] if state.get("shoe") else ""
        assert len(stock) < 6 or stock not in json.dumps(message), f"{where}: the stock"
        over = info["status"] != "playing"
        if not over:
            assert info["seed"] is None and info["result"] is None, where
            assert info["server_seed"] is None, where
        outside = {k: v for k, v in info.items() if k not in ("view", "result")}
        assert card_tokens(outside) == [], where

        # The view: every card it shows is one the viewer may see now.
        allowed = entitled(state, seat)
        shown = Counter(card_tokens(view))
        excess = shown - allowed
        secret = hidden(state, seat)
        assert not excess, f"{where}: shows {dict(excess)}; hidden from it: {secret}"
        for kind_ in secret:
            self.coverage[(name, kind_)] += 1
        self.frames += 1

        # The events: another seat's private card never; every card shown is one the
        # viewer may see after this transition, or one settled in it. A snapshot's history
        # (docs/protocol.md §6.1) is held to the same, transition by transition.
        if message.get("events"):
            self.check_events(game, seat, view["version"], message["events"], where)
        for entry in message.get("history", []):
            assert entry["version"] <= view["version"], where
            self.check_events(game, seat, entry["version"], entry["events"], f"{where} history")

        # The result, once over, holds the settled rounds and nothing more.
        if over:
            assert not Counter(card_tokens(info["result"])) - round_cards(state["rounds"]), where

        # Remember who sat out with which cards: those are never to be revealed.
        if state["variant"] == "salon" and state["deal"] is not None:
            for ponter in salon_sat_out(state):
                self.sat_out.add((game.pk, ponter, tuple(state["deal"]["hands"][ponter])))
        if state["variant"] == "banker36" and state["circle"] is not None:
            circle = state["circle"]
            for holder, status in circle["status"].items():
                if status == "sat_out":
                    self.sat_out.add((game.pk, holder, tuple(circle["hands"][holder])))

    def check_events(
        self, game: Game, seat: str | None, version: int, events: list[Any], where: str
    ) -> None:
        state = self.state_at(game, version)
        before = self.state_at(game, version - 1) if version else None
        settled = state["rounds"][len(before["rounds"]) :] if before else state["rounds"]
        may = entitled(state, seat) + round_cards(settled)
        for event in events:
            cards = Counter(card_tokens(event))
            if "to" in event and event["to"] != seat:
                assert not cards, f"{where}: {event}"
            assert not cards - may, f"{where}: {event} shows {dict(cards - may)}"

    def assert_covered(self, viewers: list[str], kinds: list[str]) -> None:
        for viewer in viewers:
            for kind in kinds:
                assert self.coverage[(viewer, kind)] > 0, (viewer, kind, self.coverage)

    def assert_sat_out_never_revealed(self, game: Game) -> None:
        """A seat that sat out has no hand in any settled round it sat out of."""
        result = game.result
        assert result is not None
        for game_pk, holder, cards in self.sat_out:
            if game_pk != game.pk:
                continue
            for unit in result["rounds"]:
                for hand in unit["hands"]:
                    assert not (hand["seat"] == holder and tuple(hand["cards"][:2]) == cards[:2])


async def probe_errors(live: Live, game: Game, turn: dict[str, Any], rng: random.Random) -> None:
    """Every human seat not on turn tries to move, and the seat on turn tries a move it
    may not make: each refusal (and everything else) goes through the same check."""
    for name, client in live.players.items():
        user = live.users[name]
        entry = next((p for p in game.players if p["user"] == user.pk), None)
        if entry is None:
            continue
        if entry["id"] != turn["seat"]:
            answer = await client.command("action", action=rng.choice(["hit", "stand"]))
            assert answer["type"] == "error" and answer["code"] == "not_your_turn", answer
        else:
            answer = await client.command("action", action="fold")
            assert answer["type"] == "error" and answer["code"] == "illegal_action", answer
    for client in live.clients.values():  # and everyone asks for a fresh snapshot
        await client.send({"type": "snapshot"})
        await client.recv_until(lambda m: m["type"] == "snapshot")
    await live.settle()


def prober(live: Live, rng: random.Random, every: int = 3):
    steps = [0]

    async def hook(game: Game, turn: dict[str, Any]) -> bool:
        steps[0] += 1
        if steps[0] % every == 1:
            await probe_errors(live, game, turn, rng)
        return False

    return hook


async def start_with_spectators(live: Live, make_user: Any, watcher: str) -> None:
    (stranger,) = await make_users(make_user, watcher)
    await live.watch("anonymous")
    await live.watch(watcher, stranger)  # signed in, never seated


# --- classic -------------------------------------------------------------------------------


async def test_classic_other_hands_and_the_hole_card_stay_hidden(make_user):
    host, pete = await make_users(make_user, "hana", "pete")
    table = await create_table(variant="classic", name="C", created_by=host, match_length=5)
    live = Live(table)
    check = HiddenCheck(live)
    await live.join(host)
    await live.join(pete)
    await start_with_spectators(live, make_user, "wendy")
    for name in ("hana", "pete"):
        assert (await live.command(name, "sit"))["type"] == "ack"
    assert (await live.command("hana", "add_ai", level="easy"))["type"] == "ack"
    assert (await live.command("hana", "start"))["type"] == "ack"
    rng = random.Random(31)
    probe = prober(live, rng)

    decisions = []

    async def hook(game: Game, turn: dict[str, Any]) -> bool:
        decisions.append(turn["seat"])
        if len(decisions) == 2:
            await live.watch("late")  # joins mid-match: its snapshot is checked too
        return await probe(game, turn)

    game = await play_to_the_end(live, rng, hook=hook)
    assert game.state["finished"]
    await fetch_record(live.players["pete"], game.number)
    await live.settle()
    viewers = ["hana", "pete", "anonymous", "wendy", *(["late"] if len(decisions) > 1 else [])]
    check.assert_covered(viewers, ["other_hand", "hole"])
    assert check.frames > 30
    await live.close()


# --- salon ---------------------------------------------------------------------------------


async def test_salon_ponters_and_banker_cards_hidden_until_settled_sat_out_never(make_user):
    users = await make_users(make_user, "anna", "boris", "vera")
    table = await create_table(variant="salon", name="S", min_bet=10, max_bet=100)
    live = Live(table)
    check = HiddenCheck(live)
    for user in users:
        await live.join(user)
    await start_with_spectators(live, make_user, "wendy")
    for user in users:
        assert (await live.command(user.username, "sit"))["type"] == "ack"
    for user in users:
        assert (await live.command(user.username, "ready"))["type"] == "ack"
    rng = random.Random(41)
    sat_out = []
    probe = prober(live, rng, every=4)

    async def hook(game: Game, turn: dict[str, Any]) -> bool:
        # In the second deal the first ponter to bet lets the clock run out: sits out.
        state = game.state
        if state["phase"] == "bet" and state["deal"]["number"] == 2 and not sat_out:
            sat_out.append(turn["seat"])
            await live.tick()
            return True
        return await probe(game, turn)

    game = await play_to_the_end(live, rng, hook=hook)
    assert game.status == Game.Status.FINISHED and sat_out
    second = next(u for u in game.result["rounds"][1:2])
    assert sat_out[0] not in [h["seat"] for h in second["hands"]]
    check.assert_sat_out_never_revealed(game)
    assert any(holder == sat_out[0] for _, holder, _ in check.sat_out)
    others = [u.username for u in users if u.username != sat_out[0]]
    check.assert_covered([*others, "anonymous", "wendy"], ["sat_out"])
    # One shoe, one banker: his cards are hidden from everyone else, and each ponter's
    # from everyone else, the banker included.
    banker = game.state["banker"]
    everyone = ["anna", "boris", "vera", "anonymous", "wendy"]
    check.assert_covered([v for v in everyone if v != banker], ["banker"])
    check.assert_covered(everyone, ["ponter"])
    await live.close()


# --- solo ----------------------------------------------------------------------------------


async def test_solo_banker_face_down_card_hidden_from_player_and_spectators(make_user):
    (olga,) = await make_users(make_user, "olga")
    table = await create_table(variant="solo", name="O")
    live = Live(table)
    check = HiddenCheck(live)
    await live.join(olga)
    await start_with_spectators(live, make_user, "wendy")
    assert (await live.command("olga", "sit"))["type"] == "ack"
    await live.act("olga", {"action": "restart"})
    answer = await live.players["olga"].command("action", action="hit")  # no bet yet
    assert answer["type"] == "error" and answer["code"] == "illegal_action"
    await live.act("olga", {"action": "bet", "amount": 1})
    rng = random.Random(51)
    game = await play_to_the_end(live, rng)
    assert game.state["finished"]
    await fetch_record(live.players["olga"], game.number)
    await live.settle()
    check.assert_covered(["olga", "anonymous", "wendy"], ["face_down"])
    await live.close()


# --- banker36 ------------------------------------------------------------------------------


async def test_banker36_private_cards_hidden_until_the_duel_settles_sat_out_never(make_user):
    *users, late = await make_users(make_user, "gleb", "inna", "kira", "lena")
    table = await create_table(variant="banker36", name="B", stake=10, entry_limit=100)
    live = Live(table)
    check = HiddenCheck(live)
    for user in users:
        await live.join(user)
    await start_with_spectators(live, make_user, "wendy")
    for user in users:
        assert (await live.command(user.username, "sit"))["type"] == "ack"
    for user in users:
        assert (await live.command(user.username, "ready"))["type"] == "ack"
    # Seated once the bank is open: at the table, not in its game, so sees what a
    # spectator sees.
    await live.join(late)
    assert (await live.command("lena", "sit"))["type"] == "ack"
    assert live.players["lena"].last()["you"] == {"seat": "lena", "in_game": False}
    rng = random.Random(61)
    sat_out: list[str] = []
    probe = prober(live, rng, every=2)

    async def hook(game: Game, turn: dict[str, Any]) -> bool:
        circle = game.state["circle"]
        if circle["bet"] is None and circle["turn"] == 0 and not sat_out:
            sat_out.append(turn["seat"])  # the first player lets his clock run out
            await live.tick()
            return True
        return await probe(game, turn)

    game = await play_to_the_end(live, rng, hook=hook)
    assert game.status == Game.Status.FINISHED and sat_out
    check.assert_sat_out_never_revealed(game)
    assert (
        sat_out[0] not in [h["seat"] for u in game.result["rounds"] for h in u["hands"]]
        or (
            game.state["stuk_called"]  # a stuk circle deals him a new card
        )
    )
    others = [u.username for u in users if u.username != sat_out[0]]
    check.assert_covered([*others, "lena", "anonymous", "wendy"], ["private", "sat_out"])
    await live.close()


# --- blackjack -----------------------------------------------------------------------------

SESSION_ROUNDS = 12


async def test_blackjack_dealer_hole_card_hidden_until_the_dealer_plays(make_user):
    (tom,) = await make_users(make_user, "tom")
    table = await create_table(variant="blackjack", name="BJ")
    live = Live(table)
    check = HiddenCheck(live)
    await live.join(tom)
    await start_with_spectators(live, make_user, "wendy")
    assert (await live.command("tom", "sit"))["type"] == "ack"
    assert (await live.command("tom", "add_ai", level="easy"))["type"] == "ack"
    assert (await live.command("tom", "add_ai", level="medium"))["type"] == "ack"
    assert (await live.command("tom", "start"))["type"] == "ack"
    rng = random.Random(71)
    probe = prober(live, rng, every=5)

    async def hook(game: Game, turn: dict[str, Any]) -> bool:
        # Not the whole six-deck shoe (some forty rounds, most of the module's time): a
        # dozen rounds show every hole card hidden just as well, and then the player ends
        # the session, which reveals the last round's hole card too.
        if game.state["round"] > SESSION_ROUNDS:
            assert (await live.command("tom", "end_session"))["type"] == "ack"
            return True
        return await probe(game, turn)

    game = await play_to_the_end(live, rng, hook=hook)
    assert game.status == Game.Status.FINISHED and game.state["round"] > SESSION_ROUNDS
    await fetch_record(live.players["tom"], game.number)
    await live.settle()
    check.assert_covered(["tom", "anonymous", "wendy"], ["hole"])
    # Every round's hole card was hidden from everyone until that round settled.
    assert check.coverage[("anonymous", "hole")] >= game.state["round"]
    await live.close()
