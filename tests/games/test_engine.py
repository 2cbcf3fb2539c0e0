"""The checks every variant shares, made once in games.engine."""

from __future__ import annotations

import pytest

from games import engine
from games.errors import RulesError


def _classic() -> dict:
    state, _ = engine.new_game(
        "classic", seats=[{"id": "ann"}, {"id": "bob"}], deck=["9S", "8S", "7H", "2S", "3S", "6C"]
    )
    return state


def test_an_unknown_action_is_illegal_whoever_sends_it():
    state = _classic()
    for seat in ("ann", "bob", "nobody"):
        with pytest.raises(RulesError) as caught:
            engine.apply(state, {"seat": seat, "action": "surrender"})
        assert caught.value.code == "illegal_action"
        assert "'ann' may: hit, stand" in caught.value.message


def test_a_known_action_from_the_wrong_seat_is_not_your_turn():
    with pytest.raises(RulesError) as caught:
        engine.apply(_classic(), {"seat": "bob", "action": "hit"})
    assert caught.value.code == "not_your_turn"
    assert "'ann'" in caught.value.message


def test_timeout_is_never_listed_but_always_allowed_to_the_seat_on_turn():
    state = _classic()
    assert all(a["action"] != "timeout" for a in engine.legal_actions(state)["actions"])
    new_state, _ = engine.apply(state, {"seat": "ann", "action": "timeout"})
    assert engine.legal_actions(new_state)["seat"] == "bob"


def test_actions_after_the_end_are_illegal():
    state = _classic()
    state["finished"] = True
    with pytest.raises(RulesError) as caught:
        engine.apply(state, {"seat": "ann", "action": "hit"})
    assert caught.value.code == "illegal_action"


def test_events_for_strip_private_cards_for_other_viewers():
    events = [{"type": "deal", "to": "ann", "card": "AS"}, {"type": "deal", "card": "KD"}]
    assert engine.events_for(events, "ann") == events
    assert engine.events_for(events, "bob") == [{"type": "deal", "to": "ann"}, events[1]]


def test_a_malformed_action_is_a_bad_record_at_its_own_index():
    from games.record import replay_text

    record = (
        '{"variant": "classic", "seats": [{"id": "a"}, {"id": "b"}],'
        ' "deck": ["9S", "8S", "7H", "2S", "3S", "6C"],'
        ' "actions": [{"seat": "a", "action": "stand"}, {"seat": "b"}]}'
    )
    output, status = replay_text(record)
    assert status == 1
    assert output["error"]["code"] == "bad_record"
    assert output["error"]["action_index"] == 1
