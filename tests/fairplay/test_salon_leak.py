"""The directed EV leak at `salon`: what a ponter's decision gives away goes to the deal's
banker; what the banker's own decision gives away (he draws blind against every ponter)
goes to the ponter with the largest stake; and salon is tested against its own
population, not banker36's."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from fairplay.leak import _variant_pair_leaks, pair_leaks, takers_by_action
from fairplay.models import Leak
from games.strategy.review import review_record
from insights.models import Decision
from tests.fairplay.test_cases import _game


def _record() -> dict:
    """a banks; b bets 20 and stands on 8 (a gift to the bank), c bets 50 and stands; the
    banker holds 14 and draws."""
    return {
        "variant": "salon",
        "seats": [{"id": s, "chips": 1000} for s in ("a", "b", "c")],
        "first_banker": "a",
        "deck": ["5S", "3H", "TS", "9H", "9D", "5C", "TD"],
        "actions": [
            {"seat": "b", "action": "bet", "amount": 20},
            {"seat": "c", "action": "bet", "amount": 50},
            {"seat": "b", "action": "stand"},
            {"seat": "c", "action": "stand"},
            {"seat": "a", "action": "hit"},
        ],
    }


def test_a_ponters_decisions_feed_the_banker_and_the_bankers_the_largest_stake():
    record = _record()
    takers = takers_by_action(record)
    # (who gains, the chips at stake): a bet's largest offer, a draw's own bet, the
    # banker's every bet in the deal
    assert takers == {0: ("a", 100), 1: ("a", 100), 2: ("a", 20), 3: ("a", 50), 4: ("c", 70)}
    reviewed = {d["n"]: d for d in review_record(record)}
    assert reviewed[2]["situation"] == "total8" and reviewed[2]["best"]["action"] == "hit"
    assert reviewed[2]["loss"] > 0  # standing on 8 gives the bank chips
    assert reviewed[4]["situation"] == "bank14"


def _salon_leaks(giver, taker, losses, *, variant: str) -> None:
    game = _game(giver)
    type(game).objects.filter(pk=game.pk).update(variant=variant)
    start = Decision.objects.filter(game=game).count()
    decisions = Decision.objects.bulk_create(
        Decision(
            game=game,
            user=giver,
            variant=variant,
            seat="s",
            number=start + i,
            round=1,
            situation="total12",
            options=[{"action": "hit", "value": 0.0}, {"action": "stand", "value": -loss}],
            chosen={"action": "stand", "value": -loss},
            best={"action": "hit", "value": 0.0},
            loss=loss,
        )
        for i, loss in enumerate(losses)
    )
    Leak.objects.bulk_create(
        Leak(decision=d, game=game, number=d.number, giver=giver, taker=taker, loss=d.loss)
        for d in decisions
    )


@pytest.mark.django_db
def test_each_variant_is_tested_against_its_own_population(make_user):
    """salon's bets lose tens of chips where banker36's duels lose a few: pooled, salon's
    spread would hide a banker36 ring. Tested apart, the banker36 ring is flagged, the
    salon players' ordinary big losses are not, and a pair keeps its strongest test."""
    small = [make_user(f"d{i}") for i in range(6)]
    for giver in small:
        for taker in small:
            if giver != taker:
                _salon_leaks(giver, taker, [0.0, 0.1, 0.0, 0.3] * 6, variant="banker36")
    feeder, bank = make_user("feeder"), make_user("bank")
    _salon_leaks(feeder, bank, [0.9] * 24, variant="banker36")
    big = [make_user(f"s{i}") for i in range(6)]
    for giver in big:
        for taker in big:
            if giver != taker:
                _salon_leaks(giver, taker, [0.0, 40.0, 5.0, 0.0] * 6, variant="salon")
    since = timezone.now() - datetime.timedelta(days=1)
    salon_deviation = _variant_pair_leaks(since=since, variant="salon")[0].deviation
    flagged = {(p.giver_id, p.taker_id): p for p in pair_leaks() if p.flagged}
    assert list(flagged) == [(feeder.pk, bank.pk)]
    assert flagged[(feeder.pk, bank.pk)].variant == "banker36"
    assert flagged[(feeder.pk, bank.pk)].deviation < salon_deviation / 10


@pytest.mark.django_db
def test_a_salon_shoe_in_play_is_reviewed_up_to_its_last_settled_deal(make_user):
    """A salon game is a whole shoe: the scan reviews what is settled while it goes on,
    and nothing of the deal in progress (its cards are not shown yet)."""
    import random

    from fairplay.leak import reviews_settled, settled_upto
    from play.models import Game
    from play.services import moves, seating
    from play.services.records import game_record
    from tables import services
    from tests.play.live_helpers import play_step, playing

    ann, bob = make_user("ann"), make_user("bob")
    table = services.table_create(variant="salon", name="Салон", created_by=ann)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=ann)
    rng = random.Random(3)
    users = {ann.pk: ann, bob.pk: bob}
    game = playing(table)
    while len(game.state["rounds"]) < 2 or engine_turn_is_a_bet(game):
        play_step(table, users, rng, game.number)
        game = playing(table)
    # In the third deal, after its bets: the first two deals are settled.
    upto = settled_upto(game_record(game))
    assert 0 < upto < len(game.actions)
    assert reviews_settled() > 0
    game = Game.objects.get(pk=game.pk)
    assert game.reviewed_actions == upto
    numbers = set(Decision.objects.filter(game=game).values_list("number", flat=True))
    assert numbers and max(numbers) < upto
    assert reviews_settled() == 0  # nothing settled since


def engine_turn_is_a_bet(game) -> bool:
    from games import engine

    turn = engine.legal_actions(game.state)
    return turn is None or turn["actions"][0]["action"] in ("bet", "cut")
