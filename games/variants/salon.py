"""`salon`: the historical salon game with a rotating bank (docs/rules/salon.md).

One seat holds the bank (the banker); the others are ponters. A shoe of two 52-card decks
is dealt deal after deal until fewer than 5 cards per hand are left; then the bank passes
to the left and a new shoe is shuffled (and, at a live table, cut). Each deal: two cards to
every ponter from the banker's left, two to the banker; bets; a banker's natural takes
every stake; otherwise the ponters draw, then the banker (a player, not automatic), and the
deal is settled by the rules' table.

Decisions where the rules are silent (see the module's `DECISIONS` for the one-line list):
the record ends when nobody can hold the bank or no ponter has the table minimum; a deal in
which nobody bets is still a deal (a round entry with only the banker's hand); the bank
passes only when a next deal is about to begin.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from games import shoe
from games.cards import is_natural52, total52
from games.cards import shoe as full_stock
from games.errors import BAD_AMOUNT, BAD_RECORD, RulesError
from games.shuffle import SeedStream

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]

CLOCK = True
ACTIONS: frozenset[str] = frozenset({"bet", "hit", "stand", "timeout", "cut"})
HOST_ACTIONS: frozenset[str] = frozenset()

# `one_shoe` is for live tables, which keep one hand record (and one seed) per shoe: the
# record ends where its shoe does (a short banker or the shoe's end), instead of passing
# the bank and shuffling a new shoe. A stored record states the same play as `deals`.
DEFAULT_OPTIONS: dict[str, Any] = {
    "min_bet": 10,
    "max_bet": 100,
    "deals": 1,
    "cut": False,
}
LIVE_OPTIONS: dict[str, Any] = {"one_shoe": False}  # stored only when given
# `banks` (stored only when given, unlimited without it): the record ends when the bank
# would pass to a holder for the (banks + 1)-th time. Each holder's bank is a shoe of its
# own, so a tournament's sit-and-go of n seats plays n × r banks: each seat holds it r
# times (a seat too short to hold it is passed over, as always).
# `banks` (stored only when given): the record ends when the bank would pass to a holder
# for the (banks + 1)-th time — each holder's bank is one shoe, so a tournament's
# sit-and-go of n seats plays n × r banks and every seat holds it r times.
MIN_SEATS = 2
MAX_SEATS = 10
DECK_KIND = "standard52"
DECKS_IN_SHOE = 2
CARDS_PER_HAND = 5  # a shoe is finished when fewer than this many cards per hand remain
MAX_DRAWS = 3  # cards a hand may draw after the deal
MAX_CARDS = 2 + MAX_DRAWS

DECISIONS: tuple[str, ...] = (
    "If no seat has 2 × min_bet chips to hold the bank, the record ends (final.banker null).",
    "If no ponter has min_bet chips, the record ends; the seat that would bank keeps it.",
    "A deal where nobody bets counts as a deal: its round entry holds only the banker's hand.",
    "The bank passes (short banker, end of shoe) only when a next deal is about to begin.",
    "The cutter is the seat on the banker's right, whatever its chips.",
    "With options.cut a record needs a seed and no deck (a stacked deck is stored after its cut).",
)


# --- setup -----------------------------------------------------------------------------


def _whole(value: object) -> TypeGuard[int]:
    return type(value) is int


def _options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS) - set(LIVE_OPTIONS) - {"banks"})
    if unknown:
        raise RulesError(
            BAD_RECORD,
            f"unknown salon option(s) {', '.join(unknown)}: the options are "
            "min_bet, max_bet, deals, banks, cut and one_shoe",
        )
    opts = {**DEFAULT_OPTIONS, **options}
    if not _whole(opts["min_bet"]) or opts["min_bet"] < 1:
        raise RulesError(BAD_RECORD, "options.min_bet must be a whole number of chips ≥ 1")
    if not _whole(opts["max_bet"]) or opts["max_bet"] < opts["min_bet"]:
        raise RulesError(
            BAD_RECORD, f"options.max_bet must be a whole number ≥ min_bet ({opts['min_bet']})"
        )
    if not _whole(opts["deals"]) or opts["deals"] < 1:
        raise RulesError(BAD_RECORD, "options.deals must be a whole number ≥ 1")
    if "banks" in opts and (not _whole(opts["banks"]) or opts["banks"] < 1):
        raise RulesError(BAD_RECORD, "options.banks must be a whole number ≥ 1")
    for flag in ("cut", *(name for name in LIVE_OPTIONS if name in opts)):
        if type(opts[flag]) is not bool:
            raise RulesError(BAD_RECORD, f"options.{flag} must be true or false")
    return opts


def setup(state: State, options: dict[str, Any], first_banker: str | None) -> list[Event]:
    state["options"] = opts = _options(options)
    seats = state["seats"]
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise RulesError(
            BAD_RECORD, f"salon is played by {MIN_SEATS} to {MAX_SEATS} seats, not {len(seats)}"
        )
    for seat in seats:
        chips = seat.get("chips")
        if not _whole(chips) or chips < 0:
            raise RulesError(BAD_RECORD, f"seat {seat['id']!r} needs its chips: a whole number ≥ 0")
    source = state["source"]
    if source["stacked"] and first_banker is None:
        raise RulesError(BAD_RECORD, "first_banker is required when the record stacks the deck")
    if opts["cut"] and (source["stacked"] or source["seed"] is None):
        raise RulesError(
            BAD_RECORD,
            "options.cut (live play) needs a seed and no deck: a stacked deck is recorded "
            "in its order after the cut",
        )
    lot = shoe.choose_by_lot(state, [seat["id"] for seat in seats], first_banker)
    state["banker"] = lot
    state["phase"] = "start"
    state["turn"] = None
    state["cutter"] = None
    state["deal"] = None
    events: list[Event] = [{"type": "lot", "seat": lot}]
    _begin_deal(state, events)
    return events


# --- seats and chips -------------------------------------------------------------------


def _chips(state: State, seat_id: str) -> int:
    for seat in state["seats"]:
        if seat["id"] == seat_id:
            chips: int = seat["chips"]
            return chips
    raise KeyError(seat_id)


def _add_chips(state: State, seat_id: str, amount: int) -> None:
    # Seats are shared between states (games.engine.apply), so replace, never mutate.
    state["seats"] = [
        {**seat, "chips": seat["chips"] + amount} if seat["id"] == seat_id else seat
        for seat in state["seats"]
    ]


def _round_from_left(state: State, seat_id: str) -> list[str]:
    """The other seats, from `seat_id`'s left (the next in table order) round the table."""
    ids = [seat["id"] for seat in state["seats"]]
    at = ids.index(seat_id)
    return ids[at + 1 :] + ids[:at]


