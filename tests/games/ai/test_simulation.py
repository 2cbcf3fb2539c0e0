"""Simulation: AI seats through the engine; the mean and its 95% CI, repeatable by seed."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from games.ai import LEVELS
from games.simulation import CHUNK_ROUNDS, bench_figures, format_simulation, simulate
from games.strategy import blackjack

ROOT = Path(__file__).resolve().parents[3]


def test_200k_blackjack_hard_rounds_land_within_their_ci_of_the_computed_return():
    """The strategy engine's expected return for its own chart, −0.5167 %, is computed from
    a full six-deck shoe, dealt off the top. The engine deals from a shoe that is used down
    to 78 cards before a reshuffle, so later rounds come from depleted shoes. Playing a
    fixed strategy, that does not move the expectation by a measurable amount: without
    counting, each round's cards are a uniformly random draw from the shoe's unseen cards,
    and the effect of the cut point (the "cut-card effect", a few hundredths of a percent at
    most for six decks) is far below this simulation's standard error (about 0.26 % of a unit
    for 200,000 rounds, a CI of about ±0.5 %). So the computed return must lie in the CI.
    """
    result = simulate(variant="blackjack", level="hard", rounds=200_000, seed="ai-200k", workers=2)
    expected = -blackjack.house_edge()
    assert result.samples == 200_000
    assert result.expected == pytest.approx(expected)
    assert 0.004 < result.half_width < 0.006
    assert result.ci_low <= expected <= result.ci_high, format_simulation(result)


def test_the_result_does_not_depend_on_the_number_of_workers():
    rounds = 2 * CHUNK_ROUNDS["blackjack"] + 123  # three chunks, the last one short
    one = simulate(variant="blackjack", level="medium", rounds=rounds, seed="w", workers=1)
    two = simulate(variant="blackjack", level="medium", rounds=rounds, seed="w", workers=2)
    assert one.chunks == two.chunks == 3
    assert (one.workers, two.workers) == (1, 2)
    assert replace(two, workers=1) == one


def test_the_same_seed_repeats_the_result_and_another_seed_does_not():
    a = simulate(variant="classic", level="hard", rounds=300, seed="again", workers=1)
    b = simulate(variant="classic", level="hard", rounds=300, seed="again", workers=1)
    c = simulate(variant="classic", level="hard", rounds=300, seed="other", workers=1)
    assert a == b
    assert a.mean != c.mean


@pytest.mark.parametrize(
    ("variant", "level"), [(variant, level) for variant in LEVELS for level in LEVELS[variant]]
)
def test_simulate_runs_every_variant_and_level_and_formats_its_output(variant, level):
    result = simulate(variant=variant, level=level, rounds=120, seed="small", workers=1)
    assert result.samples == 120
    assert result.ci_low < result.mean < result.ci_high
    assert math.isfinite(result.stdev)
    text = format_simulation(result)
    assert f"simulation: {variant}, AI level {level}" in text
    assert "mean: " in text
    assert "95% CI: [" in text
    assert result.unit in text


def test_simulate_refuses_an_unknown_level_and_too_few_rounds():
    with pytest.raises(ValueError, match="levels are"):
        simulate(variant="blackjack", level="expert", rounds=10, seed="x", workers=1)
    with pytest.raises(ValueError, match="at least 1"):
        simulate(variant="blackjack", level="easy", rounds=0, seed="x", workers=1)


def test_one_round_has_no_interval_but_still_formats():
    result = simulate(variant="solo", level="player", rounds=1, seed="one", workers=None)
    assert result.workers == 1  # one chunk needs one process
    assert math.isinf(result.half_width)
    assert "95% CI" in format_simulation(result)


def test_the_cli_prints_the_mean_and_the_ci():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "games",
            "simulate",
            "--variant",
            "banker36",
            "--ai",
            "hard",
            "--rounds",
            "500",
            "--seed",
            "cli",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert "simulation: banker36, AI level hard, seed 'cli'" in done.stdout
    assert "mean: " in done.stdout
    assert "95% CI: [" in done.stdout
    assert "computed expected return per chip" in done.stdout


def test_bench_figures_label_the_simulation_speed_and_the_strategy_time():
    ticks = iter(range(1000))
    figures = dict(bench_figures(quick=True, clock=lambda: float(next(ticks))))
    assert figures["simulation: blackjack hard, rounds/s per core"] == "2,000"  # 1 s per run
    million = figures["simulation: 1,000,000 blackjack rounds on 2 cores (projected)"]
    assert million == "250.0 s (target < 60 s)"
    assert figures["strategy: full blackjack strategy, fresh"] == "1.00 s (target < 10 s)"
    assert blackjack.compute_strategy().house_edge > 0  # the memo is usable again
