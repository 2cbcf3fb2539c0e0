"""`classic`: Twenty-One for 2–10 players against an automated dealer (docs/rules/classic.md).

A match of 5, 7 or 10 rounds scored in points. Every round is dealt from a fresh
`standard52` deck; the first player moves one seat on every round. The host may remove a
player during a round (`remove`, a host action naming a `target`). With the option
`one_player` (a tournament's duplicate heat) the match is one player's alone against the
dealer.

Variant state, next to the engine's keys:

    "table":   every seat id in table order (as the match started)
    "players": the seats still in the match, in table order (``state["seats"]`` is kept
               to the same seats, so it always lists who can still be removed)
    "removed": the removed seats, in the order they were removed
    "round_no", "first": the current round's number (1-based) and first player
    "order":   this round's turn order (the players still in it)
    "hands":   {seat: [cards]} for this round; "dealer": the dealer's cards
    "turn":    index into "order" of the player to act (None once the match is over)
    "no_winner": True when removals left fewer than two players

Events: ``round_start`` (round, order), ``deal`` (a player's card carries ``to``; the
dealer's up-card is public; the hole card's event has ``"hole": true`` and no card),
``turn`` (a decision starts: a fresh clock), ``hit`` (``to``, card), ``stand``
(``timeout``: whether the clock chose it), ``hand_over`` (21 or bust ended a hand — which
of the two is not said, the cards being private), ``reveal`` (the hole card), ``dealer_draw``,
``settle`` (the round's hands, all revealed, and the scores), ``remove`` (target),
``finished`` (scores, winners).

View: ``{"rounds_total", "rounds_played", "table", "players", "removed", "scores",
"winners", "last_round", "round"}``; ``round`` (None once the match is over) is
``{"number", "first", "order", "hands", "dealer"}`` where each hand is ``{"seat",
"count"}`` plus, for the viewer's own hand only, ``"cards", "total", "soft", "natural"``,
and the dealer is ``{"cards": [up-card], "hidden": 1}``.
"""

from __future__ import annotations

from typing import Any

from games import shoe
from games.cards import STANDARD52, is_natural52, total52
from games.errors import BAD_RECORD, ILLEGAL_ACTION, RulesError

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]

CLOCK = True
ACTIONS = frozenset({"hit", "stand", "timeout", "remove"})
HOST_ACTIONS = frozenset({"remove"})

ROUND_CHOICES = (5, 7, 10)
DEFAULT_ROUNDS = 5
MIN_SEATS = 2
MAX_SEATS = 10
DEALER = "dealer"
DEALER_STANDS_ON = 17
BLACKJACK = 21
POINTS_WIN = 100
POINTS_NATURAL_WIN = 150
POINTS_LOSS = -100
POINTS_PUSH = 0


# --- setup -----------------------------------------------------------------------------


def _checked_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - {"rounds", "one_player"})
    if unknown:
        raise RulesError(
            BAD_RECORD,
            f"classic has no option {', '.join(map(repr, unknown))}; its options are "
            "'rounds' (5, 7 or 10) and 'one_player' (true or false)",
        )
    rounds = options.get("rounds", DEFAULT_ROUNDS)
    if type(rounds) is not int or rounds not in ROUND_CHOICES:
        raise RulesError(BAD_RECORD, f"rounds is {rounds!r}: a classic match is 5, 7 or 10 rounds")
    one_player = options.get("one_player", False)
    if type(one_player) is not bool:
        raise RulesError(BAD_RECORD, f"one_player is {one_player!r}: it is true or false")
    # Stored only when set, so that a record without it keeps the options it always had.
    return {"rounds": rounds, **({"one_player": True} if one_player else {})}


def _fewest_players(state: State) -> int:
    """The players a match needs (fewer left by removals end it without a winner): one
    with the option `one_player` — a tournament's duplicate heat, where each entrant plays
    the same cards alone against the dealer — two otherwise."""
    return 1 if state["options"].get("one_player") else MIN_SEATS


def setup(state: State, options: dict[str, Any], first_banker: str | None) -> list[Event]:
    state["options"] = _checked_options(options)
    seats = [seat["id"] for seat in state["seats"]]
    if state["options"].get("one_player"):
        if len(seats) != 1:
            raise RulesError(
                BAD_RECORD,
                f"with one_player, classic is played by exactly one seat, not {len(seats)}",
            )
    elif not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise RulesError(
            BAD_RECORD,
            f"classic is played by {MIN_SEATS} to {MAX_SEATS} players, not {len(seats)}",
        )
    if DEALER in seats:
        # Round entries name the dealer's hand seat "dealer" (docs/hand-record.md §4.2), so a
        # player of that name would be indistinguishable from it.
        raise RulesError(BAD_RECORD, f"{DEALER!r} is the dealer's name, not a seat id")
    # Classic has no chips and no banker: `chips` and `first_banker` are ignored.
    state["table"] = seats
    state["players"] = list(seats)
    state["removed"] = []
    state["round_no"] = 0
    state["first"] = seats[0]
    state["order"] = []
    state["hands"] = {}
    state["dealer"] = []
    state["turn"] = None
    state["no_winner"] = False
    events: list[Event] = []
    _proceed(state, events, _start_round(state, events, seats[0]))
    return events


