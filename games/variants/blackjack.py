"""`blackjack`: European blackjack — six decks, S17, no peek, double and split
(docs/rules/blackjack.md).

1–7 seats play every round against an automated dealer; there are no chips and no bets:
each hand stakes 1 unit (2 once doubled) and `state["deltas"]` is the session balance.
Players' cards are dealt face up (as at a casino table), so every seat and spectator sees
them; only the dealer's hole card is hidden, until the dealer plays.

State (besides the engine's keys), kept flat because `engine.apply` copies it every move:

    options  {"rounds": n}
    round    the round being played (1-based; the last one once finished)
    hands    the players' hands in play order, one string each: a 4-character header
             then the packed cards — "<seat index><wager><s|-><x|o>ASTD…": the seat's
             position in `seats` (0–6), the wager in units (1, or 2 once doubled),
             `s` for a hand that came from a split, `x` for a closed hand (`o` open)
    turn     index in `hands` of the hand to act, or None
    dealer   the dealer's cards, packed; the second is the hole card
"""

from __future__ import annotations

from typing import Any

from games import cards, shoe
from games.errors import BAD_RECORD, RulesError

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]

CLOCK = True
ACTIONS = frozenset({"hit", "stand", "double", "split", "timeout"})
HOST_ACTIONS: frozenset[str] = frozenset()

DECKS = 6
RESHUFFLE_BELOW = 78  # a quarter of the 312-card shoe
MAX_HANDS = 4  # per seat, splits included
MAX_SEATS = 7
DEALER = "dealer"
DEFAULT_ROUNDS = 1

_SHOE_CARDS = cards.shoe("standard52", DECKS)
_VALUE = cards.VALUE52  # ace counts 1 here; `_total` adds the soft 10
_TEN = cards.TEN_VALUE
_HEAD = 4  # characters of a hand's header before its cards
_INDEX = "0123456"


def _total(packed: str) -> tuple[int, bool]:
    """Best total of packed cards ("ASTD…") and whether it is soft."""
    total = 0
    ace = False
    for r in packed[::2]:
        total += _VALUE[r]
        if r == "A":
            ace = True
    if ace and total <= 11:
        return total + 10, True
    return total, False


def _is_natural(packed: str) -> bool:
    """Ace + ten-value card as exactly two cards (the caller rules out split hands)."""
    if len(packed) != 4:
        return False
    a = packed[0]
    b = packed[2]
    return (a == "A" and b in _TEN) or (b == "A" and a in _TEN)


def _unpack(packed: str) -> list[str]:
    if len(packed) == 4:  # the common case, spelled out for speed
        return [packed[:2], packed[2:]]
    return [packed[i : i + 2] for i in range(0, len(packed), 2)]


def _closed(hand: str) -> str:
    return hand[:3] + "x" + hand[_HEAD:]


# --- setup -----------------------------------------------------------------------------


def setup(state: State, options: dict[str, Any], first_banker: str | None) -> list[Event]:
    unknown = sorted(set(options) - {"rounds", "one_shoe", "fresh_shoe"})
    if unknown:
        raise RulesError(
            BAD_RECORD,
            f"unknown blackjack option(s) {', '.join(unknown)}: the options are rounds, "
            "one_shoe and fresh_shoe",
        )
    # `fresh_shoe` (a tournament's duplicate heat): every round is dealt from a shoe of its
    # own, the record's next shuffle, so round r starts with the same cards for every
    # entrant whatever each did in the rounds before (docs/tournaments.md).
    fresh_shoe = options.get("fresh_shoe", False)
    if type(fresh_shoe) is not bool:
        raise RulesError(BAD_RECORD, "fresh_shoe must be true or false")
    # `one_shoe` (live tables: one hand record and one seed per shoe) ends the record
    # before a round that would need a new shoe; a stored record states it as `rounds`.
    one_shoe = options.get("one_shoe", False)
    if type(one_shoe) is not bool:
        raise RulesError(BAD_RECORD, "one_shoe must be true or false")
    rounds = options.get("rounds", DEFAULT_ROUNDS)
    if type(rounds) is not int or rounds < 1:
        raise RulesError(BAD_RECORD, f"rounds must be a whole number ≥ 1, not {rounds!r}")
    seats = state["seats"]
    if not 1 <= len(seats) <= MAX_SEATS:
        raise RulesError(BAD_RECORD, f"blackjack takes 1 to {MAX_SEATS} seats, not {len(seats)}")
    for seat in seats:
        if seat["id"] == DEALER:
            raise RulesError(BAD_RECORD, f"{DEALER!r} is the dealer's name, not a seat id")
    state["options"] = {
        "rounds": rounds,
        **({"one_shoe": True} if one_shoe else {}),
        **({"fresh_shoe": True} if fresh_shoe else {}),
    }
    state["round"] = 0
    state["hands"] = []
    state["turn"] = None
    state["dealer"] = ""
    events: list[Event] = []
    _deal_round(state, events)
    _run(state, events)
    return events