def _can_hold_bank(state: State, seat_id: str) -> bool:
    least: int = state["options"]["min_bet"]
    return _chips(state, seat_id) >= 2 * least


def _ponters_in(state: State, banker: str) -> list[str]:
    """Ponters dealt into a deal: from the banker's left, those with the table minimum."""
    least = state["options"]["min_bet"]
    return [p for p in _round_from_left(state, banker) if _chips(state, p) >= least]


def _holder(state: State, candidates: list[str]) -> str | None:
    for seat_id in candidates:
        if _can_hold_bank(state, seat_id):
            return seat_id
    return None


# --- the flow of play ------------------------------------------------------------------


def _finish(state: State, events: list[Event], reason: str) -> None:
    state["finished"] = True
    state["phase"] = "over"
    state["turn"] = None
    state["cutter"] = None
    state["deal"] = None
    events.append({"type": "finished", "reason": reason, "banker": state["banker"]})


def _begin_deal(state: State, events: list[Event]) -> None:
    """Before each deal: the record's length, the bank, the shoe; then cut or deal."""
    opts = state["options"]
    if len(state["rounds"]) >= opts["deals"]:
        _finish(state, events, "deals_played")
        return
    banker: str = state["banker"]
    fresh = state["shoe"] is None
    holder: str | None = banker
    reason = ""
    if fresh:  # the lot: the bank passes on while the seat drawn cannot hold it
        holder = _holder(state, [banker, *_round_from_left(state, banker)])
        reason = "lot"
    elif not _can_hold_bank(state, banker):
        if opts.get("one_shoe"):
            _finish(state, events, "banker_short")
            return
        holder = _holder(state, _round_from_left(state, banker))
        fresh, reason = True, "banker_short"
    elif shoe.remaining(state) < CARDS_PER_HAND * (len(_ponters_in(state, banker)) + 1):
        events.append({"type": "shoe_end", "remaining": shoe.remaining(state)})
        if opts.get("one_shoe"):
            _finish(state, events, "shoe_end")
            return
        holder = _holder(state, [*_round_from_left(state, banker), banker])
        fresh, reason = True, "shoe_end"
    if fresh and reason != "lot" and _banks_held(state) >= opts.get("banks", 0) > 0:
        _finish(state, events, "banks_played")
        return
    if holder != banker or (fresh and reason != "lot"):
        events.append({"type": "bank", "seat": holder, "reason": reason})
    state["banker"] = holder
    if holder is None:
        _finish(state, events, "nobody_can_hold_the_bank")
        return
    if not _ponters_in(state, holder):
        _finish(state, events, "no_ponter_can_bet")
        return
    if fresh:
        shoe.start(state, DECK_KIND, full_stock(DECK_KIND, DECKS_IN_SHOE))
        events.append({"type": "shuffle", "shoe": state["shoe"]["shuffles"], "banker": holder})
        if opts["cut"]:
            cutter = _round_from_left(state, holder)[-1]  # the seat on the banker's right
            state["phase"] = "cut"
            state["cutter"] = cutter
            state["turn"] = cutter
            return
    _deal(state, events)


