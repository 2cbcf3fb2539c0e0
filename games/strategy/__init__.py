"""Strategy engine: optimal play and expected returns, computed from the variants' rules.

* `blackjack` — the no-hole-card six-deck basic strategy and its house edge.
* `classic` — the hit/stand chart that maximises expected points, and those points.
* `banker36` — the duel's optimal draw/stand play, the first-card EV (bet signal) and the
  expected return per chip.
* `solo` — the same duel without five pictures: optimal play and the return per coin bet.
* `salon` — a ponter's best play against the rules' banker, a bet's value, and the
  banker's values against the coach's ponters (`games.strategy.salon`, a stated model).

Pure computation: standard library only, deterministic, memoised per process.
`main_strategy(variant)` returns the text `python -m games strategy --variant KEY` prints.
"""

from __future__ import annotations

from games.strategy import banker36, blackjack, classic, solo
from games.strategy.banker36 import Banker36Strategy
from games.strategy.blackjack import BlackjackStrategy
from games.strategy.classic import ClassicStrategy

__all__ = [
    "VARIANTS",
    "Banker36Strategy",
    "BlackjackStrategy",
    "ClassicStrategy",
    "banker36",
    "blackjack",
    "classic",
    "format_chart",
    "main_strategy",
    "solo",
]

VARIANTS = ("blackjack", "classic", "banker36", "solo", "salon")

_UPCARDS = "23456789TA"
_LEGEND = "H hit   S stand   Dh double, else hit   Ds double, else stand   P split"


def _grid(title: str, rows: list[tuple[str, list[str]]]) -> list[str]:
    lines = [f"{title:<10}" + "".join(f"{u:>4}" for u in _UPCARDS)]
    for label, cells in rows:
        lines.append(f"{label:<10}" + "".join(f"{c:>4}" for c in cells))
    return lines


def _format_blackjack(strategy: BlackjackStrategy) -> str:
    rules = strategy.rules
    hard = [(str(t), [strategy.code("hard", t, u) for u in _UPCARDS]) for t in range(4, 22)]
    soft = [
        (
            f"{t} (A,{t - 11 if t < 21 else 'T'})" if t > 12 else "12 (A,A)",
            [strategy.code("soft", t, u) for u in _UPCARDS],
        )
        for t in range(12, 22)
    ]
    pairs = [(f"{p},{p}", [strategy.code("pair", p, u) for u in _UPCARDS]) for p in "23456789TA"]
    peek = (
        "the dealer peeks for a natural"
        if rules.dealer_peeks
        else ("no hole card: a dealer natural takes doubles and splits")
    )
    lines = [
        f"blackjack basic strategy: {rules.decks} decks, dealer "
        f"{'hits' if rules.hits_soft_17 else 'stands on'} soft 17, double any two cards"
        f"{', double after split' if rules.double_after_split else ''}, "
        f"split to {rules.max_hands} hands, split aces once (one card each), {peek}",
        _LEGEND,
        "",
        *_grid("Hard", hard),
        "",
        *_grid("Soft", soft),
        "",
        *_grid("Pairs", pairs),
        "",
        f"House edge playing this chart: {-100 * blackjack.exact_expected_return(strategy):.4f}% "
        "(exact: every card drawn without replacement; a split keeps the model's value)",
        f"The chart's model (initial removal, used to choose each cell): "
        f"{100 * strategy.house_edge:.4f}%",
        f"The model with the best play for every two-card hand: "
        f"{100 * strategy.optimal_house_edge:.4f}%",
    ]
    if rules == blackjack.BLACKJACK_RULES:
        lines.append(
            "Published (Wizard of Odds, Appendix 9, euro-6ds17r4): "
            f"{100 * blackjack.PUBLISHED_HOUSE_EDGE:.4f}%"
        )
    return "\n".join(lines)


