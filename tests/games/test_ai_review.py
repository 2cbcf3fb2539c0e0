"""The AI levels measured by the decision review (`python -m games review-ai`).

Every level plays the same seeded deals, and the review values each AI decision from the
seat's view. What must come out:

* the levels are ordered as their names promise: easy loses the most value per 100
  decisions (blackjack and classic: easy > medium > hard; banker36: easy > hard);
* hard's accuracy is at least 95 %. It is not 100 % in the 52-card games, and should not
  be: the hard AIs play a *total-dependent* chart (one play per total and up-card), while
  the review values each hand by its composition (blackjack's model; classic exactly), so
  a multi-card 16 vs T that the chart hits, or T,2 vs 4 in classic's single deck, count
  as small mistakes. In banker36 the hard AI plays the exact optimum for its cards, as the
  review does, and bets by the first card's sign: it is never wrong (100 %).

`classic` medium plays the same hit/stand chart as hard except soft 18 vs A (medium hits,
the single-deck optimum stands), so the two are close: on the same deals they part only
at those hands, where the review's exact values stand (A,7; A,2,5; A,3,4; A,2,2,3 …
were checked), so medium's extra loss is there (later cards of the round then differ).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from games.__main__ import main
from games.record import replay
from games.strategy import ai_review
from games.strategy.ai_review import format_review_ai, play_record, review_ai, review_levels

ROUNDS = {"blackjack": 3000, "classic": 2000, "banker36": 400, "solo": 300}


@pytest.fixture(scope="module")
def measured() -> dict[str, dict[str, ai_review.AIReview]]:
    return {
        variant: {
            result.level: result
            for result in review_levels(variant, None, rounds=rounds, seed="levels", workers=2)
        }
        for variant, rounds in ROUNDS.items()
    }


@pytest.mark.parametrize("variant", ["blackjack", "classic"])
def test_the_52_card_levels_lose_as_their_names_promise(measured, variant):
    levels = measured[variant]
    assert levels["easy"].lost_per_100 > levels["medium"].lost_per_100
    assert levels["medium"].lost_per_100 > levels["hard"].lost_per_100
    assert levels["easy"].accuracy < levels["medium"].accuracy <= levels["hard"].accuracy
    assert levels["hard"].accuracy >= 0.95
    for result in levels.values():
        assert result.decisions > ROUNDS[variant]  # more than one decision per round


def test_banker36_easy_loses_more_than_hard_and_hard_is_always_right(measured):
    levels = measured["banker36"]
    assert levels["easy"].lost_per_100 > levels["hard"].lost_per_100
    assert levels["hard"].accuracy == 1.0 and levels["hard"].lost == 0.0
    assert levels["easy"].accuracy < 0.95


def test_solos_plain_player_loses_value_on_its_fixed_bet(measured):
    player = measured["solo"]["player"]
    assert player.decisions > ROUNDS["solo"]
    assert 0.0 < player.accuracy < 1.0 and player.lost_per_100 > 0.0


def test_every_level_plays_the_same_deals():
    """A classic match's every round is a fresh deck shuffled from (seed, round): each
    level is dealt the same two cards per seat and the same dealer cards, round by round,
    though it plays them differently."""
    deals = []
    plays = []
    for level in ("easy", "medium", "hard"):
        record = play_record("classic", level, "same:0", 10)
        rounds = replay(record)["result"]["rounds"]
        assert len(rounds) == 10
        deals.append([[hand["cards"][:2] for hand in unit["hands"]] for unit in rounds])
        plays.append(record["actions"])
    assert deals[0] == deals[1] == deals[2]
    assert plays[0] != plays[2]


def test_the_result_does_not_depend_on_the_number_of_workers():
    rounds = 2 * ai_review.CHUNK + 7  # three chunks, the last one short
    one = review_ai(variant="blackjack", level="medium", rounds=rounds, seed="w", workers=1)
    two = review_ai(variant="blackjack", level="medium", rounds=rounds, seed="w", workers=2)
    assert (one.workers, two.workers) == (1, 2)
    assert one.records == rounds
    assert replace(two, workers=1) == one


def test_classic_and_solo_count_rounds_not_records():
    classic = review_ai(variant="classic", level="hard", rounds=25, seed="count", workers=1)
    assert classic.records == 3  # 10 + 10 + 5 rounds
    solo = review_ai(variant="solo", level="player", rounds=7, seed="count", workers=1)
    assert solo.records == 1
    assert solo.decisions >= 2 * 7  # a bet and at least one draw-or-stand a round


def test_the_command_prints_every_levels_accuracy_and_value_lost(capsys):
    status = main(["review-ai", "--variant", "banker36", "--rounds", "30", "--seed", "cli"])
    out = capsys.readouterr().out
    assert status == 0
    assert "decision review of AI seats: banker36, 30 banks per level, seed 'cli'" in out
    assert "stakes" in out
    lines = [line.split() for line in out.splitlines() if line.startswith(("easy", "hard"))]
    assert [line[0] for line in lines] == ["easy", "hard"]
    assert lines[1][2] == "100.00%"
    status = main(
        ["review-ai", "--variant", "blackjack", "--levels", "hard", "--rounds", "20", "--seed", "x"]
    )
    out = capsys.readouterr().out
    assert status == 0 and "hard" in out and "easy" not in out


def test_the_command_refuses_unknown_levels_and_too_few_rounds(capsys):
    assert (
        main(["review-ai", "--variant", "solo", "--levels", "hard", "--rounds", "5", "--seed", "x"])
        == 2
    )
    assert "the solo levels are: player" in capsys.readouterr().err
    assert main(["review-ai", "--variant", "classic", "--rounds", "0", "--seed", "x"]) == 2


def test_format_lists_the_levels_in_order():
    results = review_levels("banker36", ["hard", "easy"], rounds=5, seed="f", workers=1)
    text = format_review_ai(results)
    assert text.index("\nhard") < text.index("\neasy")
    assert f"value unit: {ai_review.UNITS['banker36']}" in text