def _banks_held(state: State) -> int:
    """Banks held so far in this record: each holder's bank is a shoe of its own."""
    return 0 if state["shoe"] is None else int(state["shoe"]["shuffles"])


def _deal(state: State, events: list[Event]) -> None:
    banker: str = state["banker"]
    ponters = _ponters_in(state, banker)
    number = len(state["rounds"]) + 1
    events.append({"type": "round_start", "deal": number, "banker": banker, "ponters": ponters})
    hands: dict[str, list[str]] = {}
    for seat_id in [*ponters, banker]:  # both cards at once, ponters first, banker last
        cards = [shoe.draw(state), shoe.draw(state)]
        hands[seat_id] = cards
        events.append({"type": "deal", "seat": seat_id, "to": seat_id, "cards": list(cards)})
    state["deal"] = {"number": number, "ponters": ponters, "hands": hands, "bets": {}, "index": 0}
    state["phase"] = "bet"
    state["cutter"] = None
    _advance_bets(state, events)


def _bet_max(state: State, ponter: str) -> int:
    opts = state["options"]
    accepted: int = sum(state["deal"]["bets"].values())
    cover = (_chips(state, state["banker"]) - 2 * accepted) // 2
    table_max: int = opts["max_bet"]
    return min(table_max, _chips(state, ponter), cover)


def _advance_bets(state: State, events: list[Event]) -> None:
    deal = state["deal"]
    ponters: list[str] = deal["ponters"]
    while deal["index"] < len(ponters):
        ponter = ponters[deal["index"]]
        if _bet_max(state, ponter) >= state["options"]["min_bet"]:
            state["turn"] = ponter
            return
        events.append({"type": "sit_out", "seat": ponter, "reason": "bank_cannot_cover"})
        deal["index"] += 1
    banker: str = state["banker"]
    if not deal["bets"]:
        _settle(state, events)
        return
    if is_natural52(deal["hands"][banker]):
        events.append(
            {
                "type": "reveal",
                "seat": banker,
                "cards": list(deal["hands"][banker]),
                "natural": True,
            }
        )
        _settle(state, events)
        return
    state["phase"] = "ponters"
    deal["index"] = 0
    _advance_ponters(state, events)


def _closed(cards: list[str]) -> bool:
    """21, a bust, or the fifth card ends a hand by itself."""
    return len(cards) >= MAX_CARDS or total52(cards)[0] >= 21


def _advance_ponters(state: State, events: list[Event]) -> None:
    deal = state["deal"]
    # In the ponters' order, never a dict's: a state stored as JSON (PostgreSQL's jsonb)
    # comes back with its keys in another order.
    bettors = [p for p in deal["ponters"] if p in deal["bets"]]
    while deal["index"] < len(bettors):
        ponter = bettors[deal["index"]]
        if not _closed(deal["hands"][ponter]):
            state["turn"] = ponter
            return
        events.append({"type": "hand_end", "seat": ponter})  # a natural: nothing to draw
        deal["index"] += 1
    state["phase"] = "banker"
    state["turn"] = state["banker"]


