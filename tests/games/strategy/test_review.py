"""The decision review (`games.strategy.review`): what each option of a decision is worth.

Which numbers must agree with what:

* `blackjack` — the review uses the strategy engine's model with the seat's own cards
  removed, so for a two-card hand (the only cards removed are those two and the up-card)
  its values are the very numbers `blackjack.compute_strategy().hand_evs(c1, c2, up)`
  returns: stand, hit, double and split, to 1e-9. The dealer does not peek, so neither side
  conditions on the natural: both count it as a loss of the whole wager.
* `classic` — the review is exact (every card drawn without replacement) and, because the
  player only ever acts when the dealer has no natural, conditional on that. The strategy
  engine's `hand_evs` are the model's *unconditional* values (the natural's −1 folded
  back in: −p + (1 − p)·v). So the stand values agree exactly after that conversion (the
  model's dealer is exact too), the hit values only up to the model's approximation, and
  the best action equals the chart's wherever the chart is not overridden by the hand's
  composition.
* `banker36`, `solo` — both sides are the same exact duel computation:
  `Banker36Strategy.values(cards)` (per chip or coin) times the bet, and a bet is worth
  the amount times the first card's EV.

The Monte-Carlo tests value options without any of the review's arithmetic: they take a
real engine position, resample every card the seat cannot see (uniformly from the deck
minus what the seat sees, as the rules allow: a `classic` dealer who let play reach the
player has no natural), put them into the engine's state, apply the option, let the
engine play on (the seat by the review's best option, anybody else by an AI) and read the
seat's result from the engine's settlement.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from functools import cache
from typing import Any

import pytest

from games import engine
from games.ai import choose_action
from games.cards import is_natural52
from games.cards import shoe as full_deck
from games.strategy import banker36, blackjack, classic, review, salon, solo
from games.strategy._twentyone import (
    ACE,
    RANK_CHARS,
    TEN,
    deal_probability,
    hand_state,
    make_situation,
    rank_index,
    two_card_hands,
)
from games.strategy.blackjack import BLACKJACK_RULES
from games.strategy.review import assess, review_record, summary

UPCARDS = "23456789TA"
SUITS = "SHDC"


def _values(assessment: review.Assessment) -> dict[str, float]:
    return {option.action: option.value for option in assessment.options}


def _free_card(rank: str, used: set[str]) -> str:
    """A card of `rank` (T for any ten) not yet used in a single deck."""
    ranks = "TJQK" if rank == "T" else rank
    for r in ranks:
        for suit in SUITS:
            card = r + suit
            if card not in used:
                used.add(card)
                return card
    raise AssertionError(f"no {rank} left")


# --- blackjack: the strategy engine's own numbers ------------------------------------------


def _blackjack(c1: str, c2: str, up: str, hole: str = "9C", seed: str = "bj") -> dict[str, Any]:
    state, _ = engine.new_game(
        "blackjack", seats=[{"id": "p"}], options={"rounds": 1}, deck=[c1, up, c2, hole], seed=seed
    )
    return state


TEXTBOOK_BLACKJACK = [
    # cards, up-card, the best play (the no-hole-card chart's)
    ("TS", "6H", "TD", "hit"),  # 16 vs T
    ("6S", "5H", "6D", "double"),  # 11 vs 6
    ("6S", "5H", "TD", "hit"),  # 11 vs T: no hole card, so no double
    ("7S", "5H", "4D", "stand"),  # 12 vs 4
    ("TS", "2H", "3D", "hit"),  # 12 vs 3
    ("AS", "AH", "6D", "split"),
    ("8S", "8H", "6D", "split"),
    ("8S", "8H", "TD", "hit"),  # no hole card: the natural would take both hands
    ("AS", "7H", "9D", "hit"),  # soft 18 vs 9
    ("AS", "7H", "4D", "double"),  # soft 18 vs 4
    ("AS", "7H", "2D", "stand"),
    ("5S", "5H", "9D", "double"),
    ("9S", "9H", "7D", "stand"),
    ("KS", "QH", "6D", "stand"),  # a pair of tens: split is offered, and wrong
    ("TS", "7H", "AD", "stand"),
]


@pytest.mark.parametrize(("c1", "c2", "up", "best"), TEXTBOOK_BLACKJACK)
def test_blackjack_two_card_values_are_the_strategy_engines_hand_evs(c1, c2, up, best):
    state = _blackjack(c1, c2, up)
    view = engine.view(state, "p")
    assessment = assess("blackjack", view)
    assert assessment is not None
    values = _values(assessment)
    assert set(values) == {a["action"] for a in view["actions"]}
    evs = blackjack.compute_strategy().hand_evs(c1, c2, up)
    assert values["stand"] == pytest.approx(evs.stand, abs=1e-9)
    assert values["hit"] == pytest.approx(evs.hit, abs=1e-9)
    assert values["double"] == pytest.approx(evs.double, abs=1e-9)
    if "split" in values:
        assert values["split"] == pytest.approx(evs.split, abs=1e-9)
    else:
        assert rank_index(c1) != rank_index(c2)
    assert assessment.best.action == best
    assert blackjack.compute_strategy().decide([c1, c2], up) == best


def test_blackjack_situation_names_the_hand_and_the_up_card():
    assert assess("blackjack", engine.view(_blackjack("TS", "6H", "TD"), "p")).situation == (
        "hard16:T"
    )
    assert assess("blackjack", engine.view(_blackjack("AS", "7H", "9D"), "p")).situation == (
        "soft18:9"
    )
    assert assess("blackjack", engine.view(_blackjack("KS", "QH", "6D"), "p")).situation == (
        "pairT:6"
    )


def test_a_resplit_counts_only_the_hands_the_seat_may_still_make():
    """Splitting 8,8 once more when the seat already holds three hands makes the fourth
    and last: the value is the model's split with no further resplit, which is below the
    first split's (where up to two more resplits remain)."""
    deck = ["8S", "6D", "8H", "9C", "8D", "8C", "TS"]  # each split hand draws another 8
    state, _ = engine.new_game(
        "blackjack", seats=[{"id": "p"}], options={"rounds": 1}, deck=deck, seed="resplit"
    )
    first = assess("blackjack", engine.view(state, "p"))
    state, _ = engine.apply(state, {"seat": "p", "action": "split"})
    second = assess("blackjack", engine.view(state, "p"))  # 8,8 again: two hands held
    state, _ = engine.apply(state, {"seat": "p", "action": "split"})
    view = engine.view(state, "p")
    assert len(view["hands"]) == 3 and view["hands"][view["hand"]]["cards"] == ["8S", "8C"]
    third = assess("blackjack", view)
    seen = tuple(sorted(rank_index(c) for h in view["hands"] for c in h["cards"]))
    up = rank_index("6D")
    pair = rank_index("8")
    no_more = review._split_value(BLACKJACK_RULES, up, seen, pair, held=3)
    as_if_first = review._split_value(BLACKJACK_RULES, up, seen, pair, held=1)
    assert _values(third)["split"] == pytest.approx(no_more, abs=1e-12)
    assert no_more < as_if_first
    assert {"split"} <= set(_values(first)) and {"split"} <= set(_values(second))