def _deal_round(state: State, events: list[Event]) -> None:
    """A new round: a fresh shoe if needed, then two passes of the deal."""
    state["round"] += 1
    fresh = (
        state["shoe"] is None
        or shoe.remaining(state) < RESHUFFLE_BELOW
        or state["options"].get("fresh_shoe", False)
    )
    if fresh:
        shoe.start(state, "standard52", _SHOE_CARDS)
    events.append({"type": "round_start", "round": state["round"], "new_shoe": fresh})
    draw = shoe.draw
    seats = state["seats"]
    firsts = []
    for entry in seats:
        card = draw(state)
        firsts.append(card)
        events.append({"type": "deal", "seat": entry["id"], "card": card})
    up = draw(state)
    events.append({"type": "deal", "seat": DEALER, "card": up})
    hands = []
    for k, entry in enumerate(seats):
        card = draw(state)
        events.append({"type": "deal", "seat": entry["id"], "card": card})
        packed = firsts[k] + card
        hands.append(_INDEX[k] + ("1-x" if _is_natural(packed) else "1-o") + packed)
    state["dealer"] = up + draw(state)
    events.append({"type": "deal", "seat": DEALER, "hole": True})
    state["hands"] = hands
    state["turn"] = 0


# --- play ------------------------------------------------------------------------------


def _run(state: State, events: list[Event]) -> None:
    """Everything automatic up to the next decision or the end of the record."""
    rounds = state["options"]["rounds"]
    while True:
        if _next_hand(state, events):
            return
        _dealer_and_settle(state, events)
        shoe_end = (
            state["options"].get("one_shoe", False) and shoe.remaining(state) < RESHUFFLE_BELOW
        )
        if state["round"] >= rounds or shoe_end:
            state["finished"] = True
            state["turn"] = None
            events.append({"type": "finished", "balances": dict(state["deltas"])})
            return
        _deal_round(state, events)


def _next_hand(state: State, events: list[Event]) -> bool:
    """Point `turn` at the first open hand from `turn` on; False when every hand is closed.

    A split hand waiting with one card gets its second card when play reaches it; a 21
    stands by itself.
    """
    hands: list[str] = state["hands"]
    i: int = state["turn"]
    count = len(hands)
    while i < count:
        hand = hands[i]
        if hand[3] == "o":
            if len(hand) == _HEAD + 2:
                card = shoe.draw(state)
                hand += card
                seat = state["seats"][int(hand[0])]["id"]
                events.append({"type": "deal", "seat": seat, "hand": i, "card": card})
                if _total(hand[_HEAD:])[0] == 21:
                    hands[i] = _closed(hand)
                    events.append({"type": "stand", "seat": seat, "hand": i, "auto": True})
                    i += 1
                    continue
                hands[i] = hand
            state["turn"] = i
            return True
        i += 1
    state["turn"] = None
    return False


def _seat_index(hands: list[str], turn: int) -> int:
    """The position of hand `turn` among its seat's hands."""
    k = hands[turn][0]
    index = 0
    j = turn - 1
    while j >= 0 and hands[j][0] == k:
        index += 1
        j -= 1
    return index


