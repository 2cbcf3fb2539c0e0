"""`solo`: one player against the computer banker, for the game's own coins (docs/rules/solo.md).

Every round is dealt from a freshly shuffled `russian36` deck: one card to the player (face
up), one to the banker (face down). The player bets after the first card, then draws or
stops; 21 (or the golden point) wins at once, over 21 loses at once; otherwise the banker
turns his card up and draws to 17 (`banker36.banker_draws`, shared). The game ends when the
bank is broken, the player is broke, or one round after stuk. Rounds do not follow each
other by themselves: «Следующая раздача» (`next_round`) is the player's choice.

Variant state, next to the engine's keys:

    "player":  the one seat's id
    "coins", "bank": the player's coins (a bet in play already taken out) and the bank
    "stuk":    True once stuk has been declared in this game (the next round is the last)
    "game_over": None, "bank_broken", "player_broke", "bank_closed" or "rounds_played"
    "phase":   "bet" (first card dealt), "draw" (bet confirmed), "over" (round settled)
    "hand", "banker_cards": this round's cards; "banker_cards"[0] is the face-down card
    "revealed": whether the banker's card has been turned up
    "bet":     the confirmed bet in play (None before the bet and after the round)
    "result":  the last settled round's outcome, delta and reason (None in a new game)
    "game":    the number of the game within the record (``new_game`` starts the next)

``state["deltas"]`` also carries ``"bank"``, the bank's change, so coins + bank are
constant: every delta of the player is the bank's opposite.
"""

from __future__ import annotations

from typing import Any

from games import shoe
from games.cards import RUSSIAN36, total36
from games.errors import BAD_AMOUNT, BAD_RECORD, RulesError
from games.variants.banker36 import banker_draws, player_beats_banker, whole_options

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]

CLOCK = False
ACTIONS = frozenset({"bet", "hit", "stand", "restart", "next_round", "new_game"})
HOST_ACTIONS: frozenset[str] = frozenset()

DECK = "russian36"
BANKER = "banker"
BANK = "bank"
TWENTY_ONE = 21
STUK_MULTIPLE = 3
DEFAULTS: dict[str, int] = {"start_coins": 1000, "start_bank": 300}
# The option without a default: a game of that many rounds at most (absent: no limit).
ROUNDS = "rounds"


def _options(options: dict[str, Any]) -> dict[str, int]:
    """The options with their defaults; `rounds` only where given, so a record without it
    keeps the options it always had."""
    given = dict(options)
    rounds = given.pop(ROUNDS, None)
    opts = whole_options("solo", given, DEFAULTS)
    if ROUNDS in options:
        if type(rounds) is not int or rounds < 1:
            raise RulesError(
                BAD_RECORD,
                f"option 'rounds' is {rounds!r}: it must be a whole number of 1 or more",
            )
        opts[ROUNDS] = rounds
    return opts


def setup(state: State, options: dict[str, Any], first_banker: str | None) -> list[Event]:
    opts = _options(options)
    seats: list[dict[str, Any]] = state["seats"]
    if len(seats) != 1:
        raise RulesError(BAD_RECORD, f"solo is played by exactly one seat, not {len(seats)}")
    player: str = seats[0]["id"]
    if player in (BANKER, BANK):
        raise RulesError(
            BAD_RECORD,
            f"the seat cannot be called {player!r}: results name the computer banker "
            f"{BANKER!r} and the bank's change {BANK!r}",
        )
    # The banker is the computer and coins are solo's own: `first_banker` and `chips`
    # mean nothing here and are ignored.
    state["options"] = opts
    state["deltas"][BANK] = 0
    state["player"] = player
    state["game"] = 0
    events: list[Event] = []
    _new_game(state, events)
    return events


# --- the flow ----------------------------------------------------------------------------


def _new_game(state: State, events: list[Event]) -> None:
    opts: dict[str, int] = state["options"]
    state["game"] += 1
    state["coins"] = opts["start_coins"]
    state["bank"] = opts["start_bank"]
    state["stuk"] = False
    state["game_over"] = None
    events.append(
        {"type": "new_game", "game": state["game"], "coins": state["coins"], "bank": state["bank"]}
    )
    _new_round(state, events)


