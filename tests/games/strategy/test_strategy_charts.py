"""`format_chart` and `main_strategy`: the text `python -m games strategy` prints."""

from __future__ import annotations

import pytest

from games.strategy import (
    VARIANTS,
    banker36,
    blackjack,
    classic,
    format_chart,
    main_strategy,
    salon,
    solo,
)


def _table(text: str, title: str) -> list[list[str]]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def test_blackjack_text_has_hard_soft_and_pair_tables_against_every_upcard():
    text = main_strategy("blackjack")
    header = next(line for line in text.splitlines() if line.startswith("Hard"))
    assert header.split()[1:] == list("23456789TA")
    hard, soft, pairs = _table(text, "Hard"), _table(text, "Soft"), _table(text, "Pairs")
    assert [row[0] for row in hard] == [str(t) for t in range(4, 22)]
    assert len(soft) == 10 and len(pairs) == 10
    assert hard[11 - 4][1:] == ["Dh"] * 8 + ["H", "H"]
    assert pairs[-1] == ["A,A"] + ["P"] * 9 + ["H"]
    assert "House edge playing this chart: 0.52" in text and "(exact:" in text
    assert "The chart's model (initial removal, used to choose each cell): 0.51" in text
    assert "euro-6ds17r4" in text


def test_classic_text_has_hit_stand_tables_and_expected_points():
    text = main_strategy("classic")
    cells = {c for row in _table(text, "Hard") + _table(text, "Soft") for c in row[1:]}
    assert cells == {"H", "S"}
    assert f"{classic.expected_points():+.2f}" in text


def test_the_classic_command_prints_the_exact_minus_1_97_and_says_which_figure_is_which():
    text = main_strategy("classic")
    exact = next(line for line in text.splitlines() if "exact" in line)
    assert exact == (
        "Expected points per round for one player playing this chart: -1.97 "
        "(exact: every card drawn without replacement)"
    )
    model = next(line for line in text.splitlines() if "model" in line)
    assert model.endswith(": -1.93") and "initial removal" in model


def test_solo_text_has_the_policy_the_bet_rule_and_the_return_per_coin():
    text = main_strategy("solo")
    rows = _table(text, "Total")
    assert [int(row[0]) for row in rows] == list(range(2, 21))
    assert {c for row in rows for c in row[1:]} <= {"D", "S", "."}
    assert "five pictures do not" in text
    assert "Best bet: the largest allowed on T, A, else 1 coin" in text
    assert f"per coin bet, optimal play (exact): {solo.expected_return():+.5f}" in text


def test_banker36_text_has_the_policy_by_total_and_the_return_line():
    text = main_strategy("banker36")
    rows = _table(text, "Total")
    assert [int(row[0]) for row in rows] == list(range(2, 21))
    assert {c for row in rows for c in row[1:]} <= {"D", "S", "."}
    assert f"{banker36.expected_return():+.5f}" in text
    assert "Hard AI bets the largest offer on: T, A" in text


def test_format_chart_renders_any_computed_strategy():
    assert format_chart(blackjack.compute_strategy()) == main_strategy("blackjack")
    assert format_chart(banker36.compute_strategy()) == main_strategy("banker36")


def test_salon_text_has_the_play_by_two_card_total_and_the_return_line():
    text = main_strategy("salon")
    rows = _table(text, "Total")
    assert [" ".join(row[:2]) for row in rows][:3] == ["hard 4", "hard 5", "hard 6"]
    plays = {" ".join(row[:2]): (row[2], row[3]) for row in rows if row[0] != "natural"}
    assert plays["hard 12"] == ("D", "D") and plays["hard 13"] == ("S", "D")
    assert plays["hard 16"] == ("S", "S") and plays["soft 17"] == ("D", "D")
    assert f"{salon.expected_return():+.5f}" in text


@pytest.mark.parametrize("variant", ["poker"])
def test_variants_without_a_strategy_computation_are_refused(variant):
    assert variant not in VARIANTS
    with pytest.raises(ValueError, match="no strategy computation"):
        main_strategy(variant)