def _can_split(hands: list[str], turn: int) -> bool:
    hand = hands[turn]
    if _VALUE[hand[4]] != _VALUE[hand[6]]:
        return False
    k = hand[0]
    return sum(1 for other in hands if other[0] == k) < MAX_HANDS


def legal(state: State) -> dict[str, Any] | None:
    turn = state["turn"]
    if turn is None:
        return None
    hands: list[str] = state["hands"]
    hand = hands[turn]
    if len(hand) != _HEAD + 4:
        actions: list[dict[str, Any]] = [{"action": "hit"}, {"action": "stand"}]
    elif _can_split(hands, turn):  # two cards: never split aces (closed), never a 21
        actions = [{"action": "hit"}, {"action": "stand"}, {"action": "double"}]
        actions.append({"action": "split"})
    else:
        actions = [{"action": "hit"}, {"action": "stand"}, {"action": "double"}]
    seat = state["seats"][int(hand[0])]["id"]
    return {"seat": seat, "actions": actions, "hand": _seat_index(hands, turn)}


def unavailable(state: State, name: str) -> str | None:
    """Every action this variant knows is possible in some game of it."""
    return None


def act(state: State, action: Action) -> list[Event]:
    name = action["action"]
    hands: list[str] = state["hands"]
    i: int = state["turn"]
    hand = hands[i]
    seat = action["seat"]
    events: list[Event] = []
    if name == "hit":
        card = shoe.draw(state)
        hand += card
        events.append({"type": "hit", "seat": seat, "hand": i, "card": card})
        if _total(hand[_HEAD:])[0] >= 21:  # bust, or a 21 that stands by itself
            hand = _closed(hand)
        hands[i] = hand
    elif name == "double":
        card = shoe.draw(state)
        hands[i] = hand[0] + "2" + hand[2] + "x" + hand[_HEAD:] + card
        events.append({"type": "double", "seat": seat, "hand": i, "card": card})
    elif name == "split":
        first, second = hand[_HEAD : _HEAD + 2], hand[_HEAD + 2 :]
        head = hand[0] + hand[1] + "s"
        events.append({"type": "split", "seat": seat, "hand": i})
        if first[0] == "A":  # one card to each ace, first hand then second; both close
            card = shoe.draw(state)
            events.append({"type": "deal", "seat": seat, "hand": i, "card": card})
            other = shoe.draw(state)
            events.append({"type": "deal", "seat": seat, "hand": i + 1, "card": other})
            hands[i : i + 1] = [head + "x" + first + card, head + "x" + second + other]
        else:  # `_next_hand` gives the first hand its second card at once
            hands[i : i + 1] = [head + "o" + first, head + "o" + second]
    else:  # stand, timeout
        hands[i] = _closed(hand)
        events.append({"type": "stand", "seat": seat, "hand": i, "timeout": name == "timeout"})
    _run(state, events)
    return events


# --- dealer and settlement -------------------------------------------------------------