def _outcome(delta: int) -> str:
    return "win" if delta > 0 else "loss" if delta < 0 else "push"


def _settle(state: State, events: list[Event]) -> None:
    deal = state["deal"]
    banker: str = state["banker"]
    hands: dict[str, list[str]] = deal["hands"]
    bets: dict[str, int] = deal["bets"]
    banker_cards = hands[banker]
    banker_total = total52(banker_cards)[0]
    banker_natural = is_natural52(banker_cards)
    banker_bust = banker_total > 21
    everyone_bust = banker_bust and all(total52(hands[p])[0] > 21 for p in bets)
    entries: list[dict[str, Any]] = []
    banker_delta = 0
    for ponter in [p for p in deal["ponters"] if p in bets]:  # table order, not the dict's
        stake = bets[ponter]
        cards = hands[ponter]
        total = total52(cards)[0]
        if banker_natural:
            delta = -stake
        elif total > 21:
            delta = 0 if everyone_bust else -stake
        elif banker_bust or is_natural52(cards):
            delta = 2 * stake
        elif total > banker_total:
            delta = stake
        elif total == banker_total:
            delta = 0
        else:
            delta = -stake
        banker_delta -= delta
        state["deltas"][ponter] += delta
        _add_chips(state, ponter, delta)
        entries.append(
            {
                "seat": ponter,
                "cards": list(cards),
                "total": total,
                "outcome": _outcome(delta),
                "delta": delta,
            }
        )
    state["deltas"][banker] += banker_delta
    _add_chips(state, banker, banker_delta)
    entries.append(
        {"seat": banker, "role": "banker", "cards": list(banker_cards), "total": banker_total}
    )
    unit = {"hands": entries}
    state["rounds"].append(unit)
    events.append({"type": "settle", "deal": deal["number"], "banker": banker, "hands": entries})
    state["deal"] = None
    state["turn"] = None
    state["phase"] = "start"
    _begin_deal(state, events)


# --- the protocol ----------------------------------------------------------------------


def legal(state: State) -> dict[str, Any] | None:
    phase = state["phase"]
    seat = state["turn"]
    if phase == "cut":
        top = shoe.remaining(state) - 1
        return {"seat": seat, "actions": [{"action": "cut", "min": 1, "max": top}]}
    if phase == "bet":
        least = state["options"]["min_bet"]
        most = _bet_max(state, seat)
        return {"seat": seat, "actions": [{"action": "bet", "min": least, "max": most}]}
    if phase in ("ponters", "banker"):
        return {"seat": seat, "actions": [{"action": "hit"}, {"action": "stand"}]}
    return None


def _may(state: State) -> str:
    turn = legal(state)
    if turn is None:
        return "nobody is to act"
    names = ", ".join(entry["action"] for entry in turn["actions"])
    return f"{turn['seat']!r} may: {names}"


def unavailable(state: State, name: str) -> str | None:
    """`cut` belongs to live tables only: in a record it is illegal whoever sends it."""
    if name == "cut" and not state["options"]["cut"]:
        return (
            "cut is for live play only: a hand record stores the shoe in its order after "
            f"the cut; {_may(state)}"
        )
    return None


def act(state: State, action: Action) -> list[Event]:
    name = action["action"]
    events: list[Event] = []
    if name == "cut":
        _cut(state, action, events)
        return events
    phase = state["phase"]
    seat: str = state["turn"]
    if phase == "cut":  # the clock ran out: the server cuts where the seed says
        count = shoe.remaining(state)
        number = state["shoe"]["shuffles"] - 1
        position = 1 + SeedStream(state["source"]["seed"], f"cut:{number}").below(count - 1)
        shoe.cut(state, position)
        events.append({"type": "cut", "seat": seat, "position": position, "by": "server"})
        _deal(state, events)
    elif phase == "bet":
        _bet(state, seat, action, events)
    elif phase == "ponters":
        _ponter_move(state, seat, name, events)
    else:
        _banker_move(state, seat, name, events)
    return events


