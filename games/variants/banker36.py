"""`banker36`: 36 cards, 2–4 players, one of whom holds the bank (docs/rules/banker36.md).

The banker puts the table stake into the bank, every other player gets one card, and the
banker plays a duel with each of them in turn: the player bets one of the offered
amounts, draws, and — unless he went over or reached 21 — the banker draws for this duel
from no cards up to 17. A circle that leaves the bank at three stakes or more calls stuk
once (another circle with the same bank); otherwise the banker takes the bank and the
next seat on his left opens a new one. The record plays `banks` banks.

Also home of what `solo` shares with this variant: the banker's automatic draw to 17 and
who wins a duel once the banker has drawn (`banker_draws`, `player_beats_banker`), and
the reading of whole-number options (`whole_options`).

Variant state, next to the engine's keys:

    "chips":        {seat: chips in front of the seat} (the bank is not in there)
    "banker":       who holds (or, before the first bank, will hold) the bank
    "bank":         the chips in the bank (0 once collected or broken)
    "stuk_called":  whether stuk was called on the current (or last) bank
    "banks_played": banks finished so far
    "discards":     packed cards of this circle's finished duels (the reshuffle pile)
    "circle":       None between banks, else {
        "number":  1, or 2 for the stuk circle,
        "order":   the other players from the banker's left, in table order,
        "turn":    index into "order" of the duel being played,
        "bet":     the current duel's bet (None while the player is still to bet),
        "hands":   {seat: [cards]} the players' cards of this circle,
        "status":  {seat: "waiting" | "playing" | "settled" | "sat_out" | "unplayed"},
        "banker_cards": the banker's cards in the current duel }
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games import shoe
from games.cards import RUSSIAN36, total36
from games.errors import BAD_AMOUNT, BAD_RECORD, DECK_EXHAUSTED, RulesError
from games.shoe import split_cards

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]

CLOCK = True
ACTIONS = frozenset({"bet", "hit", "stand", "timeout"})
HOST_ACTIONS: frozenset[str] = frozenset()

DECK = "russian36"
TWENTY_ONE = 21
BANKER_STANDS_ON = 17
STUK_STAKES = 3
BET_MULTIPLES = (1, 2, 5)
MIN_SEATS = 2
MAX_SEATS = 4
DEFAULTS: dict[str, int] = {"stake": 10, "entry_limit": 100, "banks": 1}


# --- shared with `solo` --------------------------------------------------------------------


def whole_options(
    variant: str, given: Mapping[str, Any], defaults: Mapping[str, int]
) -> dict[str, int]:
    """The variant's options with their defaults; each a whole number ≥ 1 (else `bad_record`)."""
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise RulesError(
            BAD_RECORD,
            f"{variant} has no option {', '.join(map(repr, unknown))}; its options are "
            + ", ".join(f"{key!r} (default {value})" for key, value in defaults.items()),
        )
    options = dict(defaults)
    for key, value in given.items():
        if type(value) is not int or value < 1:
            raise RulesError(
                BAD_RECORD, f"option {key!r} is {value!r}: it must be a whole number of 1 or more"
            )
        options[key] = value
    return options


def banker_draws(cards: list[str], draw: Callable[[], str], *, five_pictures: bool) -> list[str]:
    """The banker's automatic play: one card at a time onto `cards` while the total is
    below 17 (two aces count 21, so he stops on them); returns the cards drawn."""
    drawn: list[str] = []
    while total36(cards, five_pictures=five_pictures) < BANKER_STANDS_ON:
        card = draw()
        cards.append(card)
        drawn.append(card)
    return drawn


def player_beats_banker(player_total: int, banker_total: int) -> tuple[bool, str]:
    """A player who stopped below 21 against the banker's finished draw: a bust banker
    loses, otherwise the higher total wins and equal totals go to the banker. Returns
    whether the player won and the short reason the result shows."""
    if banker_total > TWENTY_ONE:
        return True, "banker_bust"
    if player_total > banker_total:
        return True, "higher"
    if player_total == banker_total:
        return False, "tie_to_banker"
    return False, "lower"


# --- setup -------------------------------------------------------------------------------


def hand_total(cards: list[str]) -> int:
    """A banker36 total: golden point and five pictures count 21."""
    return total36(cards, five_pictures=True)