def _dealer_and_settle(state: State, events: list[Event]) -> None:
    dealer: str = state["dealer"]
    events.append({"type": "reveal", "seat": DEALER, "card": dealer[2:4]})
    hands: list[str] = state["hands"]
    # Each hand's total and whether it is a natural (two cards, not from a split).
    scored = []
    live = False  # the dealer draws only if some hand is neither bust nor a natural
    for hand in hands:
        packed = hand[_HEAD:]
        mine = _total(packed)[0]
        natural = hand[2] == "-" and _is_natural(packed)
        if mine <= 21 and not natural:
            live = True
        scored.append((hand, packed, mine, natural))
    total = _total(dealer)[0]
    if live:
        while total < 17:
            card = shoe.draw(state)
            dealer += card
            events.append({"type": "dealer_draw", "card": card})
            total = _total(dealer)[0]
        state["dealer"] = dealer
    dealer_natural = _is_natural(dealer)
    deltas = state["deltas"]
    seats = state["seats"]
    entries: list[dict[str, Any]] = []
    for hand, packed, mine, natural in scored:
        wager = 2 if hand[1] == "2" else 1
        delta: float
        if mine > 21:
            delta = -wager
        elif dealer_natural:
            delta = 0 if natural else -wager
        elif natural:
            delta = 1.5
        elif total > 21 or mine > total:
            delta = wager
        elif mine == total:
            delta = 0
        else:
            delta = -wager
        seat = seats[int(hand[0])]["id"]
        balance = deltas[seat] + delta
        deltas[seat] = int(balance) if balance == int(balance) else balance
        entries.append(
            {
                "seat": seat,
                "cards": _unpack(packed),
                "total": mine,
                "outcome": "win" if delta > 0 else "loss" if delta < 0 else "push",
                "delta": delta,
            }
        )
    entries.append({"seat": DEALER, "cards": _unpack(dealer), "total": total})
    state["rounds"].append({"hands": entries})
    # The logged round is never changed again (the engine shares it between states), so
    # the event shares it too: events, like states, are read-only to their consumers.
    events.append({"type": "settle", "round": state["round"], "hands": entries})


# --- views -----------------------------------------------------------------------------


def view(state: State, seat: str | None) -> dict[str, Any]:
    """Players' cards are public (dealt face up, as at a casino table); the dealer's hole
    card is absent until the dealer has played, which a live state shows only once the
    record's last round is over (every earlier round is in `last_round`).

    The viewer's own hands are under `hands` (with `hand`, the index of the one to act, when
    it is the viewer's turn); every other seat (all of them for a spectator) is under
    `others`, so no card is listed twice. Each hand: cards, total, soft, wager, split (came
    from a split), natural, done (closed), active (the hand to act)."""
    hands: list[str] = state["hands"]
    turn = state["turn"]
    deltas = state["deltas"]
    seats = state["seats"]
    groups: list[list[dict[str, Any]]] = [[] for _ in seats]
    for index, hand in enumerate(hands):
        packed = hand[_HEAD:]
        total, soft = _total(packed)
        groups[int(hand[0])].append(
            {
                "cards": _unpack(packed),
                "total": total,
                "soft": soft,
                "wager": 2 if hand[1] == "2" else 1,
                "split": hand[2] == "s",
                "natural": hand[2] == "-" and _is_natural(packed),
                "done": hand[3] == "x",
                "active": index == turn,
            }
        )
    active = None
    if turn is not None and seats[int(hands[turn][0])]["id"] == seat:
        active = _seat_index(hands, turn)
    own: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for entry, group in zip(seats, groups, strict=True):
        sid = entry["id"]
        if sid == seat:
            own = group
        else:
            others.append(
                {"seat": sid, "hands": group, "splits": len(group) - 1, "balance": deltas[sid]}
            )
    dealer: str = state["dealer"]
    if state["finished"]:
        total, soft = _total(dealer)
        dealer_view: dict[str, Any] = {
            "cards": _unpack(dealer),
            "hidden": 0,
            "total": total,
            "soft": soft,
        }
    else:  # the up-card alone; its total is what the players can see
        total, soft = _total(dealer[:2])
        dealer_view = {"cards": [dealer[:2]], "hidden": 1, "total": total, "soft": soft}
    rounds = state["rounds"]
    return {
        "seat": seat,
        "round": state["round"],
        "rounds_total": state["options"]["rounds"],
        "hands": own,
        "hand": active,
        "splits": len(own) - 1 if own else 0,
        "balance": deltas.get(seat),
        "dealer": dealer_view,
        "others": others,
        "balances": dict(deltas),
        # shared, not copied: a logged round never changes (views are read-only)
        "last_round": rounds[-1] if rounds else None,
    }


def in_play(state: State) -> dict[str, int]:
    """Nothing is staked in chips: blackjack plays for units."""
    return {}


def final(state: State) -> dict[str, Any]:
    return {"balances": dict(state["deltas"])}