def _format_classic(strategy: ClassicStrategy) -> str:
    hard = [(str(t), [strategy.code("hard", t, u) for u in _UPCARDS]) for t in range(4, 22)]
    soft = [(str(t), [strategy.code("soft", t, u) for u in _UPCARDS]) for t in range(12, 22)]
    lines = [
        "classic hit/stand chart: one deck per round, the dealer checks for a natural "
        "and stands on every 17; natural +150, win +100, loss -100",
        "H hit   S stand",
        "",
        *_grid("Hard", hard),
        "",
        *_grid("Soft", soft),
        "",
        f"Expected points per round for one player playing this chart: "
        f"{100 * classic.exact_expected_return(strategy):+.2f} (exact: every card drawn "
        "without replacement)",
        f"The chart's model (initial removal, used to choose each cell): "
        f"{strategy.expected_points:+.2f}",
    ]
    return "\n".join(lines)


def _format_banker36(strategy: Banker36Strategy) -> str:
    solo_game = not strategy.five_pictures
    columns = [None, 1, 2, 3, 4] + ([5] if solo_game else [])
    names = ["mixed", "1 pic", "2 pics", "3 pics", "4 pics"] + (["5 pics"] if solo_game else [])
    if solo_game:
        title = (
            "solo round: draw or stand against a banker who draws to 17 and wins ties "
            "(36-card deck reshuffled every round; golden point counts 21, five pictures "
            "do not)"
        )
    else:
        title = (
            "banker36 duel: draw or stand against a banker who draws to 17 and wins ties "
            "(36-card deck; golden point and five pictures count 21)"
        )
    lines = [
        title,
        "D draw   S stand   . cannot occur   "
        "(columns: hands with a 6-10 in them, or all J/Q/K/A with that many cards)",
        "",
        "Total     " + "".join(f"{n:>8}" for n in names),
    ]
    totals = sorted({k[0] for k in strategy.chart})
    for total in totals:
        cells = []
        for pictures in columns:
            action = strategy.chart.get((total, pictures))
            cells.append("." if action is None else ("D" if action == "draw" else "S"))
        lines.append(f"{total:<10}" + "".join(f"{c:>8}" for c in cells))
    if strategy.exceptions:
        lines.append("")
        lines.append(
            "Exact composition overrides the chart for: "
            + ", ".join(f"{cards} ({action})" for cards, action in strategy.exceptions)
        )
    unit = "coin" if solo_game else "chip"
    positive = ", ".join(r for r, ev in strategy.first_card_evs.items() if ev > 0)
    lines += [
        "",
        f"EV per {unit} by first card (exact): "
        + "  ".join(f"{r} {ev:+.4f}" for r, ev in strategy.first_card_evs.items()),
        (
            f"Best bet: the largest allowed on {positive}, else 1 coin"
            if solo_game
            else f"Hard AI bets the largest offer on: {positive}"
        ),
        f"Expected return per {unit} bet, optimal play (exact): "
        f"{strategy.expected_return:+.5f} (playing the chart only: "
        f"{strategy.chart_expected_return:+.5f})",
    ]
    return "\n".join(lines)


def format_chart(strategy: BlackjackStrategy | ClassicStrategy | Banker36Strategy) -> str:
    """A computed strategy as text tables plus its expected-return line."""
    if isinstance(strategy, BlackjackStrategy):
        return _format_blackjack(strategy)
    if isinstance(strategy, ClassicStrategy):
        return _format_classic(strategy)
    return _format_banker36(strategy)


def main_strategy(variant: str) -> str:
    """The text of `python -m games strategy --variant KEY`.

    Raises ValueError for a variant without a strategy computation.
    """
    if variant == "blackjack":
        return format_chart(blackjack.compute_strategy())
    if variant == "classic":
        return format_chart(classic.compute_strategy())
    if variant == "banker36":
        return format_chart(banker36.compute_strategy())
    if variant == "solo":
        return format_chart(solo.compute_strategy())
    if variant == "salon":
        from games.strategy import salon

        return salon.format_chart()
    raise ValueError(
        f"no strategy computation for variant {variant!r}; available: {', '.join(VARIANTS)}"
    )