# --- the flow of a round ---------------------------------------------------------------


def _start_round(state: State, events: list[Event], first: str) -> int | None:
    """Shuffle, deal two passes; the index to look for a decision from, or None when the
    dealer has a natural (then the hole card is shown and the round only settles)."""
    players: list[str] = state["players"]
    start = players.index(first)
    order = players[start:] + players[:start]
    state["round_no"] += 1
    state["first"] = first
    state["order"] = order
    shoe.start(state, "standard52", STANDARD52)
    hands: dict[str, list[str]] = {seat: [] for seat in order}
    dealer: list[str] = []
    state["hands"] = hands
    state["dealer"] = dealer
    events.append({"type": "round_start", "round": state["round_no"], "order": list(order)})
    for _ in range(2):
        for seat in order:
            card = shoe.draw(state)
            hands[seat].append(card)
            events.append({"type": "deal", "seat": seat, "to": seat, "card": card})
        card = shoe.draw(state)
        dealer.append(card)
        if len(dealer) == 1:
            events.append({"type": "deal", "seat": DEALER, "card": card})
        else:
            events.append({"type": "deal", "seat": DEALER, "hole": True})
    if is_natural52(dealer):
        events.append({"type": "reveal", "seat": DEALER, "card": dealer[1], "total": BLACKJACK})
        return None
    return 0


def _proceed(state: State, events: list[Event], index: int | None) -> None:
    """Give the turn to the first player from `index` on who has a decision; when nobody
    has, the dealer plays (unless the round already ended on a dealer natural), the round
    settles and the next one is dealt — until a decision or the end of the match."""
    while True:
        if index is not None:
            order: list[str] = state["order"]
            hands: dict[str, list[str]] = state["hands"]
            count = len(order)
            while index < count and is_natural52(hands[order[index]]):
                index += 1
            if index < count:
                state["turn"] = index
                events.append({"type": "turn", "seat": order[index]})
                return
            _dealer_plays(state, events)
        state["turn"] = None
        _settle(state, events)
        if state["round_no"] >= state["options"]["rounds"]:
            _end_match(state, events)
            return
        index = _start_round(state, events, _next_first(state))


def _next_first(state: State) -> str:
    """The next remaining player after this round's first, in table order."""
    table: list[str] = state["table"]
    players: list[str] = state["players"]
    at = table.index(state["first"])
    size = len(table)
    for step in range(1, size + 1):
        seat = table[(at + step) % size]
        if seat in players:
            return seat
    raise AssertionError("a match in play has players")  # pragma: no cover


def _dealer_plays(state: State, events: list[Event]) -> None:
    """Reveal the hole card; draw below 17 (soft 17 stands) unless no hand is left that
    the dealer's total could decide (every player bust or holding a natural)."""
    dealer: list[str] = state["dealer"]
    total = total52(dealer)[0]
    events.append({"type": "reveal", "seat": DEALER, "card": dealer[1], "total": total})
    hands: dict[str, list[str]] = state["hands"]
    if all(total52(cards)[0] > BLACKJACK or is_natural52(cards) for cards in hands.values()):
        return
    while total < DEALER_STANDS_ON:
        card = shoe.draw(state)
        dealer.append(card)
        total = total52(dealer)[0]
        events.append({"type": "dealer_draw", "card": card, "total": total})


def _settle(state: State, events: list[Event]) -> None:
    dealer: list[str] = state["dealer"]
    dealer_total = total52(dealer)[0]
    dealer_natural = is_natural52(dealer)
    dealer_bust = dealer_total > BLACKJACK
    hands: dict[str, list[str]] = state["hands"]
    deltas: dict[str, int] = state["deltas"]
    summary: list[dict[str, Any]] = []
    for seat in state["order"]:
        cards = hands[seat]
        total = total52(cards)[0]
        natural = is_natural52(cards)
        if total > BLACKJACK:
            outcome, delta = "loss", POINTS_LOSS
        elif dealer_natural:
            outcome, delta = ("push", POINTS_PUSH) if natural else ("loss", POINTS_LOSS)
        elif natural:
            outcome, delta = "win", POINTS_NATURAL_WIN
        elif dealer_bust or total > dealer_total:
            outcome, delta = "win", POINTS_WIN
        elif total == dealer_total:
            outcome, delta = "push", POINTS_PUSH
        else:
            outcome, delta = "loss", POINTS_LOSS
        deltas[seat] += delta
        summary.append(
            {"seat": seat, "cards": list(cards), "total": total, "outcome": outcome, "delta": delta}
        )
    summary.append({"seat": DEALER, "cards": list(dealer), "total": dealer_total})
    state["rounds"].append({"hands": summary})
    events.append(
        {
            "type": "settle",
            "round": state["round_no"],
            "hands": [dict(hand, cards=list(hand["cards"])) for hand in summary],
            "scores": dict(deltas),
        }
    )