def setup(state: State, options: dict[str, Any], first_banker: str | None) -> list[Event]:
    opts = whole_options("banker36", options, DEFAULTS)
    # Any entry limit is a valid table (docs/rules/banker36.md §2.1 ties it to nothing but
    # sitting down): a seat that cannot put up the stake is skipped as banker even for
    # the first bank (§3.1) and sits out a duel it cannot afford (§3.4.1). The
    # platform's own tables keep entry_limit ≥ stake (tables/models.py).
    limit = opts["entry_limit"]
    seats: list[dict[str, Any]] = state["seats"]
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise RulesError(
            BAD_RECORD,
            f"banker36 is played by {MIN_SEATS} to {MAX_SEATS} players, not {len(seats)}",
        )
    chips: dict[str, int] = {}
    for seat in seats:
        amount = seat.get("chips")
        if type(amount) is not int or amount < 0:
            raise RulesError(
                BAD_RECORD,
                f"seat {seat['id']!r}: banker36 needs each seat's chips as a whole number ≥ 0",
            )
        if amount < limit:
            raise RulesError(
                BAD_RECORD,
                f"seat {seat['id']!r} has {amount} chips, below the table's entry limit of "
                f"{limit}: it cannot sit down",
            )
        chips[seat["id"]] = amount
    if first_banker is None and state["source"]["stacked"]:
        raise RulesError(
            BAD_RECORD, "first_banker is required when the record stacks a deck (no lot is drawn)"
        )
    state["options"] = opts
    state["chips"] = chips
    state["banker"] = shoe.choose_by_lot(state, list(chips), first_banker)
    state["bank"] = 0
    state["stuk_called"] = False
    state["banks_played"] = 0
    state["discards"] = ""
    state["circle"] = None
    events: list[Event] = []
    _advance(state, events)
    return events


# --- the flow ----------------------------------------------------------------------------


def _offers(state: State, seat: str) -> list[int]:
    """The bets offered to `seat`: 1×, 2×, 5× the stake and the whole bank, each only if
    within both the player's chips and the bank (ascending, without repeats)."""
    stake: int = state["options"]["stake"]
    bank: int = state["bank"]
    cap = min(bank, state["chips"][seat])
    amounts = {stake * k for k in BET_MULTIPLES} | {bank}
    return sorted(amount for amount in amounts if 0 < amount <= cap)


def _advance(state: State, events: list[Event]) -> None:
    """Play everything automatic up to the next decision or the end of the record."""
    while True:
        circle: dict[str, Any] | None = state["circle"]
        if circle is None:
            if state["banks_played"] >= state["options"]["banks"]:
                _finish(state, events, "banks_played")
                return
            banker = _next_banker(state)
            if banker is None:
                _finish(state, events, "no_banker")
                return
            _open_bank(state, banker, events)
            continue
        order: list[str] = circle["order"]
        turn: int = circle["turn"]
        if state["bank"] > 0 and turn < len(order):
            seat = order[turn]
            if circle["bet"] is not None:
                return
            if _offers(state, seat):
                circle["status"][seat] = "playing"
                events.append({"type": "turn", "seat": seat})
                return
            _sit_out(state, seat, "cannot_afford", events)
            continue
        _end_circle(state, events)


def _next_banker(state: State) -> str | None:
    """The first bank goes to the named (or drawn) seat; each new bank to the next seat on
    the left of the last banker, skipping seats that cannot put up the stake."""
    # The seats' list gives the table's order, never a dict: a state stored as JSON
    # (PostgreSQL's jsonb) comes back with its keys in another order.
    table: list[str] = [seat["id"] for seat in state["seats"]]
    size = len(table)
    at = table.index(state["banker"])
    start = at if state["banks_played"] == 0 else at + 1
    stake: int = state["options"]["stake"]
    for step in range(size):
        seat = table[(start + step) % size]
        if state["chips"][seat] >= stake:
            return seat
    return None


def _open_bank(state: State, banker: str, events: list[Event]) -> None:
    stake: int = state["options"]["stake"]
    state["banker"] = banker
    state["chips"][banker] -= stake
    state["bank"] = stake
    state["stuk_called"] = False
    events.append(
        {"type": "bank_open", "banker": banker, "bank": stake, "number": state["banks_played"] + 1}
    )
    _start_circle(state, 1, events)


def _start_circle(state: State, number: int, events: list[Event]) -> None:
    """A fresh deck; one card to each other player from the banker's left, in table order."""
    table = [seat["id"] for seat in state["seats"]]  # table order (see _next_banker)
    at = table.index(state["banker"])
    order = table[at + 1 :] + table[:at]
    shoe.start(state, DECK, RUSSIAN36)
    state["discards"] = ""
    hands: dict[str, list[str]] = {}
    state["circle"] = {
        "number": number,
        "order": order,
        "turn": 0,
        "bet": None,
        "hands": hands,
        "status": dict.fromkeys(order, "waiting"),
        "banker_cards": [],
    }
    events.append(
        {
            "type": "circle_start",
            "banker": state["banker"],
            "bank": state["bank"],
            "circle": number,
            "order": list(order),
        }
    )
    for seat in order:
        card = _draw(state, events)
        hands[seat] = [card]
        events.append({"type": "deal", "seat": seat, "to": seat, "card": card})


