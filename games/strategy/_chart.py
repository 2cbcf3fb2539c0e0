"""Total-dependent charts derived from the 52-card engine (shared by `blackjack` and `classic`).

A chart cell is a code: ``H`` hit, ``S`` stand, ``Dh`` double (hit if doubling is not
allowed), ``Ds`` double (else stand), ``P`` split.

A cell's decision is the action with the highest probability-weighted EV over the
two-card hands with that total (the non-pairs where there are any, else the pair),
playing every later card by the chart's hit/stand fallbacks. Cells are decided highest
state first (hard 21..11, soft 21..11, hard 10..2), so whatever a hit leads to has been
decided already. The fallback of a doubling cell (``Dh``/``Ds``) is the better of hit and
stand for the same hands; it is also what the chart says for three or more cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from games.strategy._twentyone import (
    BUST,
    DOUBLE,
    HIT,
    N_STATES,
    ORDER,
    SPLIT,
    STAND,
    STEP,
    UPCARD_ORDER,
    Rules,
    Situation,
    deal_probability,
    hand_state,
    is_natural,
    make_situation,
    state_total,
    two_card_hands,
)

Hand = tuple[int, int]
Key = tuple[int, int]  # (total or pair rank, upcard rank)


@dataclass(frozen=True)
class HandEVs:
    """EVs of one two-card hand vs one up-card, per unit bet, dealer naturals included.

    `hit` and the split hands play on optimally (composition of the first two cards
    known); `double`/`split` are None where the rules do not offer them.
    """

    stand: float
    hit: float
    double: float | None
    split: float | None

    def best(self) -> tuple[str, float]:
        options = [(STAND, self.stand), (HIT, self.hit)]
        if self.double is not None:
            options.append((DOUBLE, self.double))
        if self.split is not None:
            options.append((SPLIT, self.split))
        return max(options, key=lambda item: item[1])


@dataclass(frozen=True)
class Chart:
    """A total-dependent chart plus the figures that come with it."""

    rules: Rules
    hard: Mapping[Key, str]  # (hard total 4..21, upcard) -> code
    soft: Mapping[Key, str]  # (soft total 12..21, upcard) -> code
    pairs: Mapping[Key, str]  # (pair rank, upcard) -> "P" or the code of its total
    hard_evs: Mapping[Key, Mapping[str, float]]  # weighted EV of each action
    soft_evs: Mapping[Key, Mapping[str, float]]
    pair_evs: Mapping[Key, Mapping[str, float]]
    expected_return: float  # playing the chart, per initial unit bet
    optimal_expected_return: float  # best play for each two-card hand
    return_by_upcard: Mapping[int, float]  # each up-card's weighted share of expected_return
    hand_evs: Mapping[tuple[int, int, int], HandEVs] = field(repr=False)  # (a<=b, upcard)


def _unconditional(situation: Situation, ev: float) -> float:
    """Fold the peeked dealer natural (it takes the one unit) back into an EV."""
    if not situation.rules.dealer_peeks:
        return ev
    p = situation.p_natural
    return -p + (1.0 - p) * ev


def _natural_total(situation: Situation) -> float:
    ev = situation.natural_ev()
    if situation.rules.dealer_peeks:
        return (1.0 - situation.p_natural) * ev
    return ev


def _code(best: str, fallback: str) -> str:
    if best == DOUBLE:
        return "Dh" if fallback == HIT else "Ds"
    return "H" if best == HIT else "S"


def _hit_ev(situation: Situation, state: int, value: list[float]) -> float:
    nxt = STEP[state]
    draw = situation.draw
    return sum(draw[r] * value[nxt[r]] for r in range(10))


@dataclass
class _Upcard:
    """Work for one up-card: its situations and weights."""

    rules: Rules
    up: int
    situations: dict[Hand, Situation]
    weight: dict[Hand, float]  # deal probability
    decision_weight: dict[Hand, float]  # ... times "the player gets to act"


def _prepare(rules: Rules, up: int) -> _Upcard:
    situations = {h: make_situation(rules, up, h) for h in two_card_hands()}
    weight = {h: deal_probability(rules, up, *h) for h in situations}
    decision_weight = {
        h: weight[h] * ((1.0 - s.p_natural) if rules.dealer_peeks else 1.0)
        for h, s in situations.items()
    }
    return _Upcard(rules, up, situations, weight, decision_weight)


def _optimal(work: _Upcard, out: dict[tuple[int, int, int], HandEVs]) -> float:
    """Best play per two-card hand: fill `out`, return the up-card's weighted return."""
    rules = work.rules
    das = rules.double_allowed and rules.double_after_split
    total = 0.0
    for h, sit in work.situations.items():
        if is_natural(*h):
            total += work.weight[h] * _natural_total(sit)
            continue
        value = sit.values()
        state = hand_state(h)

        def split_hand(s: int, sit: Situation = sit, value: list[float] = value) -> float:
            best = max(sit.stand_ev(s), _hit_ev(sit, s, value))
            return max(best, sit.double_ev(s)) if das else best

        double = sit.double_ev(state) if rules.double_allowed else None
        split = sit.split_ev(h[0], split_hand) if rules.max_hands > 1 and h[0] == h[1] else None
        evs = HandEVs(
            stand=_unconditional(sit, sit.stand_ev(state)),
            hit=_unconditional(sit, _hit_ev(sit, state, value)),
            double=None if double is None else _unconditional(sit, double),
            split=None if split is None else _unconditional(sit, split),
        )
        out[(h[0], h[1], work.up)] = evs
        total += work.weight[h] * evs.best()[1]
    return total