# --- classic: exact, conditional on no dealer natural --------------------------------------


def _classic(
    mine: list[str],
    up: str,
    other: tuple[str, str] | None = None,
    hole: str | None = None,
    seed: str = "cl",
) -> dict[str, Any]:
    """A two-seat classic round where seat `a` acts first with `mine` (two cards)."""
    used = set(mine) | {up}
    if other is None:
        other = (_free_card("2", used), _free_card("3", used))
    else:
        used |= set(other)
    if hole is None:
        hole = _free_card("9", used)  # never makes a natural
    deck = [mine[0], other[0], up, mine[1], other[1], hole]
    state, _ = engine.new_game(
        "classic", seats=[{"id": "a"}, {"id": "b"}], options={"rounds": 5}, deck=deck, seed=seed
    )
    return state


def _classic_hands() -> list[tuple[list[str], str]]:
    out = []
    for up in UPCARDS:
        for a, b in two_card_hands():
            if {a, b} == {ACE, TEN}:
                continue
            used: set[str] = set()
            upcard = _free_card(up, used)
            mine = [_free_card(RANK_CHARS[a], used), _free_card(RANK_CHARS[b], used)]
            out.append((mine, upcard))
    return out


# The two-card hands whose exact best play differs from the (total-dependent) chart, with
# the exact best: the single-deck composition-dependent plays (T,2 vs 4 hit, T,3 vs 2 hit,
# 7,7 vs T stand are the published ones), all within 2 points of the other option.
CLASSIC_COMPOSITION_PLAYS = {
    ("3T", "2"): "hit",
    ("48", "3"): "stand",
    ("57", "3"): "stand",
    ("66", "3"): "stand",
    ("2T", "4"): "hit",
    ("2T", "6"): "hit",
    ("77", "T"): "stand",
}


def test_classic_best_play_is_the_charts_except_where_the_composition_overrides_it():
    strategy = classic.compute_strategy()
    differ = {}
    for mine, up in _classic_hands():
        view = engine.view(_classic(mine, up), "a")
        assessment = assess("classic", view)
        assert assessment is not None
        values = _values(assessment)
        assert set(values) == {"hit", "stand"}
        chart = strategy.decide(mine, up)
        if assessment.best.action != chart:
            key = (
                "".join(sorted(RANK_CHARS[rank_index(c)] for c in mine)),
                RANK_CHARS[rank_index(up)],
            )
            differ[key] = assessment.best.action
            assert abs(values["hit"] - values["stand"]) < 2.0  # points
    assert differ == CLASSIC_COMPOSITION_PLAYS


@cache
def _dealer_plain(counts: tuple[int, ...], up: int) -> dict[int, float]:
    """The dealer's final total (22 = bust) by plain recursion over the cards left,
    conditional on no natural: the hole card is never the natural-making card."""
    natural = TEN if up == ACE else ACE if up == TEN else None
    out: Counter[int] = Counter()

    def play(cards: tuple[int, ...], left: list[int], p: float) -> None:
        hard = sum(r + 1 for r in cards)
        total = hard + 10 if ACE in cards and hard + 10 <= 21 else hard
        if total >= 17:
            out[min(total, 22)] += p
            return
        n = sum(left)
        for r in range(10):
            if left[r]:
                left[r] -= 1
                play((*cards, r), left, p * (left[r] + 1) / n)
                left[r] += 1

    left = list(counts)
    n = sum(left) - (left[natural] if natural is not None else 0)
    for hole in range(10):
        if hole == natural or not left[hole]:
            continue
        left[hole] -= 1
        play((up, hole), left, (left[hole] + 1) / n)
        left[hole] += 1
    return dict(out)