def _draw(state: State, events: list[Event]) -> str:
    """The next card; an empty stock is rebuilt from this circle's discards first."""
    if shoe.remaining(state) == 0:
        pile = split_cards(state["discards"])
        if not pile:
            raise RulesError(DECK_EXHAUSTED, "the stock is empty and there are no discards")
        shoe.start(state, DECK, pile)
        state["discards"] = ""
        events.append({"type": "reshuffle", "count": len(pile)})
    return shoe.draw(state)


def _sit_out(state: State, seat: str, reason: str, events: list[Event]) -> None:
    """No duel for `seat` in this circle; his card joins the discards unseen."""
    circle: dict[str, Any] = state["circle"]
    circle["status"][seat] = "sat_out"
    state["discards"] += "".join(circle["hands"][seat])
    circle["turn"] += 1
    events.append({"type": "sit_out", "seat": seat, "reason": reason})


def _end_circle(state: State, events: list[Event]) -> None:
    circle: dict[str, Any] = state["circle"]
    for seat, status in circle["status"].items():
        if status in ("waiting", "playing"):
            circle["status"][seat] = "unplayed"
    banker: str = state["banker"]
    bank: int = state["bank"]
    stake: int = state["options"]["stake"]
    state["circle"] = None
    if bank == 0:
        state["banks_played"] += 1
        events.append({"type": "bank_broken", "banker": banker})
    elif bank >= STUK_STAKES * stake and not state["stuk_called"]:
        state["stuk_called"] = True
        events.append({"type": "stuk", "banker": banker, "bank": bank})
        _start_circle(state, 2, events)
    else:
        state["chips"][banker] += bank
        state["bank"] = 0
        state["banks_played"] += 1
        events.append({"type": "collect", "banker": banker, "amount": bank})


def _finish(state: State, events: list[Event], reason: str) -> None:
    state["finished"] = True
    events.append({"type": "finished", "reason": reason, "deltas": dict(state["deltas"])})


# --- actions -----------------------------------------------------------------------------


def legal(state: State) -> dict[str, Any] | None:
    circle: dict[str, Any] | None = state["circle"]
    if circle is None:
        return None
    seat: str = circle["order"][circle["turn"]]
    if circle["bet"] is None:
        return {"seat": seat, "actions": [{"action": "bet", "amounts": _offers(state, seat)}]}
    return {"seat": seat, "actions": [{"action": "hit"}, {"action": "stand"}]}


def unavailable(state: State, name: str) -> str | None:
    """Every action this variant knows is possible in some game of it."""
    return None


def act(state: State, action: Action) -> list[Event]:
    events: list[Event] = []
    circle: dict[str, Any] = state["circle"]
    seat: str = circle["order"][circle["turn"]]
    name = action["action"]
    if circle["bet"] is None:
        if name == "timeout":
            _sit_out(state, seat, "timeout", events)
        else:
            _bet(state, seat, action.get("amount"), events)
    elif name == "hit":
        hand: list[str] = circle["hands"][seat]
        card = _draw(state, events)
        hand.append(card)
        total = hand_total(hand)
        # No "total" here: the event goes to every seat with only the card stripped
        # (engine.events_for), and a total would give away the player's private hand
        # (docs/rules/banker36.md §4); the holder's view shows his total.
        events.append({"type": "hit", "seat": seat, "to": seat, "card": card})
        if total > TWENTY_ONE:
            _settle(state, seat, False, "bust", events)
        elif total == TWENTY_ONE:
            _settle(state, seat, True, "twenty_one", events)
    else:  # stand, or the clock ran out while drawing
        events.append({"type": "stand", "seat": seat, "timeout": name == "timeout"})
        _banker_plays(state, seat, events)
    _advance(state, events)
    return events


def _bet(state: State, seat: str, amount: object, events: list[Event]) -> None:
    offers = _offers(state, seat)
    if type(amount) is not int or amount not in offers:
        raise RulesError(
            BAD_AMOUNT,
            f"{amount!r} is not an offered bet; {seat!r} may bet "
            + ", ".join(map(str, offers))
            + f" (1×, 2×, 5× the stake and the whole bank of {state['bank']}, "
            "within the player's chips and the bank)",
        )
    state["circle"]["bet"] = amount
    events.append(
        {"type": "bet", "seat": seat, "amount": amount, "all_in": amount == state["bank"]}
    )


