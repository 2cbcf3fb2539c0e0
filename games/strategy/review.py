"""Decision review: what each option of a player's decision was worth, from the seat's view.

`assess(variant, view)` values every option the acting seat has, computed from that
seat's view (`games.engine.view`) and nothing else: a hole card, the stock or another
player's private cards cannot change a value, because they are not an input. Values are
expected results in the game's own currency for the stake in play (`blackjack` units,
`classic` points, `banker36` chips, `solo` coins), with optimal play afterwards.

`review_record(record)` replays a hand record (docs: ../shared/specs/hand-record.md) and
assesses every decision in it: the options' values, the one chosen, the best, and the
value lost against the best (0 for a best choice).

What is conditioned on (docs/strategy.md, "Decision review"):

* `classic` — the seat's own cards and the dealer's up-card (a fresh deck every round;
  the other players' cards are hidden from the seat). The player acts knowing the dealer
  has no natural (the round would have ended). Hit and stand are exact: every card is
  drawn without replacement, for the player and for the dealer.
* `blackjack` — the seat's own hands and the dealer's up-card, as the strategy engine
  does. The other seats' cards and earlier rounds of the shoe are visible too, but are
  not counted: the values are the basic-strategy player's, not a card counter's (and with
  six decks they move a value by thousandths of a unit). Values come from the strategy
  engine's model (`_twentyone.make_situation` with the seat's cards removed: the dealer
  exact, the player's later cards at fixed probabilities), which with six decks is within
  a thousandth of a unit of the exact value and thousands of times faster to compute
  (tests/games/strategy/test_review.py measures the gap).
* `banker36`, `solo` — the seat's own cards (`games.strategy.banker36`, exact). A bet
  made after the first card is worth ``amount × EV per chip of that card``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from games import engine
from games.strategy import banker36 as duel36
from games.strategy._twentyone import (
    ACE,
    BUST,
    DBUST,
    DNATURAL,
    RANK_CHARS,
    STEP,
    Rules,
    Situation,
    dealer_distribution,
    dealer_graph,
    hand_state,
    make_situation,
    rank_index,
    state_total,
)
from games.strategy.blackjack import BLACKJACK_RULES
from games.strategy.classic import CLASSIC_RULES, POINTS

REVIEWED = ("blackjack", "classic", "banker36", "solo")
PLAY = ("hit", "stand", "double", "split")
DIGITS = 4  # values are rounded to this many decimals when stored


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


@cache
def _exact(
    rules: Rules, upcard: int, shoe: tuple[int, ...], state: int
) -> tuple[float, float, float]:
    """(stand, hit, double) EVs per unit of a hand in `state`, its further cards and the
    dealer's drawn without replacement from `shoe` (what the seat has not seen). With a
    peeking dealer the values are conditional on the dealer having no natural."""
    graph = dealer_graph(upcard, rules.hits_soft_17)

    @cache
    def dealer(removed: tuple[int, ...]) -> list[float]:
        return dealer_distribution(graph, [shoe[r] - removed[r] for r in range(10)])

    def settle(hand: int, removed: tuple[int, ...]) -> float:
        # Peek: E[payoff and no dealer natural] (the hole card is exchangeable with the
        # player's draws, so it may be drawn after them). No peek: the natural beats it.
        d = dealer(removed)
        if hand == BUST:
            return -(1.0 - d[DNATURAL]) if rules.dealer_peeks else -1.0
        total, _ = state_total(hand)
        ev = d[DBUST] - (0.0 if rules.dealer_peeks else d[DNATURAL])
        for k in range(5):
            if 17 + k < total:
                ev += d[k]
            elif 17 + k > total:
                ev -= d[k]
        return ev

    def draws(removed: tuple[int, ...]) -> list[tuple[float, tuple[int, ...], int]]:
        left = [shoe[r] - removed[r] for r in range(10)]
        n = sum(left)
        return [
            (left[r] / n, (*removed[:r], removed[r] + 1, *removed[r + 1 :]), r)
            for r in range(10)
            if left[r] > 0
        ]

    @cache
    def best(hand: int, removed: tuple[int, ...]) -> float:
        stand = settle(hand, removed)
        if hand == BUST or state_total(hand)[0] >= 21:
            return stand
        return max(stand, hit(hand, removed))

    def hit(hand: int, removed: tuple[int, ...]) -> float:
        return sum(p * best(STEP[hand][r], more) for p, more, r in draws(removed))

    start = (0,) * 10
    stand, hit_ev = settle(state, start), hit(state, start)
    double = 2.0 * sum(p * settle(STEP[state][r], more) for p, more, r in draws(start))
    if rules.dealer_peeks:
        keep = 1.0 - dealer(start)[DNATURAL]
        return stand / keep, hit_ev / keep, double / keep
    return stand, hit_ev, double


@cache
def _model(rules: Rules, upcard: int, seen: tuple[int, ...]) -> tuple[Situation, list[float]]:
    situation = make_situation(rules, upcard, seen)
    return situation, situation.values()


def _model_values(rules: Rules, upcard: int, seen: tuple[int, ...], state: int) -> dict:
    """(stand, hit, double) EVs per unit by the strategy engine's model."""
    situation, value = _model(rules, upcard, seen)
    return {
        "stand": situation.stand_ev(state),
        "hit": situation.hit_ev(state, value),
        "double": situation.double_ev(state),
    }


def _split_value(rules: Rules, upcard: int, seen: tuple[int, ...], pair: int) -> float:
    """The model's EV of splitting `pair` (strategy engine, initial removal)."""
    situation, value = _model(rules, upcard, seen)
    das = rules.double_allowed and rules.double_after_split

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
) -> Assessment:
    cards = _ranks(hand)
    upcard = rank_index(upcard_card)
    seen = tuple(sorted(_ranks(seen_cards)))  # the cards counted, but the up-card
    state = hand_state(cards)
    if exact:
        shoe = list(rules.full_shoe())
        for r in (upcard, *seen):
            shoe[r] -= 1
        stand, hit, double = _exact(rules, upcard, tuple(shoe), state)
        values = {"stand": stand, "hit": hit, "double": double}
    else:
        values = _model_values(rules, upcard, seen, state)
    if "split" in legal:
        values["split"] = _split_value(rules, upcard, seen, cards[0])
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
        BLACKJACK_RULES, wager, hands[index]["cards"], upcards[0], seen, legal, exact=False
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


_ASSESS = {
    "blackjack": _assess_blackjack,
    "classic": _assess_classic,
    "banker36": _assess_banker36,
    "solo": _assess_solo,
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
) -> list[dict]:
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
    out: list[dict] = []
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
    right = sum(1 for d in decisions if d["loss"] <= 1e-9)
    lost = sum(d["loss"] for d in decisions)
    return {
        "decisions": count,
        "best": right,
        "accuracy": right / count if count else 0.0,
        "lost": round(lost, DIGITS),
        "lost_per_100": round(100 * lost / count, DIGITS) if count else 0.0,
    }


__all__ = ["ACE", "REVIEWED", "Assessment", "Option", "assess", "review_record", "summary"]