@pytest.mark.parametrize(
    ("mine", "up"),
    [
        (["TS", "6H"], "TD"),
        (["9S", "7H"], "9D"),
        (["TS", "2H"], "4D"),
        (["AS", "7H"], "AD"),
        (["5S", "5H"], "6D"),
        (["TS", "8H"], "7D"),
        (["AS", "6H"], "TD"),
        (["4S", "3H"], "2D"),
    ],
)
def test_classic_stand_value_equals_a_plain_enumeration_and_the_strategy_engines(mine, up):
    view = engine.view(_classic(mine, up), "a")
    values = _values(assess("classic", view))
    u = rank_index(up)
    counts = [4] * 9 + [16]
    for r in (u, *(rank_index(c) for c in mine)):
        counts[r] -= 1
    dealer = _dealer_plain(tuple(counts), u)
    assert sum(dealer.values()) == pytest.approx(1.0, abs=1e-12)
    total = view["round"]["hands"][0]["total"]
    plain = sum(
        p * (1 if d == 22 or d < total else -1 if d > total else 0) for d, p in dealer.items()
    )
    assert values["stand"] == pytest.approx(100 * plain, abs=1e-9)
    # The strategy engine's value is unconditional: the natural's -1 folded back in.
    n = sum(counts)
    natural = TEN if u == ACE else ACE if u == TEN else None
    p = counts[natural] / n if natural is not None else 0.0
    first, second = sorted(rank_index(c) for c in mine)
    evs = classic.compute_strategy().chart.hand_evs[(first, second, u)]
    assert evs.stand == pytest.approx(-p + (1 - p) * values["stand"] / 100, abs=1e-12)
    # Hitting: the model keeps the two-card shoe for the dealer; the exact value differs by
    # under a point (the model's approximation, docs/strategy.md).
    assert evs.hit == pytest.approx(-p + (1 - p) * values["hit"] / 100, abs=0.01)


def test_classic_hit_value_equals_a_plain_recursion_for_a_stiff_hand():
    """16 vs T: best play after the hit, every card without replacement, by brute force."""
    mine, up = ["TS", "6H"], "TD"
    values = _values(assess("classic", engine.view(_classic(mine, up), "a")))
    u = rank_index(up)
    counts = [4] * 9 + [16]
    for r in (u, *(rank_index(c) for c in mine)):
        counts[r] -= 1
    natural = ACE

    def stand_joint(cards: tuple[int, ...], left: tuple[int, ...]) -> float:
        # E[payoff, no natural] = P(no natural) * E[payoff | no natural]
        keep = 1 - left[natural] / sum(left)
        hard = sum(r + 1 for r in cards)
        total = hard + 10 if ACE in cards and hard + 10 <= 21 else hard
        dealer = _dealer_plain(left, u)
        ev = sum(
            p * (1 if d == 22 or d < total else -1 if d > total else 0) for d, p in dealer.items()
        )
        return keep * ev

    def best(cards: tuple[int, ...], left: tuple[int, ...]) -> float:
        hard = sum(r + 1 for r in cards)
        if hard > 21:
            return -(1 - left[natural] / sum(left))
        total = hard + 10 if ACE in cards and hard + 10 <= 21 else hard
        stand = stand_joint(cards, left)
        return stand if total == 21 else max(stand, hit(cards, left))

    def hit(cards: tuple[int, ...], left: tuple[int, ...]) -> float:
        n = sum(left)
        return sum(
            left[r] / n * best((*cards, r), tuple(c - (i == r) for i, c in enumerate(left)))
            for r in range(10)
            if left[r]
        )

    start = tuple(counts)
    keep = 1 - start[natural] / sum(start)
    assert values["hit"] == pytest.approx(100 * hit((9, 5), start) / keep, abs=1e-9)
    assert values["stand"] == pytest.approx(100 * stand_joint((9, 5), start) / keep, abs=1e-9)


# --- banker36 and solo: the exact duel -----------------------------------------------------


def _banker36(deck: list[str], seed: str = "b36") -> dict[str, Any]:
    seats = [{"id": s, "chips": 1000} for s in ("a", "b", "c")]
    state, _ = engine.new_game(
        "banker36",
        seats=seats,
        options={"stake": 10, "entry_limit": 100},
        first_banker="a",
        deck=deck,
        seed=seed,
    )
    return state


@pytest.mark.parametrize("hits", [[], ["KD"], ["JD", "QD"], ["6H"], ["JD", "QD", "KH"]])
def test_banker36_draw_values_are_the_bet_times_the_exact_duel(hits):
    state = _banker36(["TS", "9C", *hits])  # b holds T, c holds 9
    state, _ = engine.apply(state, {"seat": "b", "action": "bet", "amount": 10})
    for _ in hits:
        state, _ = engine.apply(state, {"seat": "b", "action": "hit"})
    view = engine.view(state, "b")
    assessment = assess("banker36", view)
    cards = ["TS", *hits]
    stand, draw = banker36.compute_strategy().values(cards)
    assert _values(assessment) == pytest.approx({"hit": 10 * draw, "stand": 10 * stand}, abs=1e-12)
    assert assessment.situation == f"total{view['circle']['hands'][0]['total']}"


