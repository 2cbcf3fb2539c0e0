"""A live `salon` shoe is stored and given out as docs/hand-record.md §6 has it: the cut is
live-only, so the record states the shoe in its order after the cut (`deck`) with the
lot's seat (`first_banker`), and neither the `cut` option nor the cutter's move."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from games.cards import shoe
from games.record import ReplayError, replay
from play.services import moves, records, seating
from tables import services
from tests.play.live_helpers import conservation_holds, play_game_randomly, playing, sweep_after

pytestmark = pytest.mark.django_db(transaction=True)


def salon_shoe(make_user, *, cutter_times_out: bool):
    users = {u.pk: u for u in (make_user() for _ in range(3))}
    host = next(iter(users.values()))
    table = services.table_create(
        variant="salon", name="salon", created_by=host, min_bet=10, max_bet=100, entry_limit=100
    )
    for user in users.values():
        seating.seat_take(table=table, player=user)
    moves.game_start(table=table, by=host)
    if cutter_times_out:
        game = playing(table)
        assert game.state["phase"] == "cut"
        sweep_after(game.deadline)
    in_play = records.public_record(playing(table))
    game = play_game_randomly(table, users, random.Random(5))
    return game, in_play


@pytest.mark.parametrize("cutter_times_out", [False, True], ids=["player-cut", "server-cut"])
def test_a_salon_record_states_the_shoe_after_the_cut_and_replays_to_its_result(
    make_user, cutter_times_out
):
    game, _in_play = salon_shoe(make_user, cutter_times_out=cutter_times_out)
    assert game.state["finished"]
    record = records.public_record(game)
    assert "cut" not in record["options"]
    assert all(action["action"] != "cut" for action in record["actions"])
    assert len(record["actions"]) == len(game.actions) - 1  # the cutter's move only
    assert sorted(record["deck"]) == sorted(shoe("standard52", 2))
    assert record["first_banker"] in {seat["id"] for seat in record["seats"]}
    # What a replayer that follows the spec sees: the stored result, from the deck alone
    # as from the deck and the seed (with its fairness checks).
    assert replay(record)["result"] == game.result
    without_seed = {k: v for k, v in record.items() if k not in ("seed", "fairness", "result")}
    assert replay(without_seed)["result"] == game.result
    # The cut is refused in a record, as the spec says.
    with_cut = {**without_seed, "actions": [game.actions[0], *record["actions"]]}
    with pytest.raises(ReplayError) as refused:
        replay(with_cut)
    assert refused.value.error["code"] in {"illegal_action", "not_your_turn"}
    assert refused.value.error["action_index"] == 0
    assert conservation_holds()


def test_a_salon_record_in_play_gives_neither_the_seed_nor_the_shoe(make_user):
    _game, in_play = salon_shoe(make_user, cutter_times_out=True)
    assert "deck" not in in_play and "seed" not in in_play
    assert in_play["fairness"]["server_seed"] is None
    assert "cut" not in in_play["options"]
    assert all(action["action"] not in ("cut", "timeout") for action in in_play["actions"])


def test_verify_checks_that_a_salon_records_deck_is_its_seeds_shoe_cut(make_user, tmp_path):
    game, _in_play = salon_shoe(make_user, cutter_times_out=True)
    record = records.public_record(game)
    cut = game.events.get(version=1).events  # the cutter's timeout: the server's cut
    position = next(event["position"] for event in cut if event["type"] == "cut")
    good = _verify(tmp_path / "good.json", record)
    assert good.returncode == 0, good.stdout
    assert f"the record's deck is shuffle 0 of its seed, cut at position {position}" in good.stdout
    # Two different cards of the deck swapped (cards still to come, after the last one
    # dealt): the replay still gives the result, but the deck is not what the seed dealt.
    # The shoe is two decks, so the last two cards may be the same card: then the one
    # before them.
    deck = list(record["deck"])
    other = max(i for i in range(len(deck) - 1) if deck[i] != deck[-1])
    deck[-1], deck[other] = deck[other], deck[-1]
    bad = _verify(tmp_path / "bad.json", {**record, "deck": deck})
    assert bad.returncode == 1, bad.stdout
    assert "FAIL  the record's deck is shuffle 0 of its seed" in bad.stdout


def _verify(path, record):
    path.write_text(json.dumps(record), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "games", "verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
