"""Decision review: what each option of a player's decision was worth, from the seat's view.

`assess(variant, view)` values every option the acting seat has, computed from that
seat's view (`games.engine.view`) and nothing else: a hole card, the stock or another
player's private cards cannot change a value, because they are not an input. Values are
expected results in the game's own currency for the stake in play (`blackjack` units,
`classic` points, `banker36` and `salon` chips, `solo` coins), with optimal play afterwards.

`review_record(record)` replays a hand record (docs/hand-record.md) and
assesses every decision in it: the options' values, the one chosen, the best, and the
value lost against the best (0 for a best choice).

What is conditioned on (docs/strategy.md, "Decision review"):

* `classic` — the seat's own cards and the dealer's up-card (a fresh deck every round;
  the other players' cards are hidden from the seat). The player acts knowing the dealer
  has no natural (the round would have ended). Hit and stand are exact: every card is
  drawn without replacement, for the player and for the dealer; the players who act
  later do not change that (their draws come before the dealer's, but a seat that cannot
  see them may treat the dealer's cards as the next unseen ones). Not used: how many
  cards the players before the seat hold (the view shows the count, not the cards).
  Every hand against one up-card shares one memo of exact values (`_Exact`), so a review
  pays for each multiset of player cards once per process (`prepare("classic")` computes
  them all, about 1.5 s).
* `blackjack` — the seat's own hands and the dealer's up-card, as the strategy engine
  does. The other seats' cards and earlier rounds of the shoe are visible too, but are
  not counted: the values are the basic-strategy player's, not a card counter's (and with
  six decks they move a value by thousandths of a unit). Values come from the strategy
  engine's model (`_twentyone.make_situation` with the seat's cards removed: the dealer
  exact, the player's later cards at fixed probabilities). Against the exact values
  (`_exact`, every card without replacement) over every two-card hand and up-card,
  stand is the same number, hit is within 0.002 units (0.0006 on average), double within
  0.0035 (for the doubled wager), and the best play is the same but for T,2 vs 4, where
  the model stands and hitting is better by 0.00075 (tests/games/strategy/test_review.py
  measures it). A split is the model's branching count, with only as many resplits as
  the seat's hands still allow.
* `banker36`, `solo` — the seat's own cards (`games.strategy.banker36`, exact; in
  `banker36` the cards of duels settled earlier in the circle are shown but not counted).
  A bet made after the first card is worth ``amount × EV per chip of that card``.

* `salon` — the seat's own cards, and for the banker the ponters' stakes and how many
  cards each holds (`games.strategy.salon`, which states the model: the banker as a
  ponter sees him draws below 17; a ponter as the banker sees him plays the coach's play).
  A ponter's values are exact under that model; a bet is worth ``amount × EV per chip of
  the two cards`` (the banker's natural counted), its options the table's bounds; a
  timeout on a bet (no bet) is not reviewed. Values are in chips.

A decision's loss is the best option's value minus the chosen one's, stored to
`DIGITS` decimals: a choice within 0.00005 of the best counts as a best choice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from games import engine
from games.strategy import banker36 as duel36
from games.strategy._twentyone import (
    ACE,
    BUST,
    RANK_CHARS,
    STEP,
    TEN,
    ExactShoe,
    Rules,
    Situation,
    hand_state,
    make_situation,
    rank_index,
    state_total,
)
from games.strategy.blackjack import BLACKJACK_RULES
from games.strategy.classic import CLASSIC_RULES, POINTS

REVIEWED = ("blackjack", "classic", "banker36", "solo", "salon")
PLAY = ("hit", "stand", "double", "split")
DIGITS = 4  # values are rounded to this many decimals when stored
# A loss at most this is a best choice (a tie, or the rounding of stored values).
MISTAKE_EPSILON = 1e-9


@dataclass(frozen=True)
class Option:
    action: str
    value: float
    amount: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "value": round(self.value, DIGITS)}
        if self.amount is not None:
            out["amount"] = self.amount
        return out


@dataclass(frozen=True)
class Assessment:
    """The options of one decision. `situation` names the kind of decision for statistics:
    ``hard16:T``, ``soft18:A``, ``pair8:T`` (52-card games: the hand and the dealer's
    up-card), ``total14`` (a 36-card hand), ``bet:A`` (a bet on that first card)."""

    situation: str
    options: tuple[Option, ...]
    # A bet of any whole amount in a range (`solo`): its bounds and the value per coin;
    # `options` then holds the two bounds, and `option_for` values any amount between.
    bet_range: tuple[int, int] | None = None
    per_amount: float = 0.0

    @property
    def best(self) -> Option:
        return max(self.options, key=lambda option: option.value)

    def option_for(self, action: Mapping[str, Any]) -> Option | None:
        """The option an action took (a timeout stands), or None if it is not one."""
        name = action.get("action")
        if name == "timeout":
            name = "stand"
        amount = action.get("amount")
        if name == "bet" and self.bet_range is not None and type(amount) is int:
            low, high = self.bet_range
            return (
                Option("bet", self.per_amount * amount, amount) if low <= amount <= high else None
            )
        for option in self.options:
            if option.action == name and (
                option.amount is None or option.amount == action.get("amount")
            ):
                return option
        return None


# --- 52-card games: exact hit / stand / double --------------------------------------------


def _ranks(cards: Sequence[str]) -> list[int]:
    return [rank_index(card) for card in cards]


class _Exact(ExactShoe):
    """Exact hit / stand / double values for one up-card and one unseen shoe, with the
    best play after a hit.

    `base` is the shoe the seat has not seen *plus* the cards of the hand being valued
    (for `classic`: the full deck minus the up-card). Every hand of the same up-card
    shares the memo, so a review pays for each multiset of player cards once per
    process, not once per decision.
    """

    def __init__(self, rules: Rules, upcard: int, base: tuple[int, ...]) -> None:
        super().__init__(rules, upcard, base)
        self._best: dict[tuple[int, ...], float] = {}

    def best(self, state: int, hand: tuple[int, ...]) -> float:
        if state == BUST or state_total(state)[0] >= 21:
            return self.settle(state, hand)
        value = self._best.get(hand)
        if value is None:
            value = self._best[hand] = max(self.settle(state, hand), self.hit(state, hand))
        return value

    def hit(self, state: int, hand: tuple[int, ...]) -> float:
        return sum(p * self.best(STEP[state][r], more) for p, more, r in self.draws(hand))

    def values(self, hand: tuple[int, ...]) -> tuple[float, float, float]:
        """(stand, hit, double) EVs per unit of `hand`; with a peeking dealer, conditional
        on the dealer having no natural."""
        state = hand_state([r for r in range(10) for _ in range(hand[r])])
        stand, hit = self.settle(state, hand), self.hit(state, hand)
        double = self.double(state, hand)
        if self.rules.dealer_peeks:
            keep = 1.0 - self.p_natural(hand)
            return stand / keep, hit / keep, double / keep
        return stand, hit, double


@cache
def _exact_game(rules: Rules, upcard: int, base: tuple[int, ...]) -> _Exact:
    return _Exact(rules, upcard, base)


def _exact(
    rules: Rules, upcard: int, base: tuple[int, ...], hand: tuple[int, ...]
) -> tuple[float, float, float]:
    """(stand, hit, double) EVs per unit of a hand (`hand`: its cards, counts by rank),
    its further cards and the dealer's drawn without replacement from `base` minus the
    hand (`base`: what the seat has not seen, the hand's own cards included). With a
    peeking dealer the values are conditional on the dealer having no natural."""
    return _exact_game(rules, upcard, base).values(hand)


@cache
def _model(rules: Rules, upcard: int, seen: tuple[int, ...]) -> tuple[Situation, list[float]]:
    situation = make_situation(rules, upcard, seen)
    return situation, situation.values()


def _model_values(rules: Rules, upcard: int, seen: tuple[int, ...], state: int) -> dict[str, float]:
    """(stand, hit, double) EVs per unit by the strategy engine's model."""
    situation, value = _model(rules, upcard, seen)
    return {
        "stand": situation.stand_ev(state),
        "hit": situation.hit_ev(state, value),
        "double": situation.double_ev(state),
    }


def _split_value(
    rules: Rules, upcard: int, seen: tuple[int, ...], pair: int, held: int = 1
) -> float:
    """The model's EV of splitting `pair` (strategy engine, initial removal) when the seat
    holds `held` hands (a resplit when more than one): the split makes one more hand, and
    resplits may go on only up to the rules' limit on the seat's hands."""
    situation, value = _model(rules, upcard, seen)
    das = rules.double_allowed and rules.double_after_split
    if held > 1:
        # The engine's branching count starts from the two hands of a first split; with
        # `held` hands already, `held - 1` fewer may still be made.
        limit = max(2, rules.max_hands - (held - 1))
        fewer = dataclasses.replace(rules, max_hands=limit)
        situation = dataclasses.replace(situation, rules=fewer)

    def split_hand(s: int) -> float:
        hit = sum(situation.draw[r] * value[STEP[s][r]] for r in range(10))
        best = max(situation.stand_ev(s), hit)
        return max(best, situation.double_ev(s)) if das else best

    return situation.split_ev(pair, split_hand)


def _situation_52(cards: Sequence[int], upcard: int) -> str:
    up = RANK_CHARS[upcard]
    if len(cards) == 2 and cards[0] == cards[1]:
        return f"pair{RANK_CHARS[cards[0]]}:{up}"
    total, soft = state_total(hand_state(cards))
    return f"{'soft' if soft else 'hard'}{total}:{up}"


def _assess_52(
    rules: Rules,
    scale: float,
    hand: Sequence[str],
    upcard_card: str,
    seen_cards: Sequence[str],
    legal: set[str],
    *,
    exact: bool,
    held: int = 1,
) -> Assessment:
    cards = _ranks(hand)
    upcard = rank_index(upcard_card)
    seen = tuple(sorted(_ranks(seen_cards)))  # the cards counted, but the up-card
    state = hand_state(cards)
    if exact:
        own = [0] * 10
        for r in cards:
            own[r] += 1
        base = list(rules.full_shoe())
        base[upcard] -= 1
        for r in seen:
            base[r] -= 1
        for r in cards:  # the hand's own cards are drawn from `base`
            base[r] += 1
        stand, hit, double = _exact(rules, upcard, tuple(base), tuple(own))
        values = {"stand": stand, "hit": hit, "double": double}
    else:
        values = _model_values(rules, upcard, seen, state)
    if "split" in legal:
        values["split"] = _split_value(rules, upcard, seen, cards[0], held)
    options = tuple(Option(name, scale * values[name]) for name in PLAY if name in legal)
    return Assessment(_situation_52(cards, upcard), options)


def _assess_classic(view: Mapping[str, Any], legal: set[str]) -> Assessment | None:
    current = view.get("round")
    if current is None:
        return None
    mine = next((h for h in current["hands"] if h["seat"] == view["turn"] and h.get("cards")), None)
    upcards = current["dealer"]["cards"]
    if mine is None or not upcards:
        return None
    return _assess_52(
        CLASSIC_RULES, POINTS, mine["cards"], upcards[0], mine["cards"], legal, exact=True
    )


def _assess_blackjack(view: Mapping[str, Any], legal: set[str]) -> Assessment | None:
    hands = view.get("hands") or []
    index = view.get("hand")
    upcards = (view.get("dealer") or {}).get("cards") or []
    if index is None or index >= len(hands) or not upcards:
        return None
    seen = [card for h in hands for card in h["cards"]]
    wager = hands[index].get("wager", 1)
    return _assess_52(
        BLACKJACK_RULES,
        wager,
        hands[index]["cards"],
        upcards[0],
        seen,
        legal,
        exact=False,
        held=len(hands),
    )


# --- 36-card games: the duel ---------------------------------------------------------------


def _assess_duel(
    strategy: duel36.Banker36Strategy,
    cards: Sequence[str],
    stake: int | None,
    actions: Sequence[Mapping[str, Any]],
) -> Assessment | None:
    names = {a["action"] for a in actions}
    if "bet" in names:
        bet = next(a for a in actions if a["action"] == "bet")
        amounts = sorted(set(bet.get("amounts") or (bet["min"], bet["max"])))
        if len(amounts) < 2 or len(cards) != 1:
            return None  # one offer is no choice
        ev = strategy.first_card_ev(cards[0])
        options = tuple(Option("bet", ev * amount, amount) for amount in amounts)
        situation = f"bet:{duel36.RANKS[duel36.rank_index(cards[0])]}"
        if "amounts" in bet:
            return Assessment(situation, options)
        return Assessment(situation, options, (amounts[0], amounts[-1]), ev)
    if {"hit", "stand"} <= names and stake:
        stand, draw = strategy.values(cards)
        total = duel36.hand_total(duel36._cards(cards), strategy.five_pictures)
        return Assessment(
            f"total{total}", (Option("hit", stake * draw), Option("stand", stake * stand))
        )
    return None


def _assess_banker36(view: Mapping[str, Any], legal: set[str]) -> Assessment | None:
    circle = view.get("circle") or {}
    duel = circle.get("duel") or {}
    mine = next((h for h in circle.get("hands") or [] if h["seat"] == view["turn"]), None)
    if mine is None or not mine.get("cards") or duel.get("seat") != view["turn"]:
        return None
    return _assess_duel(duel36.compute_strategy(), mine["cards"], duel.get("bet"), view["actions"])


def _assess_solo(view: Mapping[str, Any], legal: set[str]) -> Assessment | None:
    from games.strategy import solo

    cards = (view.get("hand") or {}).get("cards") or []
    if not cards:
        return None
    return _assess_duel(solo.compute_strategy(), cards, view.get("bet"), view["actions"])


# --- salon: a player's bank, decided blind ---------------------------------------------------


def _assess_salon(view: Mapping[str, Any], legal: set[str]) -> Assessment | None:
    from games.strategy import salon

    deal = view.get("deal") or {}
    hands = deal.get("hands") or []
    seat = view["turn"]
    mine = next((h for h in hands if h["seat"] == seat), None)
    if mine is None or not mine.get("cards"):
        return None
    own = salon.hand_of(_ranks(mine["cards"]))
    points = salon.total(own)
    others = [h for h in hands if h["seat"] != seat and h.get("role") != "banker"]
    if "bet" in legal and mine.get("role") != "banker":
        bet = next(a for a in view["actions"] if a["action"] == "bet")
        low, high = bet["min"], bet["max"]
        if high <= low:
            return None  # one offer is no choice
        # Alone: every other ponter has sat the deal out (the all-bust rule, §4).
        per_chip = salon.bet_value(own, all(h.get("sat_out") for h in others))
        options = (Option("bet", per_chip * low, low), Option("bet", per_chip * high, high))
        return Assessment(f"stake{points}", options, (low, high), per_chip)
    if not {"hit", "stand"} <= legal:
        return None
    if mine.get("role") == "banker":
        ponters = [(h["bet"], h.get("hidden", 2)) for h in others if h.get("bet")]
        if not ponters:
            return None
        values = salon.banker_values(own, ponters)
        return Assessment(
            f"bank{points}", (Option("hit", values.hit), Option("stand", values.stand))
        )
    stake = mine.get("bet")
    if not stake:
        return None
    alone = not any(h.get("bet") for h in others)
    ponter = salon.ponter_values(own, alone)
    return Assessment(
        f"total{points}", (Option("hit", stake * ponter.hit), Option("stand", stake * ponter.stand))
    )


_ASSESS = {
    "blackjack": _assess_blackjack,
    "classic": _assess_classic,
    "banker36": _assess_banker36,
    "solo": _assess_solo,
    "salon": _assess_salon,
}


def assess(variant: str, view: Mapping[str, Any]) -> Assessment | None:
    """The options of the decision the viewing seat faces, or None when it faces none
    that is reviewed (not its turn, one option only, `next_round`, a cut, …)."""
    judge = _ASSESS.get(variant)
    if judge is None or not view.get("turn") or not view.get("actions"):
        return None
    legal = {a["action"] for a in view["actions"]}
    assessment = judge(view, legal)
    if assessment is None or len(assessment.options) < 2:
        return None
    return assessment


def prepare(variant: str) -> None:
    """Compute up front what reviewing `variant` uses, once per process (otherwise the
    first decisions do): the strategy tables, and for `classic` the exact values of every
    hand against every up-card (about 1.5 s; they fill the per-up-card memo, so a process
    pool forked afterwards shares them)."""
    from games.strategy import banker36, blackjack, classic, salon, solo

    if variant == "blackjack":
        blackjack.compute_strategy()
    elif variant == "classic":
        classic.compute_strategy()
        full = CLASSIC_RULES.full_shoe()
        for up in range(10):
            base = tuple(count - (rank == up) for rank, count in enumerate(full))
            game = _exact_game(CLASSIC_RULES, up, base)
            for first in range(10):
                for second in range(first, 10):
                    if {first, second} != {ACE, TEN} and base[first] - (first == second) > 0:
                        own = tuple((r == first) + (r == second) for r in range(10))
                        game.values(own)
    elif variant == "banker36":
        banker36.compute_strategy()
    elif variant == "solo":
        solo.compute_strategy()
    elif variant == "salon":
        salon.prepare()


# --- a whole record -----------------------------------------------------------------------


def entry(
    assessment: Assessment, action: Mapping[str, Any], number: int, seat: str, round_: int
) -> dict[str, Any] | None:
    """One reviewed decision as stored: options, choice, best and the value lost."""
    chosen = assessment.option_for(action)
    if chosen is None:
        return None
    best = assessment.best
    options = list(assessment.options)
    if chosen not in options:  # an amount inside a bet range
        options.insert(1, chosen)
    return {
        "n": number,
        "round": round_,
        "seat": seat,
        "situation": assessment.situation,
        "options": [option.as_dict() for option in options],
        "chosen": chosen.as_dict(),
        "best": best.as_dict(),
        "loss": round(max(0.0, best.value - chosen.value), DIGITS),
        **({"timeout": True} if action.get("action") == "timeout" else {}),
    }


def review_record(
    record: Mapping[str, Any], seats: Sequence[str] | None = None, start: int = 0
) -> list[dict[str, Any]]:
    """Every reviewed decision of a hand record (of `seats` only, if given; from action
    number `start` on, the earlier ones only replayed), in order.

    ``n`` is the decision's action's index in ``record["actions"]``, ``round`` the
    number of the round it was made in (1 for the record's first).
    """
    variant = record["variant"]
    if variant not in REVIEWED:
        return []
    state, _ = engine.new_game(
        variant,
        seats=record["seats"],
        options=record.get("options") or {},
        first_banker=record.get("first_banker"),
        deck=record.get("deck"),
        seed=record.get("seed"),
    )
    out: list[dict[str, Any]] = []
    for number, action in enumerate(record["actions"]):
        seat = action.get("seat")
        if number >= start and seat is not None and (seats is None or seat in seats):
            assessment = assess(variant, engine.view(state, seat))
            if assessment is not None:
                round_ = len(state["rounds"]) + 1  # rounds settled so far, plus this one
                reviewed = entry(assessment, action, number, seat, round_)
                if reviewed is not None:
                    out.append(reviewed)
        state, _ = engine.apply(state, action)
    return out


def summary(decisions: Sequence[Mapping[str, Any]]) -> dict[str, float | int]:
    """Decisions, best choices, accuracy and value lost per 100 decisions."""
    count = len(decisions)
    right = sum(1 for d in decisions if d["loss"] <= MISTAKE_EPSILON)
    lost = sum(d["loss"] for d in decisions)
    return {
        "decisions": count,
        "best": right,
        "accuracy": right / count if count else 0.0,
        "lost": round(lost, DIGITS),
        "lost_per_100": round(100 * lost / count, DIGITS) if count else 0.0,
    }


__all__ = ["ACE", "REVIEWED", "Assessment", "Option", "assess", "review_record", "summary"]
