"""Cases, not verdicts (issue 32, item 2): a flagged pair opens a case in the moderation
queue with its evidence — the worst decisions with the coach's figures and replay links —
and holds both players off the leaderboards while it is open; a moderator may reverse a
dump through one recorded ledger transfer, shown on both statements."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from accounts.models import LedgerEntry
from accounts.services import chips_in_circulation, wallet_for
from fairplay.cases import cases_open
from fairplay.leak import Baseline, pair_leaks
from fairplay.models import Leak
from insights.models import Decision
from insights.skill import MIN_DECISIONS, leaderboard
from moderation.models import Report
from moderation.services import ModerationError, dump_reverse, sanction_apply
from play.models import Game
from play.services import closing
from play.services.seating import seat_take
from tables import services

pytestmark = [pytest.mark.django_db]

User = get_user_model()


def _game(player) -> Game:
    """A finished game of the player's to hang reviewed decisions on, counted as a
    `banker36` game (the detector tests each player-bank variant against its own
    population; a solo table is the quickest finished game to make)."""
    table = services.table_create(variant="solo", name=f"t{player.pk}")
    seat_take(table=table, player=player)
    game = Game.objects.get(table=table)
    closing.table_close(table=table)
    Game.objects.filter(pk=game.pk).update(variant="banker36")
    return Game.objects.get(pk=game.pk)


def _leaks(giver, taker, losses: list[float], kind: str = "") -> Game:
    """Reviewed decisions of `giver`'s with these losses toward `taker`'s bank (in one
    game of the giver's: the leak reads who gains from the Leak row, not the game), of
    one kind of decision."""
    game = Game.objects.filter(table__name=f"t{giver.pk}").first() or _game(giver)
    start = Decision.objects.filter(game=game).count()
    decisions = Decision.objects.bulk_create(
        Decision(
            game=game,
            user=giver,
            variant="banker36",
            seat="s",
            number=start + i,
            round=1,
            situation="total12",
            options=[{"action": "hit", "value": 0.5}, {"action": "stand", "value": 0.5 - loss}],
            chosen={"action": "stand", "value": round(0.5 - loss, 4)},
            best={"action": "hit", "value": 0.5},
            loss=loss,
        )
        for i, loss in enumerate(losses)
    )
    Leak.objects.bulk_create(
        Leak(
            decision=d, game=game, number=d.number, giver=giver, taker=taker, loss=d.loss, kind=kind
        )
        for d in decisions
    )
    return game


@pytest.fixture
def population(make_user):
    """Eight honest players losing a little to each other's banks, and a ring: `feeder`
    throws chips into `bank`'s."""
    rng = random.Random(32)
    honest = [make_user(f"h{i}") for i in range(8)]
    for giver in honest:
        for taker in honest:
            if giver != taker:
                _leaks(giver, taker, [rng.choice([0, 0, 0, 0.1, 0.4, 1.5]) for _ in range(40)])
    feeder, bank = make_user("feeder"), make_user("bank")
    _leaks(feeder, bank, [rng.choice([2.0, 3.5, 5.0]) for _ in range(40)])
    return {"honest": honest, "feeder": feeder, "bank": bank}


def test_the_ring_is_flagged_and_no_honest_pair_is(population):
    flagged = [(p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged]
    assert flagged == [(population["feeder"].pk, population["bank"].pk)]


def test_a_ring_once_flagged_does_not_widen_the_bar_for_the_next(population, make_user):
    """A whale of a dump (150 chips a decision) left in the population would spread its
    deviation twentyfold, and the feeder's steady 2–5 chips would pass for noise; flagged
    first, the whale leaves the population the feeder is measured by."""
    whale, whale_bank = make_user("whale"), make_user("whale_bank")
    _leaks(whale, whale_bank, [150.0] * 40)
    flagged = sorted((p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged)
    assert flagged == sorted(
        [(population["feeder"].pk, population["bank"].pk), (whale.pk, whale_bank.pk)]
    )


def test_a_pair_is_measured_by_everyone_elses_play_not_its_own(make_user):
    """A ring that is most of the decisions there are: with its own dumps (150 chips every
    other decision) in the population they are measured by, its z stays near 2; measured
    by the others' decisions, it is plain."""
    honest, other, feeder, bank = (make_user(name) for name in ("h", "o", "feeder", "bank"))
    rng = random.Random(7)
    _leaks(honest, other, [rng.choice([0, 0, 0.1, 0.4, 1.5]) for _ in range(20)])
    _leaks(feeder, bank, [150.0, 0.0] * 20)
    flagged = [(p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged]
    assert flagged == [(feeder.pk, bank.pk)]


def test_a_weak_player_who_plays_one_friends_bank_only_is_not_a_ring(make_user):
    """Nine players of three strengths play each other's banks; a tenth, as weak as the
    weakest, plays only his friend's, 300 times. Against the population's mean rate
    alone his z would be about 14; allowing for how far honest players' rates lie apart
    (τ), it is about 1. A feeder of 40 dumps is flagged all the same."""
    plays = {"strong": [0, 0, 0, 0.1], "medium": [0, 0, 0.1, 0.4], "weak": [0, 0.1, 0.4, 1.0]}
    players = [
        (make_user(f"{strength}{i}"), losses)
        for strength, losses in plays.items()
        for i in range(3)
    ]
    for index, (giver, losses) in enumerate(players):
        for step in (1, 2, 3):  # 20 decisions toward each of three banks
            taker = players[(index + step) % len(players)][0]
            _leaks(giver, taker, losses * 5)
    weak, friend = make_user("weak"), make_user("friend")
    _leaks(weak, friend, plays["weak"] * 75)
    feeder, bank = make_user("feeder"), make_user("bank")
    _leaks(feeder, bank, [2.0, 3.5, 5.0, 3.5] * 10)
    tested = {(p.giver_id, p.taker_id): p for p in pair_leaks()}
    assert [key for key, p in tested.items() if p.flagged] == [(feeder.pk, bank.pk)]
    assert tested[(weak.pk, friend.pk)].spread > 0.1
    assert tested[(weak.pk, friend.pk)].z < 2


def test_the_skill_spread_is_read_from_players_of_several_banks_not_from_the_rings(make_user):
    """Three honest players of three banks each, and three rings whose feeders play only
    their partner's bank and are half the players with a rate to measure: read from all
    six, the skill spread would be about 1.4 chips a decision and hide every ring."""
    honest = [make_user(f"h{i}") for i in range(3)]
    banks = [make_user(f"b{i}") for i in range(3)]
    for giver in honest:
        for bank in banks:
            _leaks(giver, bank, [0, 0, 0.1, 0.3] * 5)
    rings = []
    for i, dumps in enumerate([[1.0, 2.0, 3.0], [2.0, 3.5, 5.0], [4.0, 5.0, 6.0]]):
        feeder, partner = make_user(f"feeder{i}"), make_user(f"partner{i}")
        _leaks(feeder, partner, dumps * 20)
        rings.append((feeder.pk, partner.pk))
    tested = {(p.giver_id, p.taker_id): p for p in pair_leaks()}
    assert sorted(key for key, p in tested.items() if p.flagged) == sorted(rings)
    assert all(tested[ring].spread < 0.1 for ring in rings)
    # A decision or two at other banks does not make a feeder a player of several: a
    # taker counts from FAIRPLAY_LEAK_MIN_KIND_DECISIONS decisions of the kind.
    for feeder, _partner in rings:
        for bank in banks[:2]:
            _leaks(User.objects.get(pk=feeder), bank, [0.0])
    tested = {(p.giver_id, p.taker_id): p for p in pair_leaks()}
    assert sorted(key for key, p in tested.items() if p.flagged) == sorted(rings)


def test_a_rounding_residue_of_the_sums_is_no_spread():
    # Three decisions that lost nothing, once a whale's squares were subtracted from the
    # window's sum: what is left is rounding, not a deviation to divide by.
    assert Baseline.of(3, 1e-13, 4.7e-11).variance == 0.0
    assert Baseline.of(3, 3.0, 5.0).variance == pytest.approx(1.0)


def test_a_feeder_of_two_banks_does_not_hide_one_by_the_other(population, make_user):
    """Flagged toward the second bank, the feeder's dumps there are no "rate of his own
    elsewhere" that would excuse the first."""
    feeder, first, second = population["feeder"], population["bank"], make_user("second")
    _leaks(feeder, second, [2.0, 3.5, 5.0] * 20)
    flagged = sorted((p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged)
    assert flagged == sorted([(feeder.pk, first.pk), (feeder.pk, second.pk)])


def test_a_few_huge_dumps_of_another_kind_do_not_hide_a_flagged_one(population):
    """Nine bets that lose 20 chips each make a z of hundreds on too few decisions to
    count; the pair's flagged draws are what it is tested on."""
    feeder, bank = population["feeder"], population["bank"]
    for giver in population["honest"]:
        _leaks(giver, population["honest"][0], [0, 0, 0.2, 0.5] * 5, kind="bet")
    _leaks(feeder, bank, [20.0] * 9, kind="bet")
    (tested,) = [p for p in pair_leaks() if (p.giver_id, p.taker_id) == (feeder.pk, bank.pk)]
    assert tested.flagged and tested.kind == ""


def test_a_pair_once_flagged_stays_flagged_when_a_later_pass_widens_the_spread(make_user):
    """Four honest players of three banks each and Y, a fifth, whose third bank (YB) he
    feeds; X feeds XB steadily. Both are flagged in the first pass; without Y's dumps, Y
    has two banks left and leaves the skill spread, which widens — X is still flagged,
    with the figures of the test that flagged him."""
    banks = [make_user(f"b{i}") for i in range(3)]
    for i, rate in enumerate([0.1, 0.2, 0.3, 0.4]):
        giver = make_user(f"h{i}")
        for bank in banks:
            _leaks(giver, bank, [rate - 0.05, rate + 0.05] * 10)
    y, y_bank, x, x_bank = (make_user(name) for name in ("y", "y_bank", "x", "x_bank"))
    _leaks(y, banks[0], [0.05] * 40)
    _leaks(y, banks[1], [0.05] * 40)
    _leaks(y, y_bank, [1.05] * 20)
    _leaks(x, x_bank, [0.7, 0.8] * 100)
    flagged = sorted((p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged)
    assert flagged == sorted([(y.pk, y_bank.pk), (x.pk, x_bank.pk)])


@override_settings(FAIRPLAY_LEAK_MIN_DECISIONS=41)
def test_too_few_decisions_are_not_evidence_however_bad(population):
    assert [p for p in pair_leaks() if p.flagged] == []
    assert cases_open() == []


def test_a_flagged_pair_opens_one_case_with_its_evidence(population):
    feeder, bank = population["feeder"], population["bank"]
    (case,) = cases_open()
    assert case.reporter is None and case.reason == "collusion"
    assert (case.reported, case.partner, case.status) == (bank, feeder, "open")
    evidence = case.evidence["fairplay"]
    assert evidence["leak"]["decisions"] == 40 and evidence["leak"]["z"] >= 4
    worst = evidence["worst"]
    assert len(worst) == 10 and worst[0]["loss"] == 5.0
    assert worst[0]["replay"] == reverse("game_replay", args=[worst[0]["game"]])
    assert [w["loss"] for w in worst] == sorted((w["loss"] for w in worst), reverse=True)
    # Run again: the same case, brought up to date, not a second one.
    assert [c.pk for c in cases_open()] == [case.pk]
    assert Report.objects.filter(partner=feeder).count() == 1


def test_the_case_page_shows_the_worst_decisions_with_their_figures_and_replays(
    population, make_user
):
    (case,) = cases_open()
    moderator = make_user("mod", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(moderator)
    page = client.get(reverse("admin:moderation_report_change", args=[case.pk])).content.decode()
    assert "детектор честной игры" in page
    assert page.count('class="fairplay-worst"') == 10
    game = case.evidence["fairplay"]["worst"][0]["game"]
    assert f'href="{reverse("game_replay", args=[game])}"' in page
    # The coach's values, chosen and best, in the games' words, as is the situation.
    assert "Хватит (-4.5)" in page and "Ещё карту (0.5)" in page
    assert "<td>12 очков</td>" in page and "total12" not in page
    assert "z = " in page and "Вернуть фишки" in page
    leak = case.evidence["fairplay"]["leak"]
    assert f"σ = {leak['deviation_per_chip']} на решение" in page
    assert f"между игроками τ = {leak['skill_spread']}." in page
    # Many-to-one: everyone's leak toward this bank, the feeder first.
    toward = case.evidence["fairplay"]["toward_bank"]
    assert toward[0]["username"] == "feeder" and toward[0]["decisions"] == 40
    assert page.count('class="fairplay-feeder"') == len(toward) >= 1
    # The replay opens for the moderator (staff see every game).
    assert client.get(reverse("game_replay", args=[game])).status_code == 200


def _rated(player):
    _leaks(player, None, [0.1] * MIN_DECISIONS)


def test_flagged_players_leave_the_leaderboards_while_the_case_is_open(population, make_user):
    feeder, bank = population["feeder"], population["bank"]
    for player in (feeder, bank, population["honest"][0]):
        _rated(player)
    on_board = lambda: {row["username"] for row in leaderboard("banker36")}  # noqa: E731
    assert {"feeder", "bank", "h0"} <= on_board()
    (case,) = cases_open()
    assert "feeder" not in on_board() and "bank" not in on_board()
    assert "h0" in on_board()
    moderator = make_user("mod", is_staff=True)
    sanction_apply(kind="dismiss", player=bank, by=moderator, reason="Проверено", report=case)
    assert {"feeder", "bank"} <= on_board()


def test_a_reversal_is_one_recorded_conserved_entry_on_both_statements(population, make_user):
    feeder, bank = population["feeder"], population["bank"]
    (case,) = cases_open()
    moderator = make_user("mod", is_staff=True, is_superuser=True)
    before = (wallet_for(feeder).balance, wallet_for(bank).balance, chips_in_circulation())
    entry = dump_reverse(report=case, amount=700, by=moderator, reason="Сброс фишек в банк")
    assert entry.reason == LedgerEntry.Reason.FAIRPLAY_REVERSAL
    assert entry.idempotency_key == f"fairplay:reversal:{case.pk}"
    assert entry.created_by == moderator
    assert (wallet_for(feeder).balance, wallet_for(bank).balance, chips_in_circulation()) == (
        before[0] + 700,
        before[1] - 700,
        before[2],
    )
    case.refresh_from_db()
    assert case.reversal == entry and case.reversed_by == moderator
    for player, sign in ((feeder, "+"), (bank, "−")):
        client = Client()
        client.force_login(player)
        statement = client.get(reverse("chips")).content.decode()
        assert "Возврат по решению модератора" in statement, player
        assert f"Дело №{case.pk}: Сброс фишек в банк" in statement
        assert f'class="num {"plus" if sign == "+" else "minus"}">{sign}700</td>' in statement
    with pytest.raises(ModerationError):
        dump_reverse(report=case, amount=700, by=moderator, reason="ещё раз")
    assert LedgerEntry.objects.filter(reason=LedgerEntry.Reason.FAIRPLAY_REVERSAL).count() == 1


def test_a_reversal_the_gainer_cannot_cover_is_refused_and_moves_nothing(population, make_user):
    (case,) = cases_open()
    moderator = make_user("mod", is_staff=True)
    before = wallet_for(population["bank"]).balance
    with pytest.raises(ModerationError) as refused:
        dump_reverse(report=case, amount=before + 1, by=moderator, reason="Сброс")
    assert "Фишки не возвращены" in refused.value.message
    assert wallet_for(population["bank"]).balance == before
    case.refresh_from_db()
    assert case.reversal is None


def test_the_reversal_form_in_the_admin(population, make_user):
    (case,) = cases_open()
    moderator = make_user("mod", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(moderator)
    url = reverse("admin:moderation_report_reverse", args=[case.pk])
    assert client.get(url).status_code == 200
    answer = client.post(url, {"amount": "250", "reason": "Сброс"})
    assert answer.status_code == 302
    case.refresh_from_db()
    assert case.reversal.amount == 250


def test_a_decided_case_is_not_reopened_until_the_pair_leaks_again(population, make_user):
    feeder, bank = population["feeder"], population["bank"]
    (case,) = cases_open()
    moderator = make_user("mod", is_staff=True)
    sanction_apply(kind="dismiss", player=bank, by=moderator, reason="Проверено", report=case)
    assert cases_open() == []  # the same decisions: decided
    _leaks(feeder, bank, [5.0] * 20)  # and then it goes on
    (again,) = cases_open()
    assert again.pk != case.pk and again.status == "open"


def test_the_scan_command_opens_the_case(population):
    out = StringIO()
    call_command("fairplay_scan", stdout=out)
    assert out.getvalue().strip() == "cases opened or updated: 1"
    assert Report.objects.filter(partner=population["feeder"], status="open").exists()


def test_a_bank_everyone_loses_more_to_is_not_fed_by_one_of_them(make_user):
    """Every player loses more toward one bank (its size sets the bets it offers): measured
    against what the others lose there, no honest pair is a leak — and a feeder who loses
    far more than they do still is."""
    rng = random.Random(7)
    players = [make_user(f"p{i}") for i in range(6)]
    big = make_user("big")
    for giver in players:
        for taker in players:
            if giver != taker:
                _leaks(giver, taker, [rng.choice([0, 0, 0, 0.1, 0.2]) for _ in range(40)])
        _leaks(giver, big, [rng.choice([0.2, 0.3, 0.4, 0.5]) for _ in range(60)])
    assert [p for p in pair_leaks() if p.flagged] == []
    feeder = make_user("feeder")
    _leaks(feeder, big, [rng.choice([1.5, 2.0, 2.5]) for _ in range(30)])
    flagged = [(p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged]
    assert flagged == [(feeder.pk, big.pk)]


def test_two_feeders_of_one_bank_do_not_hide_each_other(make_user):
    """The others' rate toward a bank is their median: a second feeder of the same bank,
    who gave it far more decisions than the honest players did, does not raise the bar
    the first is measured against (as a mean of every decision toward the bank would)."""
    rng = random.Random(11)
    players = [make_user(f"q{i}") for i in range(3)]
    bank = make_user("bank")
    for giver in players:
        _leaks(giver, bank, [rng.choice([0, 0, 0, 0.1, 0.4]) for _ in range(10)])
        for taker in players:
            if giver != taker:
                _leaks(giver, taker, [rng.choice([0, 0, 0, 0.1, 0.4]) for _ in range(30)])
    feeders = [make_user("feeder1"), make_user("feeder2")]
    for feeder in feeders:
        _leaks(feeder, bank, [rng.choice([3.0, 3.5, 4.0]) for _ in range(400)])
    flagged = sorted((p.giver_id, p.taker_id) for p in pair_leaks() if p.flagged)
    assert flagged == sorted((feeder.pk, bank.pk) for feeder in feeders)