def _new_round(state: State, events: list[Event]) -> None:
    """A fresh shuffle and the deal."""
    shoe.start(state, DECK, RUSSIAN36, replayable=True)
    state["result"] = None
    events.append({"type": "round_start", "coins": state["coins"], "bank": state["bank"]})
    _deal(state, events)


def _deal(state: State, events: list[Event]) -> None:
    """One card to the player, face up; one to the banker, face down (no card in the event)."""
    player: str = state["player"]
    card = shoe.draw(state)
    state["hand"] = [card]
    events.append({"type": "deal", "seat": player, "card": card, "total": total36([card])})
    state["banker_cards"] = [shoe.draw(state)]
    events.append({"type": "deal", "seat": BANKER, "face_down": True})
    state["revealed"] = False
    state["bet"] = None
    state["phase"] = "bet"


def _max_bet(state: State) -> int:
    coins: int = state["coins"]
    bank: int = state["bank"]
    return min(coins, bank)


def legal(state: State) -> dict[str, Any] | None:
    phase = state["phase"]
    if phase == "bet":
        actions: list[dict[str, Any]] = [
            {"action": "bet", "min": 1, "max": _max_bet(state)},
            {"action": "restart"},
            {"action": "new_game"},
        ]
    elif phase == "draw":
        actions = [{"action": "hit"}, {"action": "stand"}]
    else:
        actions = [{"action": "next_round"}, {"action": "new_game"}]
    if ROUNDS in state["options"]:
        actions = [a for a in actions if a["action"] != "new_game"]
    return {"seat": state["player"], "actions": actions}


def unavailable(state: State, name: str) -> str | None:
    """A game of a fixed number of rounds is the record's one game: a new one would give
    the coins back (a tournament's heat would start over when it went badly)."""
    if name == "new_game" and ROUNDS in state["options"]:
        return (
            f"new_game is not possible in a game of {state['options'][ROUNDS]} rounds "
            "(option 'rounds'): it is the record's only game"
        )
    return None


def act(state: State, action: Action) -> list[Event]:
    events: list[Event] = []
    name = action["action"]
    player: str = state["player"]
    if name == "bet":
        _bet(state, action.get("amount"), events)
    elif name == "hit":
        hand: list[str] = state["hand"]
        card = shoe.draw(state)
        hand.append(card)
        total = total36(hand)
        events.append({"type": "hit", "seat": player, "card": card, "total": total})
        if total > TWENTY_ONE:
            _settle(state, False, "bust", events)
        elif total == TWENTY_ONE:
            _settle(state, True, "golden_point" if len(hand) == 2 else "twenty_one", events)
    elif name == "stand":
        events.append({"type": "stand", "seat": player, "total": total36(state["hand"])})
        _banker_plays(state, events)
    elif name == "restart":
        _skip_relisted_cards(state)
        shoe.redeal(state)
        events.append({"type": "restart"})
        _deal(state, events)
    elif name == "next_round":
        _new_round(state, events)
    else:  # new_game
        _new_game(state, events)
    return events


def _skip_relisted_cards(state: State) -> None:
    """«Начать заново» deals the very same card order again (docs/rules/solo.md §5.3), so
    a stacked deck need not list the redealt cards twice. A record that does list them
    again (the deck read as every card drawn, in order) means the same thing: the redealt
    cards cannot come a second time from the one `russian36` stock of this shuffle, so
    read that way only a deck that would otherwise be an `invalid_deck`."""
    drawn: str | None = state["shoe"]["drawn"]
    source: dict[str, Any] = state["source"]
    if drawn and source["stacked"].startswith(drawn):
        source["stacked"] = source["stacked"][len(drawn) :]


def _bet(state: State, amount: object, events: list[Event]) -> None:
    most = _max_bet(state)
    if type(amount) is not int or not 1 <= amount <= most:
        raise RulesError(
            BAD_AMOUNT,
            f"{amount!r} is not a bet here: a bet is a whole number of coins from 1 to {most} "
            f"(the smaller of the player's {state['coins']} coins and the bank of {state['bank']})",
        )
    state["coins"] -= amount
    state["bet"] = amount
    state["phase"] = "draw"
    events.append(
        {"type": "bet", "seat": state["player"], "amount": amount, "coins": state["coins"]}
    )


def _reveal(state: State, events: list[Event]) -> None:
    if not state["revealed"]:
        state["revealed"] = True
        card: str = state["banker_cards"][0]
        events.append({"type": "reveal", "seat": BANKER, "card": card, "total": total36([card])})