def _winners(state: State) -> list[str] | None:
    if not state["finished"] or state["no_winner"]:
        return None
    deltas: dict[str, int] = state["deltas"]
    players: list[str] = state["players"]
    best = max(deltas[seat] for seat in players)
    return [seat for seat in players if deltas[seat] == best]


def _end_match(state: State, events: list[Event]) -> None:
    state["finished"] = True
    state["turn"] = None
    events.append({"type": "finished", "scores": dict(state["deltas"]), "winners": _winners(state)})


# --- actions ---------------------------------------------------------------------------


def legal(state: State) -> dict[str, Any] | None:
    turn: int | None = state["turn"]
    if turn is None:
        return None
    return {"seat": state["order"][turn], "actions": [{"action": "hit"}, {"action": "stand"}]}


def unavailable(state: State, name: str) -> str | None:
    """Every action this variant knows is possible in some game of it."""
    return None


def act(state: State, action: Action) -> list[Event]:
    name = action["action"]
    events: list[Event] = []
    if name == "remove":
        _remove(state, action.get("target"), events)
        return events
    turn: int = state["turn"]
    seat: str = state["order"][turn]
    if name == "hit":
        cards: list[str] = state["hands"][seat]
        card = shoe.draw(state)
        cards.append(card)
        events.append({"type": "hit", "seat": seat, "to": seat, "card": card})
        if total52(cards)[0] >= BLACKJACK:
            # 21 ends the hand by itself; over 21 is a bust, already lost.
            events.append({"type": "hand_over", "seat": seat})
            _proceed(state, events, turn + 1)
        else:
            events.append({"type": "turn", "seat": seat})
    else:  # stand, or timeout, which stands
        events.append({"type": "stand", "seat": seat, "timeout": name == "timeout"})
        _proceed(state, events, turn + 1)
    return events


def _remove(state: State, target: object, events: list[Event]) -> None:
    players: list[str] = state["players"]
    if not isinstance(target, str) or target not in players:
        if isinstance(target, str) and target in state["removed"]:
            what = f"{target!r} has already been removed"
        elif target is None:
            what = "remove needs a target seat"
        else:
            what = f"{target!r} is not a seat at this table"
        raise RulesError(
            ILLEGAL_ACTION, f"{what}; the host may remove: {', '.join(map(repr, players))}"
        )
    players.remove(target)
    state["removed"].append(target)
    state["seats"] = [seat for seat in state["seats"] if seat["id"] != target]
    events.append({"type": "remove", "target": target})
    if len(players) < _fewest_players(state):
        # The match ends at once without a winner; the unfinished round counts nothing.
        state["no_winner"] = True
        _end_match(state, events)
        return
    order: list[str] = state["order"]
    at = order.index(target)
    order.pop(at)
    del state["hands"][target]
    turn: int = state["turn"]
    if at < turn:
        state["turn"] = turn - 1
    elif at == turn:
        _proceed(state, events, at)


# --- what each seat sees ---------------------------------------------------------------


def view(state: State, seat: str | None) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = state["rounds"]
    seen: dict[str, Any] = {
        "rounds_total": state["options"]["rounds"],
        "rounds_played": len(rounds),
        "table": list(state["table"]),
        "players": list(state["players"]),
        "removed": list(state["removed"]),
        "scores": dict(state["deltas"]),
        "winners": _winners(state),
        "last_round": _copy_round(rounds[-1]) if rounds else None,
        "round": None,
    }
    if not state["finished"]:
        hands_view: list[dict[str, Any]] = []
        hands: dict[str, list[str]] = state["hands"]
        for player in state["order"]:
            cards = hands[player]
            entry: dict[str, Any] = {"seat": player, "count": len(cards)}
            if player == seat:
                total, soft = total52(cards)
                entry["cards"] = list(cards)
                entry["total"] = total
                entry["soft"] = soft
                entry["natural"] = is_natural52(cards)
            hands_view.append(entry)
        seen["round"] = {
            "number": state["round_no"],
            "first": state["first"],
            "order": list(state["order"]),
            "hands": hands_view,
            "dealer": {"cards": [state["dealer"][0]], "hidden": 1},
        }
    return seen


def _copy_round(unit: dict[str, Any]) -> dict[str, Any]:
    return {"hands": [dict(hand, cards=list(hand["cards"])) for hand in unit["hands"]]}


def in_play(state: State) -> dict[str, int]:
    """Nothing is staked: classic plays for points."""
    return {}


def final(state: State) -> dict[str, Any]:
    return {"scores": dict(state["deltas"]), "winners": _winners(state)}