def _cut(state: State, action: Action, events: list[Event]) -> None:
    # The engine has checked the seat and the phase: `cut` is offered only to the cutter.
    seat = action["seat"]
    position = action.get("position")
    top = shoe.remaining(state) - 1
    if not _whole(position) or not 1 <= position <= top:
        raise RulesError(
            BAD_AMOUNT, f"a cut position is a whole number from 1 to {top}, not {position!r}"
        )
    shoe.cut(state, position)
    events.append({"type": "cut", "seat": seat, "position": position})
    _deal(state, events)


def _bet(state: State, seat: str, action: Action, events: list[Event]) -> None:
    deal = state["deal"]
    if action["action"] == "timeout":
        events.append({"type": "sit_out", "seat": seat, "reason": "timeout"})
    else:
        least = state["options"]["min_bet"]
        most = _bet_max(state, seat)
        amount = action.get("amount")
        if not _whole(amount) or not least <= amount <= most:
            raise RulesError(
                BAD_AMOUNT,
                f"{seat!r} may bet a whole number of chips from {least} to {most}, not {amount!r}",
            )
        deal["bets"][seat] = amount
        events.append({"type": "bet", "seat": seat, "amount": amount})
    deal["index"] += 1
    _advance_bets(state, events)


def _ponter_move(state: State, seat: str, name: str, events: list[Event]) -> None:
    deal = state["deal"]
    if name == "hit":
        card = shoe.draw(state)
        cards: list[str] = deal["hands"][seat]
        cards.append(card)
        events.append({"type": "hit", "seat": seat, "to": seat, "card": card})
        if not _closed(cards):
            return
        events.append({"type": "hand_end", "seat": seat})
    else:
        events.append({"type": "stand", "seat": seat})
    deal["index"] += 1
    _advance_ponters(state, events)


def _banker_move(state: State, seat: str, name: str, events: list[Event]) -> None:
    if name == "hit":
        card = shoe.draw(state)
        cards: list[str] = state["deal"]["hands"][seat]
        cards.append(card)
        events.append({"type": "hit", "seat": seat, "to": seat, "card": card})
        if not _closed(cards):
            return
        events.append({"type": "hand_end", "seat": seat})
    else:
        events.append({"type": "stand", "seat": seat})
    _settle(state, events)


def view(state: State, seat: str | None) -> dict[str, Any]:
    banker = state["banker"]
    seen: dict[str, Any] = {
        "options": dict(state["options"]),
        "seats": [{"id": s["id"], "chips": s["chips"]} for s in state["seats"]],
        "banker": banker,
        "phase": state["phase"],
        "cutter": state["cutter"],
        "shoe": None,
        "deal": None,
        # The last settled deal only, as the other variants show: a long session must
        # not make every view pay for its whole history (it is in the hand records).
        "last_round": _copy_unit(state["rounds"][-1]) if state["rounds"] else None,
        "deltas": dict(state["deltas"]),
    }
    if state["shoe"] is not None:
        seen["shoe"] = {"number": state["shoe"]["shuffles"], "remaining": shoe.remaining(state)}
    deal = state["deal"]
    if deal is not None:
        hands = []
        ponters: list[str] = deal["ponters"]
        for index, holder in enumerate([*ponters, banker]):
            cards: list[str] = deal["hands"][holder]
            entry: dict[str, Any] = {"seat": holder}
            if holder == banker:
                entry["role"] = "banker"
            else:
                entry["bet"] = deal["bets"].get(holder)
                asked = state["phase"] != "bet" or index < deal["index"]
                entry["sat_out"] = asked and holder not in deal["bets"]
            if holder == seat:
                entry["cards"] = list(cards)
                entry["total"] = total52(cards)[0]
            else:
                entry["cards"] = []
                entry["hidden"] = len(cards)
            hands.append(entry)
        seen["deal"] = {"number": deal["number"], "hands": hands}
    return seen


def _copy_unit(unit: dict[str, Any]) -> dict[str, Any]:
    hands = [{**hand, "cards": list(hand["cards"])} for hand in unit["hands"]]
    return {**unit, "hands": hands}


def in_play(state: State) -> dict[str, int]:
    """The bets of the deal in progress: staked, not yet settled."""
    deal = state["deal"]
    return dict(deal["bets"]) if deal is not None else {}


def final(state: State) -> dict[str, Any]:
    return {"banker": state["banker"]}