def test_banker36_bet_values_are_the_amount_times_the_first_cards_ev():
    # b bets 10 on a 6, draws a T (16) and stands; the banker draws T, 9 (19): the bank
    # grows to 20, so c (holding an ace) is offered 10 and 20.
    state = _banker36(["6S", "AC", "TS", "TH", "9H"])
    for action in ({"action": "bet", "amount": 10}, {"action": "hit"}, {"action": "stand"}):
        state, _ = engine.apply(state, {"seat": "b", **action})
    view = engine.view(state, "c")
    assessment = assess("banker36", view)
    ev = banker36.first_card_ev("A")
    assert [(o.action, o.amount) for o in assessment.options] == [("bet", 10), ("bet", 20)]
    assert [o.value for o in assessment.options] == pytest.approx([10 * ev, 20 * ev], abs=1e-12)
    assert assessment.best.amount == 20 and assessment.situation == "bet:A"


def _solo(deck: list[str], seed: str = "solo") -> dict[str, Any]:
    state, _ = engine.new_game("solo", seats=[{"id": "p"}], deck=deck, seed=seed)
    return state


@pytest.mark.parametrize(("first", "best"), [("AS", 300), ("TS", 300), ("9S", 1), ("KS", 1)])
def test_solo_bet_values_are_the_amount_times_the_first_cards_ev(first, best):
    view = engine.view(_solo([first, "7D"]), "p")
    assessment = assess("solo", view)
    ev = solo.first_card_ev(first)
    assert assessment.bet_range == (1, 300)
    assert [(o.amount, o.value) for o in assessment.options] == [
        (1, pytest.approx(ev)),
        (300, pytest.approx(300 * ev)),
    ]
    assert assessment.best.amount == best
    chosen = assessment.option_for({"action": "bet", "amount": 25})
    assert chosen is not None and chosen.value == pytest.approx(25 * ev)


def test_solo_draw_values_use_the_duel_without_five_pictures():
    """J, Q, K, J is 11 in both games; a fifth picture makes 21 only in banker36, so the
    same cards are worth less to draw on in solo — and the review knows which game it is."""
    cards = ["JS", "QS", "KS", "JH"]
    state = _solo([cards[0], "7D", *cards[1:]])
    state, _ = engine.apply(state, {"seat": "p", "action": "bet", "amount": 40})
    for _ in cards[1:]:
        state, _ = engine.apply(state, {"seat": "p", "action": "hit"})
    values = _values(assess("solo", engine.view(state, "p")))
    stand, draw = solo.compute_strategy().values(cards)
    assert values == pytest.approx({"hit": 40 * draw, "stand": 40 * stand}, abs=1e-12)
    _, draw36 = banker36.compute_strategy().values(cards)
    assert draw36 > draw + 0.05


# --- Monte Carlo: the engine's own outcomes, hidden cards resampled ------------------------

SAMPLES = 3000


def _unseen(deck: list[str], seen: list[str]) -> list[str]:
    left = Counter(deck)
    left.subtract(seen)
    assert min(left.values()) >= 0
    return sorted(left.elements())