def _banker_plays(state: State, events: list[Event]) -> None:
    _reveal(state, events)
    banker_cards: list[str] = state["banker_cards"]

    def draw() -> str:
        card = shoe.draw(state)
        events.append(
            {"type": "banker_draw", "card": card, "total": total36([*banker_cards, card])}
        )
        return card

    banker_draws(banker_cards, draw, five_pictures=False)
    player_total = total36(state["hand"])
    banker_total = total36(banker_cards)
    won, reason = player_beats_banker(player_total, banker_total)
    _settle(state, won, reason, events)


def _settle(state: State, won: bool, reason: str, events: list[Event]) -> None:
    """Pay the round, log it (the banker's face-down card included) and see if the game
    is over: bank broken, player broke, or the round after stuk."""
    _reveal(state, events)
    player: str = state["player"]
    bet: int = state["bet"]
    delta = bet if won else -bet
    if won:
        state["coins"] += 2 * bet
    state["bank"] -= delta
    state["deltas"][player] += delta
    state["deltas"][BANK] -= delta
    hand: list[str] = state["hand"]
    banker_cards: list[str] = state["banker_cards"]
    outcome = "win" if won else "loss"
    state["rounds"].append(
        {
            "hands": [
                {
                    "seat": player,
                    "cards": list(hand),
                    "total": total36(hand),
                    "outcome": outcome,
                    "delta": delta,
                },
                {
                    "seat": BANKER,
                    "role": "banker",
                    "cards": list(banker_cards),
                    "total": total36(banker_cards),
                },
            ]
        }
    )
    state["bet"] = None
    state["phase"] = "over"
    state["result"] = {"outcome": outcome, "delta": delta, "reason": reason}
    events.append(
        {
            "type": "settle",
            "seat": player,
            "outcome": outcome,
            "reason": reason,
            "delta": delta,
            "coins": state["coins"],
            "bank": state["bank"],
        }
    )
    start_bank: int = state["options"]["start_bank"]
    if state["bank"] == 0:
        over: str | None = "bank_broken"
    elif state["coins"] == 0:
        over = "player_broke"
    elif state["stuk"]:
        over = "bank_closed"
    elif ROUNDS in state["options"] and len(state["rounds"]) >= state["options"][ROUNDS]:
        over = "rounds_played"
    else:
        over = None
        if state["bank"] >= STUK_MULTIPLE * start_bank:
            state["stuk"] = True
            events.append({"type": "stuk", "bank": state["bank"]})
    if over is not None:
        state["game_over"] = over
        state["finished"] = True
        events.append(
            {"type": "finished", "reason": over, "coins": state["coins"], "bank": state["bank"]}
        )


# --- views and result --------------------------------------------------------------------


def view(state: State, seat: str | None) -> dict[str, Any]:
    """The player's cards are face up; the banker's first card is absent until turned up.
    Coins, bank and the bet in play are always on display."""
    banker_cards: list[str] = state["banker_cards"]
    banker: dict[str, Any]
    if state["revealed"]:
        banker = {"cards": list(banker_cards), "total": total36(banker_cards)}
    else:
        banker = {"cards": banker_cards[1:], "hidden": 1}
    hand: list[str] = state["hand"]
    return {
        "player": state["player"],
        "coins": state["coins"],
        "bank": state["bank"],
        "bet": state["bet"],
        "start_coins": state["options"]["start_coins"],
        "start_bank": state["options"]["start_bank"],
        "stuk": state["stuk"],
        "game_over": state["game_over"],
        "game": state["game"],
        "phase": state["phase"],
        "hand": {"cards": list(hand), "total": total36(hand)},
        "banker": banker,
        "result": dict(state["result"]) if state["result"] else None,
        # A game of a fixed number of rounds (a tournament's heat) shows how far it is.
        "rounds_total": state["options"].get(ROUNDS),
        "rounds_played": len(state["rounds"]),
    }


def in_play(state: State) -> dict[str, int]:
    """Nothing is staked in chips: solo plays for coins that stay in its state."""
    return {}


def final(state: State) -> dict[str, Any]:
    return {
        "coins": state["coins"],
        "bank": state["bank"],
        "stuk": state["stuk"],
        "game_over": state["game_over"],
    }