@dataclass
class _Cells:
    hard: dict[Key, str] = field(default_factory=dict)
    soft: dict[Key, str] = field(default_factory=dict)
    pairs: dict[Key, str] = field(default_factory=dict)
    hard_evs: dict[Key, dict[str, float]] = field(default_factory=dict)
    soft_evs: dict[Key, dict[str, float]] = field(default_factory=dict)
    pair_evs: dict[Key, dict[str, float]] = field(default_factory=dict)


def _decide_totals(
    work: _Upcard, cells: _Cells, by_state: Mapping[int, list[Hand]]
) -> tuple[dict[int, str], dict[Hand, list[float]]]:
    """Decide every total's cell; return the codes by state and each hand's chart values."""
    rules = work.rules
    sit_of = work.situations
    values = {h: [0.0] * (N_STATES + 1) for h in sit_of}
    for v in values.values():
        v[BUST] = -1.0
    codes: dict[int, str] = {}
    for state in ORDER:
        total, is_soft = state_total(state)
        hits = {h: _hit_ev(sit, state, values[h]) for h, sit in sit_of.items()}
        comps = by_state.get(state, [])
        comps = [h for h in comps if h[0] != h[1]] or comps
        if total == 21 or not comps:
            # 21 stands by rule; a lone card (split hand) is never a decision.
            fallback, code = (STAND, "S") if total == 21 else (HIT, "H")
        else:
            stands = [sit_of[h].stand_ev(state) for h in comps]
            hit_list = [hits[h] for h in comps]
            w = [work.decision_weight[h] for h in comps]
            w_stand = sum(a * b for a, b in zip(w, stands, strict=True))
            w_hit = sum(a * b for a, b in zip(w, hit_list, strict=True))
            fallback = HIT if w_hit > w_stand else STAND
            best = fallback
            per_action = {STAND: stands, HIT: hit_list}
            if rules.double_allowed:
                doubles = [sit_of[h].double_ev(state) for h in comps]
                if sum(a * b for a, b in zip(w, doubles, strict=True)) > max(w_hit, w_stand):
                    best = DOUBLE
                per_action[DOUBLE] = doubles
            code = _code(best, fallback)
            mass = sum(work.weight[h] for h in comps)
            evs = {
                action: sum(
                    work.weight[h] * _unconditional(sit_of[h], x)
                    for h, x in zip(comps, xs, strict=True)
                )
                / mass
                for action, xs in per_action.items()
            }
            (cells.soft_evs if is_soft else cells.hard_evs)[(total, work.up)] = evs
        codes[state] = code
        if total >= (12 if is_soft else 4):
            (cells.soft if is_soft else cells.hard)[(total, work.up)] = code
        for h, sit in sit_of.items():
            values[h][state] = hits[h] if fallback == HIT else sit.stand_ev(state)
    return codes, values


def _chart_play(
    sit: Situation, codes: Mapping[int, str], value: list[float], state: int, may_double: bool
) -> float:
    if may_double and codes[state] in ("Dh", "Ds"):
        return sit.double_ev(state)
    return value[state]


def _decide_pairs_and_return(
    work: _Upcard, cells: _Cells, codes: Mapping[int, str], values: Mapping[Hand, list[float]]
) -> float:
    """Decide the pair cells; return the up-card's weighted return playing the chart."""
    rules = work.rules
    das = rules.double_allowed and rules.double_after_split
    total = 0.0
    for h, sit in work.situations.items():
        if is_natural(*h):
            total += work.weight[h] * _natural_total(sit)
            continue
        state = hand_state(h)
        value = values[h]
        ev = _chart_play(sit, codes, value, state, rules.double_allowed)
        if h[0] == h[1]:
            cell_evs = {STAND: sit.stand_ev(state), HIT: _hit_ev(sit, state, value)}
            if rules.double_allowed:
                cell_evs[DOUBLE] = sit.double_ev(state)
            code = codes[state]
            if rules.max_hands > 1:

                def split_hand(s: int, sit: Situation = sit, v: list[float] = value) -> float:
                    return _chart_play(sit, codes, v, s, das)

                split = sit.split_ev(h[0], split_hand)
                cell_evs[SPLIT] = split
                if split > ev:
                    code, ev = "P", split
            cells.pairs[(h[0], work.up)] = code
            cells.pair_evs[(h[0], work.up)] = {
                k: _unconditional(sit, x) for k, x in cell_evs.items()
            }
        total += work.weight[h] * _unconditional(sit, ev)
    return total


def compute_chart(rules: Rules) -> Chart:
    by_state: dict[int, list[Hand]] = {}
    for h in two_card_hands():
        if not is_natural(*h):
            by_state.setdefault(hand_state(h), []).append(h)
    cells = _Cells()
    hand_evs: dict[tuple[int, int, int], HandEVs] = {}
    by_upcard: dict[int, float] = {}
    optimal_return = 0.0
    for up in UPCARD_ORDER:
        work = _prepare(rules, up)
        optimal_return += _optimal(work, hand_evs)
        codes, values = _decide_totals(work, cells, by_state)
        by_upcard[up] = _decide_pairs_and_return(work, cells, codes, values)
    return Chart(
        rules=rules,
        hard=cells.hard,
        soft=cells.soft,
        pairs=cells.pairs,
        hard_evs=cells.hard_evs,
        soft_evs=cells.soft_evs,
        pair_evs=cells.pair_evs,
        expected_return=sum(by_upcard.values()),
        optimal_expected_return=optimal_return,
        return_by_upcard=by_upcard,
        hand_evs=hand_evs,
    )