def _resample_blackjack(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    view = engine.view(state, "p")
    seen = [c for h in view["hands"] for c in h["cards"]] + view["dealer"]["cards"]
    unseen = _unseen(full_deck("standard52", 6), seen)
    rng.shuffle(unseen)
    out = engine.clone(state)
    out["dealer"] = view["dealer"]["cards"][0] + unseen[0]
    out["shoe"] = {**out["shoe"], "cards": "".join(unseen[1:]), "ordered": True}
    out["source"] = {**out["source"], "stacked": ""}
    return out


def _resample_classic(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    seat = engine.legal_actions(state)["seat"]
    view = engine.view(state, seat)
    mine = next(h for h in view["round"]["hands"] if h["seat"] == seat)["cards"]
    up = view["round"]["dealer"]["cards"][0]
    unseen = _unseen(full_deck("standard52"), [*mine, up])
    out = engine.clone(state)
    while True:  # the dealer has no natural: play reached the seat
        rng.shuffle(unseen)
        hole = unseen[0]
        if not ({up[0], hole[0]} & {"A"} and {up[0], hole[0]} & set("TJQK")):
            break
    rest = unseen[1:]
    for other in out["order"]:
        if other != seat:
            count = len(out["hands"][other])
            out["hands"][other], rest = rest[:count], rest[count:]
    out["dealer"] = [up, hole]
    out["shoe"] = {**out["shoe"], "cards": "".join(rest), "ordered": True}
    out["source"] = {**out["source"], "stacked": ""}
    return out


def _resample_banker36(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    circle = state["circle"]
    seat = circle["order"][circle["turn"]]
    mine = next(h for h in engine.view(state, seat)["circle"]["hands"] if h["seat"] == seat)
    unseen = _unseen(full_deck("russian36"), mine["cards"])
    rng.shuffle(unseen)
    out = engine.clone(state)
    rest = unseen
    for other in circle["order"]:
        if other != seat:
            count = len(out["circle"]["hands"][other])
            out["circle"]["hands"][other], rest = rest[:count], rest[count:]
    out["shoe"] = {**out["shoe"], "cards": "".join(rest), "ordered": True}
    out["source"] = {**out["source"], "stacked": ""}
    return out


def _resample_solo(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    mine = engine.view(state, "p")["hand"]["cards"]
    unseen = _unseen(full_deck("russian36"), mine)
    rng.shuffle(unseen)
    out = engine.clone(state)
    out["banker_cards"] = [unseen[0]]
    out["shoe"] = {**out["shoe"], "cards": "".join(unseen[1:]), "ordered": True}
    out["source"] = {**out["source"], "stacked": ""}
    return out


def _salon_ponter_hand(unseen: list[str], held: int, alone: bool, rng: random.Random) -> list[str]:
    """A ponter's hand of `held` cards as the banker's model has it: two cards dealt, then
    the coach's play (games.strategy.salon.ponter_draws), kept only when it ends there."""
    while True:
        rng.shuffle(unseen)
        hand = unseen[:2]
        while len(hand) < held and salon.ponter_draws(
            salon.hand_of([rank_index(c) for c in hand]), alone
        ):
            hand = unseen[: len(hand) + 1]
        ended = not salon.ponter_draws(salon.hand_of([rank_index(c) for c in hand]), alone)
        if len(hand) == held and ended:
            return hand


def _resample_salon(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    seat = engine.legal_actions(state)["seat"]
    deal = state["deal"]
    banker = state["banker"]
    unseen = _unseen(full_deck("standard52", 2), deal["hands"][seat])
    out = engine.clone(state)
    hands = out["deal"]["hands"]
    if seat == banker:  # each ponter's hand from the model: its count, the coach's play
        bettors = [p for p in deal["ponters"] if p in deal["bets"]]
        for ponter in bettors:
            held = len(deal["hands"][ponter])
            hands[ponter] = _salon_ponter_hand(unseen, held, len(bettors) == 1, rng)
            for card in hands[ponter]:
                unseen.remove(card)
        rng.shuffle(unseen)
        rest = unseen
    else:
        bets_in = state["phase"] != "bet"
        while True:  # once the bets are in, the banker has no natural: play went on
            rng.shuffle(unseen)
            if not (bets_in and is_natural52(unseen[:2])):
                break
        hands[banker], rest = unseen[:2], unseen[2:]
        for other in deal["ponters"]:
            if other != seat:
                count = len(deal["hands"][other])
                hands[other], rest = rest[:count], rest[count:]
    out["shoe"] = {**out["shoe"], "cards": "".join(rest), "ordered": True}
    out["source"] = {**out["source"], "stacked": ""}
    return out


RESAMPLE = {
    "blackjack": _resample_blackjack,
    "classic": _resample_classic,
    "banker36": _resample_banker36,
    "solo": _resample_solo,
    "salon": _resample_salon,
}
# The other seats' play in a simulation: salon's AI banker is the rule its ponters'
# values assume (docs/rules/salon.md §7).
OTHERS_LEVEL = {"salon": "banker"}


def _as_action(seat: str, option: review.Option) -> dict[str, Any]:
    action: dict[str, Any] = {"seat": seat, "action": option.action}
    if option.amount is not None:
        action["amount"] = option.amount
    return action


def _outcome(variant: str, state: dict[str, Any], seat: str, settled: int) -> float | None:
    """The seat's result once the round (banker36: its duel) is settled, else None."""
    rounds = state["rounds"]
    if len(rounds) <= settled:
        return None
    hands = rounds[settled]["hands"]
    if any(h["seat"] == seat and h.get("role") == "banker" for h in hands):  # salon's bank
        return -float(sum(h["delta"] for h in hands if "delta" in h))
    return float(
        sum(h["delta"] for h in rounds[settled]["hands"] if h["seat"] == seat and "delta" in h)
    )


def _play_out(variant: str, state: dict[str, Any], seat: str, option: review.Option) -> float:
    settled = len(state["rounds"])
    state, _ = engine.apply(state, _as_action(seat, option))
    while True:
        result = _outcome(variant, state, seat, settled)
        if result is not None:
            return result
        turn = engine.legal_actions(state)
        assert turn is not None
        view = engine.view(state, turn["seat"])
        if turn["seat"] == seat:
            best = assess(variant, view)
            assert best is not None
            action = _as_action(seat, best.best)
        else:  # another seat (classic): its play does not move this seat's expectation
            level = OTHERS_LEVEL.get(variant, "easy")
            action = choose_action(variant, level, view, turn["actions"])
        state, _ = engine.apply(state, action)


def _monte_carlo(variant: str, state: dict[str, Any], seed: str, allowance: float = 0.0) -> None:
    seat = engine.legal_actions(state)["seat"]
    assessment = assess(variant, engine.view(state, seat))
    assert assessment is not None
    rng = random.Random(seed)
    resample = RESAMPLE[variant]
    for option in assessment.options:
        results = [_play_out(variant, resample(state, rng), seat, option) for _ in range(SAMPLES)]
        mean = math.fsum(results) / SAMPLES
        spread = math.sqrt(math.fsum((x - mean) ** 2 for x in results) / (SAMPLES - 1))
        error = spread / math.sqrt(SAMPLES)
        assert abs(mean - option.value) <= 4 * error + allowance + 1e-9, (
            f"{variant} {assessment.situation} {option}: simulated {mean:.4f} ± {error:.4f}"
        )


def _first_decisions(variant: str, make, count: int, wanted) -> list[dict[str, Any]]:
    """The first `count` seeded positions that `wanted(state)` accepts."""
    found = []
    for k in range(200):
        state = make(f"mc-{variant}:{k}")
        if state is not None and wanted(state):
            found.append(state)
            if len(found) == count:
                return found
    raise AssertionError("not enough positions")


def _blackjack_seeded(seed: str) -> dict[str, Any]:
    state, _ = engine.new_game("blackjack", seats=[{"id": "p"}], options={"rounds": 1}, seed=seed)
    return state


def test_blackjack_values_agree_with_monte_carlo_from_the_seats_view():
    positions = _first_decisions("blackjack", _blackjack_seeded, 2, lambda s: not s["finished"])
    split = _blackjack("8S", "8H", "6D", seed="mc-split")
    for k, state in enumerate([*positions, split]):
        # the model is within 0.0035 units of the exact values (the test below)
        _monte_carlo("blackjack", state, f"bj:{k}", allowance=0.0035)


def _classic_seeded(seed: str) -> dict[str, Any] | None:
    state, _ = engine.new_game(
        "classic", seats=[{"id": "a"}, {"id": "b"}], options={"rounds": 5}, seed=seed
    )
    return state if state["rounds"] == [] else None


def test_classic_values_agree_with_monte_carlo_from_the_seats_view():
    # The first player of the round: nobody has drawn before it (later players do, and
    # their draws do not change the dealer's odds for a player who cannot see them).
    positions = _first_decisions("classic", _classic_seeded, 2, lambda s: s["turn"] == 0)
    stiff = _classic(["TS", "6H"], "TD", seed="mc-stiff")  # 16 vs T: hit and stand close
    for k, state in enumerate([*positions, stiff]):
        _monte_carlo("classic", state, f"cl:{k}")


def _banker36_seeded(seed: str) -> dict[str, Any] | None:
    seats = [{"id": s, "chips": 1000} for s in ("a", "b", "c")]
    state, _ = engine.new_game(
        "banker36",
        seats=seats,
        options={"stake": 10, "entry_limit": 100},
        first_banker="a",
        seed=seed,
    )
    state, _ = engine.apply(state, {"seat": "b", "action": "bet", "amount": 10})
    return state if not state["rounds"] else None


def test_banker36_values_agree_with_monte_carlo_from_the_seats_view():
    # b's duel comes first, so no duel's cards have been shown yet.
    positions = _first_decisions("banker36", _banker36_seeded, 2, lambda s: True)
    state = positions[1]
    state, _ = engine.apply(state, {"seat": "b", "action": "hit"})  # a two-card position
    assert not state["rounds"]
    for k, position in enumerate([positions[0], state]):
        _monte_carlo("banker36", position, f"b36:{k}")


def test_solo_values_agree_with_monte_carlo_from_the_seats_view():
    bet = _solo(["AS"], seed="mc-solo")  # the bet: 1 or 300 coins on an ace
    draw = _solo(["9S"], seed="mc-solo-draw")
    draw, _ = engine.apply(draw, {"seat": "p", "action": "bet", "amount": 50})
    draw, _ = engine.apply(draw, {"seat": "p", "action": "hit"})
    if draw["rounds"]:  # the hit settled it; the seed is fixed, so this does not happen
        pytest.fail("the seeded draw position settled at once")
    _monte_carlo("solo", bet, "solo:0")
    _monte_carlo("solo", draw, "solo:1")


def _salon(
    ponter: list[str], banker: list[str], *, seed: str, other: list[str] | None = None
) -> dict[str, Any]:
    """A salon deal at b's bet: a banks, b (and c, given `other`) are the ponters."""
    ids = ["a", "b", *(["c"] if other else [])]
    state, _ = engine.new_game(
        "salon",
        seats=[{"id": i, "chips": 1000} for i in ids],
        first_banker="a",
        deck=[*ponter, *(other or []), *banker],
        seed=seed,
    )
    assert state["turn"] == "b" and state["phase"] == "bet"
    return state


def test_salon_ponter_values_agree_with_monte_carlo_from_the_seats_view():
    """The ponter's values are exact against the rule banker when he is the only ponter:
    the bet (the banker's natural counted), and a draw once the banker is known to have
    none."""
    bet = _salon(["TS", "5H"], ["9D", "7C"], seed="mc-salon-bet")
    _monte_carlo("salon", bet, "salon:0")
    draw, _ = engine.apply(bet, {"seat": "b", "action": "bet", "amount": 40})
    _monte_carlo("salon", draw, "salon:1")  # 15: stand and hit close
    low = _salon(["2S", "6H"], ["9D", "7C"], seed="mc-salon-low")
    low, _ = engine.apply(low, {"seat": "b", "action": "bet", "amount": 10})
    _monte_carlo("salon", low, "salon:2")


def test_salon_banker_values_agree_with_monte_carlo_of_the_model():
    """The banker's stand is exact against the model's ponter; his draw does not condition
    the ponter's hand on the banker's later cards (20,000 deals put that within 0.4 ± 0.26
    chips of the simulation on this stake of 30), so the draw is allowed half a chip."""
    state = _salon(["TS", "4H"], ["9D", "5C"], seed="mc-salon-bank")
    state, _ = engine.apply(state, {"seat": "b", "action": "bet", "amount": 30})
    state, _ = engine.apply(state, {"seat": "b", "action": "stand"})
    assert state["turn"] == "a" and state["phase"] == "banker"
    _monte_carlo("salon", state, "salon:bank", allowance=0.5)


# --- view only -----------------------------------------------------------------------------


def _same_view_same_values(variant: str, one: dict[str, Any], two: dict[str, Any], seat: str):
    assert one != two  # the positions differ ...
    view_one, view_two = engine.view(one, seat), engine.view(two, seat)
    assert view_one == view_two  # ... only in what the seat cannot see
    first = assess(variant, view_one)
    assert first is not None
    assert assess(variant, view_two) == first
    # a view that went through JSON (as it leaves the server) gives the same values
    assert assess(variant, json.loads(json.dumps(view_one))) == first


def test_blackjack_hidden_hole_card_and_stock_do_not_change_the_values():
    one, _ = engine.new_game(
        "blackjack", seats=[{"id": "p"}], deck=["TS", "6D", "6H", "5C", "TC"], seed="one"
    )
    two, _ = engine.new_game(
        "blackjack", seats=[{"id": "p"}], deck=["TS", "6D", "6H", "KC", "TH"], seed="two"
    )
    assert one["dealer"] != two["dealer"]
    _same_view_same_values("blackjack", one, two, "p")
    # the outcomes do differ: standing on 16 loses to 6+5+T and beats 6+K+T
    stand = {"seat": "p", "action": "stand"}
    assert engine.apply(one, stand)[0]["rounds"][0]["hands"][0]["delta"] == -1
    assert engine.apply(two, stand)[0]["rounds"][0]["hands"][0]["delta"] == 1


def test_classic_hidden_hands_hole_card_and_stock_do_not_change_the_values():
    one = _classic(["TS", "6H"], "9D", other=("AS", "KS"), hole="2C", seed="one")
    two = _classic(["TS", "6H"], "9D", other=("5C", "4C"), hole="TC", seed="two")
    assert one["hands"]["b"] != two["hands"]["b"] and one["dealer"] != two["dealer"]
    _same_view_same_values("classic", one, two, "a")


def test_banker36_hidden_hands_and_stock_do_not_change_the_values():
    bet = {"seat": "b", "action": "bet", "amount": 10}
    one, _ = engine.apply(_banker36(["TS", "AC", "6H"], seed="one"), bet)
    two, _ = engine.apply(_banker36(["TS", "7C", "KH"], seed="two"), bet)
    assert one["circle"]["hands"]["c"] != two["circle"]["hands"]["c"]
    _same_view_same_values("banker36", one, two, "b")


def test_solo_hidden_banker_card_and_stock_do_not_change_the_values():
    one = _solo(["TS", "AD", "6H"], seed="one")
    two = _solo(["TS", "7D", "KH"], seed="two")
    _same_view_same_values("solo", one, two, "p")  # the bet
    bet = {"seat": "p", "action": "bet", "amount": 30}
    one, two = engine.apply(one, bet)[0], engine.apply(two, bet)[0]
    assert one["banker_cards"] != two["banker_cards"]
    _same_view_same_values("solo", one, two, "p")  # the draw


def test_salon_hidden_hands_and_stock_do_not_change_the_values():
    one = _salon(["TS", "5H"], ["9D", "7C"], other=["4S", "3S"], seed="one")
    two = _salon(["TS", "5H"], ["2D", "3C"], other=["4C", "2D"], seed="two")
    _same_view_same_values("salon", one, two, "b")  # the bet
    for action in (
        {"seat": "b", "action": "bet", "amount": 20},
        {"seat": "c", "action": "bet", "amount": 10},
    ):
        one, two = engine.apply(one, action)[0], engine.apply(two, action)[0]
    _same_view_same_values("salon", one, two, "b")  # b's draw
    for action in ({"seat": "b", "action": "stand"}, {"seat": "c", "action": "stand"}):
        one, two = engine.apply(one, action)[0], engine.apply(two, action)[0]
    assert one["turn"] == two["turn"] == "a"
    two["deal"]["hands"]["a"] = list(one["deal"]["hands"]["a"])  # the banker's own cards
    _same_view_same_values("salon", one, two, "a")  # the banker's draw


# --- blackjack: the model against the exact values -----------------------------------------


def test_blackjack_model_is_within_a_few_thousandths_of_a_unit_of_the_exact_values():
    """Every two-card hand against every up-card, the exact values (every card drawn
    without replacement from the six-deck shoe the seat has not seen) against the model's:
    stand is the same number (the dealer is exact in both), hit within 0.002 units, double
    within 0.0035 (per unit of the initial bet; the doubled wager is two), and the model
    picks the exact best play for every hand but T,2 vs 4 (stand; hit is better by 0.00075
    units exactly).

    Added up over the deal with the best play per hand, the model's values give the
    strategy engine's `optimal_house_edge` (0.5147 %) to 1e-9, and the exact ones (splits
    kept at the model's value, as the review does) 0.5177 %; the published figure for these
    rules is 0.5142 % (docs/strategy.md)."""
    worst = {"stand": 0.0, "hit": 0.0, "double": 0.0}
    differ = []
    returns = {"exact": 0.0, "model": 0.0}
    for up in range(10):
        base = list(BLACKJACK_RULES.full_shoe())
        base[up] -= 1
        for a, b in two_card_hands():
            weight = deal_probability(BLACKJACK_RULES, up, a, b)
            if {a, b} == {ACE, TEN}:
                natural = make_situation(BLACKJACK_RULES, up, (a, b)).natural_ev()
                returns["exact"] += weight * natural
                returns["model"] += weight * natural
                continue
            own = tuple((r == a) + (r == b) for r in range(10))
            exact = dict(
                zip(
                    ("stand", "hit", "double"),
                    review._exact(BLACKJACK_RULES, up, tuple(base), own),
                    strict=True,
                )
            )
            model = review._model_values(BLACKJACK_RULES, up, (a, b), hand_state([a, b]))
            for name in worst:
                worst[name] = max(worst[name], abs(exact[name] - model[name]))
            if max(exact, key=exact.get) != max(model, key=model.get):
                differ.append((RANK_CHARS[a] + RANK_CHARS[b], RANK_CHARS[up]))
            if a == b:
                exact["split"] = model["split"] = review._split_value(
                    BLACKJACK_RULES, up, (a, b), a
                )
            returns["exact"] += weight * max(exact.values())
            returns["model"] += weight * max(model.values())
    assert worst["stand"] < 1e-12
    assert 0.001 < worst["hit"] < 0.002
    assert 0.002 < worst["double"] < 0.0035
    assert differ == [("2T", "4")]
    strategy = blackjack.compute_strategy()
    assert -returns["model"] == pytest.approx(strategy.optimal_house_edge, abs=1e-9)
    assert -returns["exact"] == pytest.approx(0.005177, abs=1e-6)
    assert abs(-returns["exact"] - blackjack.PUBLISHED_HOUSE_EDGE) < 0.00005


# --- a whole record ------------------------------------------------------------------------


RECORD_TABLES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "blackjack": ([{"id": "p1"}, {"id": "p2"}], {"rounds": 6}),
    "classic": ([{"id": "a"}, {"id": "b"}, {"id": "c"}], {"rounds": 5}),
    "banker36": ([{"id": s, "chips": 1000} for s in ("a", "b", "c", "d")], {"banks": 3}),
    "solo": ([{"id": "p"}], {}),
    "salon": ([{"id": s, "chips": 1000} for s in ("a", "b", "c")], {"deals": 8}),
}


def _record(variant: str, seed: str, level: str, rounds: int = 8) -> dict[str, Any]:
    """A hand record played by AI seats (at most `rounds` rounds or duels)."""
    seats, options = RECORD_TABLES[variant]
    state, _ = engine.new_game(variant, seats=seats, options=options, seed=seed)
    actions = []
    while not state["finished"] and len(state["rounds"]) < rounds:
        turn = engine.legal_actions(state)
        action = choose_action(variant, level, engine.view(state, turn["seat"]), turn["actions"])
        actions.append(action)
        state, _ = engine.apply(state, action)
    return {
        "variant": variant,
        "seats": seats,
        "options": options,
        "seed": seed,
        "actions": actions,
    }


@pytest.mark.parametrize(
    ("variant", "level"),
    [
        ("blackjack", "easy"),
        ("classic", "medium"),
        ("banker36", "easy"),
        ("solo", "player"),
        ("salon", "ponter"),
    ],
)
def test_review_record_reviews_every_decision_in_order(variant, level):
    record = _record(variant, f"record-{variant}", level)
    decisions = review_record(record)
    assert decisions, "a seeded record has decisions"
    numbers = [d["n"] for d in decisions]
    assert numbers == sorted(set(numbers))
    for d in decisions:
        action = record["actions"][d["n"]]
        assert d["seat"] == action["seat"]
        values = [o["value"] for o in d["options"]]
        assert d["chosen"] in d["options"] and d["best"] in d["options"]
        assert d["best"]["value"] == max(values)
        assert d["loss"] >= 0
        assert d["loss"] == pytest.approx(d["best"]["value"] - d["chosen"]["value"], abs=2e-4)
        assert d["chosen"]["action"] == (
            "stand" if action["action"] == "timeout" else action["action"]
        )
        if d["chosen"] == d["best"]:
            assert d["loss"] == 0
    rounds = [d["round"] for d in decisions]
    assert rounds == sorted(rounds)
    total = summary(decisions)
    assert total["decisions"] == len(decisions)
    assert 0 <= total["accuracy"] <= 1
    # from a later action on, only the later decisions; one seat's only
    later = review_record(record, start=numbers[len(numbers) // 2])
    assert later == decisions[len(numbers) // 2 :]
    seat = decisions[0]["seat"]
    assert review_record(record, seats=[seat]) == [d for d in decisions if d["seat"] == seat]


@pytest.mark.parametrize("variant", ["blackjack", "classic", "banker36", "salon"])
def test_a_timeout_is_reviewed_as_stand(variant):
    record = _record(variant, f"timeout-{variant}", "ponter" if variant == "salon" else "hard")
    decisions = review_record(record)
    draw = next(d for d in decisions if d["chosen"]["action"] == "hit")
    changed = dict(record, actions=list(record["actions"]))
    seat = record["actions"][draw["n"]]["seat"]
    changed["actions"][draw["n"]] = {"seat": seat, "action": "timeout"}
    changed["actions"] = changed["actions"][: draw["n"] + 1]  # the rest no longer fits
    reviewed = review_record(changed)[-1]
    assert reviewed["n"] == draw["n"] and reviewed["timeout"] is True
    assert reviewed["chosen"]["action"] == "stand"
    stand = next(o for o in reviewed["options"] if o["action"] == "stand")
    assert reviewed["chosen"] == stand
    assert reviewed["loss"] == pytest.approx(reviewed["best"]["value"] - stand["value"], abs=2e-4)
