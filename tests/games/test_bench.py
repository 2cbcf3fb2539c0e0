"""The benchmark compares like with like: its baseline loops deal the engine's cards."""

from __future__ import annotations

from benchmarks.engine import blackjack_loop, engine_figures, play_engine


def test_blackjack_baseline_loop_deals_exactly_the_engines_cards():
    rounds, states = play_engine("blackjack", 400, "bench-check")
    assert rounds == 400 and len(states) == 1
    engine_cards = [
        [card for hand in unit["hands"] for card in hand["cards"]] for unit in states[0]["rounds"]
    ]
    assert blackjack_loop(400, "bench-check-0") == engine_cards


def test_engine_figures_report_every_variant_with_a_ratio():
    text = engine_figures(quick=True)
    for variant in ("classic", "salon", "solo", "banker36", "blackjack"):
        assert f"\n{variant}" in text
    assert "≤ 5×" in text