def _banker_plays(state: State, seat: str, events: list[Event]) -> None:
    circle: dict[str, Any] = state["circle"]
    banker_cards: list[str] = circle["banker_cards"]
    banker: str = state["banker"]

    def draw() -> str:
        card = _draw(state, events)
        events.append(
            {
                "type": "banker_draw",
                "seat": banker,
                "card": card,
                "total": hand_total([*banker_cards, card]),
            }
        )
        return card

    banker_draws(banker_cards, draw, five_pictures=True)
    player_total = hand_total(circle["hands"][seat])
    banker_total = hand_total(banker_cards)
    won, reason = player_beats_banker(player_total, banker_total)
    _settle(state, seat, won, reason, events)


def _settle(state: State, seat: str, won: bool, reason: str, events: list[Event]) -> None:
    """Pay the duel between the bank and `seat`, log it and clear the table for the next."""
    circle: dict[str, Any] = state["circle"]
    bet: int = circle["bet"]
    banker: str = state["banker"]
    hand: list[str] = circle["hands"][seat]
    banker_cards: list[str] = circle["banker_cards"]
    delta = bet if won else -bet
    state["chips"][seat] += delta
    state["bank"] -= delta
    deltas: dict[str, int] = state["deltas"]
    deltas[seat] += delta
    deltas[banker] -= delta
    total = hand_total(hand)
    outcome = "win" if won else "loss"
    state["rounds"].append(
        {
            "hands": [
                {
                    "seat": seat,
                    "cards": list(hand),
                    "total": total,
                    "outcome": outcome,
                    "delta": delta,
                },
                {
                    "seat": banker,
                    "role": "banker",
                    "cards": list(banker_cards),
                    "total": hand_total(banker_cards),
                },
            ],
            "bank": state["bank"],
        }
    )
    events.append({"type": "reveal", "seat": seat, "cards": list(hand), "total": total})
    events.append(
        {
            "type": "settle",
            "seat": seat,
            "outcome": outcome,
            "reason": reason,
            "delta": delta,
            "bank": state["bank"],
        }
    )
    state["discards"] += "".join(hand) + "".join(banker_cards)
    circle["status"][seat] = "settled"
    circle["banker_cards"] = []
    circle["bet"] = None
    circle["turn"] += 1


# --- views and result --------------------------------------------------------------------


def view(state: State, seat: str | None) -> dict[str, Any]:
    """Chips, bank and the banker's draws are public; a player's cards are his own until
    his duel settles (a seat that sat out or never played keeps them hidden)."""
    circle: dict[str, Any] | None = state["circle"]
    seen: dict[str, Any] = {
        "stake": state["options"]["stake"],
        "entry_limit": state["options"]["entry_limit"],
        "banks": state["options"]["banks"],
        "banks_played": state["banks_played"],
        "seats": [{"id": s["id"], "chips": state["chips"][s["id"]]} for s in state["seats"]],
        "banker": state["banker"],
        "bank": state["bank"],
        "stuk_called": state["stuk_called"],
        "deltas": dict(state["deltas"]),
        "last_duel": _copy_unit(state["rounds"][-1]) if state["rounds"] else None,
        "circle": None,
    }
    if circle is not None:
        hands: list[dict[str, Any]] = []
        for player in circle["order"]:
            cards: list[str] = circle["hands"][player]
            status: str = circle["status"][player]
            entry: dict[str, Any] = {"seat": player, "status": status}
            if player == seat or status == "settled":
                entry["cards"] = list(cards)
                entry["total"] = hand_total(cards)
            else:
                entry["cards"] = []
                entry["hidden"] = len(cards)
            hands.append(entry)
        on_turn = circle["order"][circle["turn"]] if circle["turn"] < len(circle["order"]) else None
        seen["circle"] = {
            "number": circle["number"],
            "hands": hands,
            "duel": None
            if on_turn is None
            else {
                "seat": on_turn,
                "bet": circle["bet"],
                "banker_cards": list(circle["banker_cards"]),
                "banker_total": hand_total(circle["banker_cards"]),
            },
        }
    return seen


def _copy_unit(unit: dict[str, Any]) -> dict[str, Any]:
    return {**unit, "hands": [{**hand, "cards": list(hand["cards"])} for hand in unit["hands"]]}


def in_play(state: State) -> dict[str, int]:
    """Chips on the table, by owner: the bank (the banker's until a collection settles it)
    and the bet of the duel in progress."""
    staked: dict[str, int] = {}
    if state["bank"]:
        staked[state["banker"]] = state["bank"]
    circle: dict[str, Any] | None = state["circle"]
    if circle is not None and circle["bet"] is not None:
        staked[circle["order"][circle["turn"]]] = circle["bet"]
    return staked


def final(state: State) -> dict[str, Any]:
    return {"bank": state["bank"], "stuk_called": state["stuk_called"]}
