"""The statistics page and the skill rating without a browser: figures from real games
played through live play's services (play/) checked against the records and the stored decisions,
the SVG charts' points and bars, who may see whose page, and the lobby's leaderboard
(its threshold, its order by the interval's upper end, its one query per variant)."""

from __future__ import annotations

import math
import random
import re
import statistics
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.strategy.review import MISTAKE_EPSILON
from insights import reviews as insights_reviews
from insights.coach import situation_label
from insights.models import Decision
from insights.skill import MIN_DECISIONS, RATED, leaderboard, player_skills, skill_of
from lobby import services as lobby_services
from play.models import Game
from play.services import closing, moves, seating
from tables import services as tables_services
from tests.play.live_helpers import classic_started, play_game_randomly, play_step, playing


def ru(value: float) -> str:
    """A figure as the Russian page prints it: 2,35; a whole number bare; a real minus."""
    text = str(int(value)) if float(value).is_integer() else f"{value:.2f}".replace(".", ",")
    return text.replace("-", "−")


def signed(value: float) -> str:
    return f"+{ru(value)}" if value > 0 else ru(value)


def figure(html: str, variant: str, name: str) -> str:
    section = variant_section(html, variant)
    found = re.search(rf'data-figure="{name}"[^>]*>(.*?)</', section, re.S)
    assert found, f"no {name} figure for {variant}"
    return found.group(1).replace("&nbsp;", " ").strip()


def variant_section(html: str, variant: str) -> str:
    found = re.search(rf'<section[^>]*id="stats-{variant}".*?</section>', html, re.S)
    assert found, f"no section for {variant}"
    return found.group(0)


def chart(html: str, ident: str) -> ET.Element | None:
    found = re.search(rf'<svg[^>]*id="{ident}".*?</svg>', html, re.S)
    return ET.fromstring(found.group(0)) if found else None


def _classic_match(make_user: Any, settings: Any, seed: int = 3) -> tuple[Any, Any, Game]:
    settings.GAME_INTERLUDE_SECONDS = 3600
    table, users = classic_started(make_user)
    ann, bob = users.values()
    game = play_game_randomly(table, users, random.Random(seed))
    assert game.status == Game.Status.FINISHED
    return ann, bob, game


def _solo_table(user: Any) -> Any:
    table = lobby_services.table_open(by=user, variant="solo", private=True)
    seating.seat_take(table=table, player=user)
    return table


def _solo_round(table: Any, user: Any, amount: int, *draws: str) -> None:
    """A bet, then the given draws («hit» while the round lasts) and a stand."""
    act = moves.game_act
    act(table=table, player=user, action={"action": "bet", "amount": amount}, version=None)
    for move in (*draws, "stand"):
        game = playing(table)
        if game is None or game.state["phase"] != "draw":
            break
        act(table=table, player=user, action={"action": move}, version=None)
    game = playing(table)
    if game is not None and game.state["phase"] == "over" and not game.state["game_over"]:
        act(table=table, player=user, action={"action": "next_round"}, version=None)


def _solo_game_ended(table: Any, user: Any) -> Game:
    """«Новая игра»: the game in play ends (a fresh one starts at the table)."""
    game = playing(table)
    moves.solo_new_game(table=table, player=user)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


# --- the page -------------------------------------------------------------------------------


def test_the_statistics_page_needs_a_signed_in_player(client, db):
    response = client.get(reverse("stats"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_player_without_games_sees_that_there_is_nothing_yet(client, make_user):
    client.force_login(make_user("ann"))
    response = client.get(reverse("stats"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Сыгранных игр пока нет" in html and "<svg" not in html
    assert 'href="/stats/" aria-current="page"' in html  # the nav link «Статистика»


def test_a_classic_match_gives_its_rounds_result_decisions_and_costs_as_the_record_says(
    client, make_user, settings
):
    ann, _bob, game = _classic_match(make_user, settings)
    assert not Decision.objects.exists()  # not reviewed yet: the page reviews it itself
    client.force_login(ann)
    html = client.get(reverse("stats")).content.decode()

    game.refresh_from_db()
    assert game.reviewed_actions == len(game.actions)
    seat = "ann"
    rounds = [r for r in game.result["rounds"] if any(h["seat"] == seat for h in r["hands"])]
    mine = list(Decision.objects.filter(user=ann))
    best = [d for d in mine if d.loss <= MISTAKE_EPSILON]
    lost = sum(d.loss for d in mine)
    assert mine and all(d.variant == "classic" for d in mine)
    assert figure(html, "classic", "games") == "1"
    assert figure(html, "classic", "rounds") == str(len(rounds)) == str(game.options["rounds"])
    assert figure(html, "classic", "net") == signed(game.result["deltas"][seat])
    assert figure(html, "classic", "decisions") == str(len(mine))
    accuracy = 100 * len(best) / len(mine)
    expected = str(int(accuracy)) if accuracy.is_integer() else f"{accuracy:.1f}".replace(".", ",")
    assert figure(html, "classic", "accuracy") == f"{expected} %"
    assert figure(html, "classic", "lost") == ru(round(100 * lost / len(mine), 2))
    # Fewer decisions than a rating needs: the page says how many are missing.
    assert f"осталось {MIN_DECISIONS - len(mine)}" in figure(html, "classic", "skill")

    result = chart(html, "chart-result-classic")
    assert result is not None and result.get("role") == "img" and result.get("viewBox")
    assert len(result.findall(".//circle")) == 1
    kinds: dict[str, list[float]] = {}
    for d in mine:
        kinds.setdefault(d.situation, []).append(d.loss)
    costly = sorted(
        ((sum(v), k) for k, v in kinds.items() if sum(v) > MISTAKE_EPSILON), key=lambda t: -t[0]
    )[:10]
    bars = chart(html, "chart-loss-classic")
    if costly:
        assert bars is not None
        labels = [text.text for text in bars.iter("text") if text.get("class") == "chart-label"]
        assert labels == [situation_label(k) for _, k in costly]
        assert len(bars.findall(".//rect")) == len(costly)
    else:
        assert bars is None and "Ни одной ошибки" in html


def test_the_result_chart_has_a_point_per_game_in_the_order_they_ended_with_the_running_total(
    client, make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann = make_user("ann")
    table = _solo_table(ann)
    ended = []
    for draws in (("hit",), (), ("hit", "hit")):
        _solo_round(table, ann, 20, *draws)
        _solo_round(table, ann, 10)
        ended.append(_solo_game_ended(table, ann))
    _solo_round(table, ann, 5)  # a fourth game, still in play
    in_play = playing(table)
    assert in_play is not None and len(in_play.state["rounds"]) == 1
    client.force_login(ann)
    html = client.get(reverse("stats")).content.decode()

    deltas = [g.result["deltas"]["ann"] for g in ended] + [in_play.state["deltas"]["ann"]]
    assert figure(html, "solo", "games") == "4"
    assert figure(html, "solo", "rounds") == "7"
    assert figure(html, "solo", "net") == signed(sum(deltas))
    points = chart(html, "chart-result-solo").findall(".//circle")
    assert len(points) == 4
    running = 0
    for point, delta in zip(points, deltas, strict=True):
        running += delta
        assert point.find("title").text.endswith(f"итого {signed(running)}")
    assert "идёт" in points[-1].find("title").text  # the game in play comes last
    # Every decision of all four games is in (bets, hits, stands), those in play too.
    assert figure(html, "solo", "decisions") == str(Decision.objects.filter(user=ann).count())
    solo_decisions = sum(len([a for a in g.actions if a["action"] in ("bet", "hit", "stand")])
                         for g in [*ended, in_play])  # fmt: skip
    assert Decision.objects.filter(user=ann).count() == solo_decisions


def test_the_charts_are_plain_svg_that_the_strict_policy_allows(client, make_user, settings):
    ann, _bob, _game = _classic_match(make_user, settings, seed=5)
    client.force_login(ann)
    response = client.get(reverse("stats"))
    html = response.content.decode()
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert svgs
    for svg in svgs:
        assert not re.search(r"\sstyle=|<style|\son[a-z]+=|<script|javascript:", svg, re.I)
        element = ET.fromstring(svg)
        ident = element.get("id")
        assert element.get("aria-labelledby") == f"{ident}-title {ident}-desc"
        assert element.find("title").text and element.find("desc").text
        assert element.get("viewBox").startswith("0 0 ") and element.get("width") is None
    assert "css/stats.css" in html
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]


def test_staff_see_anyones_page_without_games_in_play_and_others_get_404(
    client, make_user, settings
):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann, bob = make_user("ann"), make_user("bob")
    admin = make_user("boss", is_staff=True)
    table = _solo_table(ann)
    _solo_round(table, ann, 10)
    _solo_game_ended(table, ann)
    _solo_round(table, ann, 10)  # the next game: in play

    client.force_login(bob)
    assert client.get(reverse("stats_of", args=["ann"])).status_code == 404
    assert client.get(reverse("stats_of", args=["nobody"])).status_code == 404
    own = client.get(reverse("stats_of", args=["bob"]))
    assert own.status_code == 302 and own["Location"] == reverse("stats")

    client.force_login(admin)
    response = client.get(reverse("stats_of", args=["ann"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Статистика игрока ann" in html
    assert figure(html, "solo", "games") == "1"  # the game in play is left out
    finished = Decision.objects.filter(user=ann).exclude(game__status=Game.Status.PLAYING)
    assert figure(html, "solo", "decisions") == str(finished.count())
    assert client.get(reverse("stats_of", args=["nobody"])).status_code == 404

    client.force_login(ann)
    html = client.get(reverse("stats")).content.decode()
    assert figure(html, "solo", "games") == "2"  # her own page counts the game in play
    assert figure(html, "solo", "decisions") == str(Decision.objects.filter(user=ann).count())


def test_salon_shows_results_and_its_reviewed_decisions(client, make_user, settings):
    settings.GAME_INTERLUDE_SECONDS = 3600
    ann, bob = make_user("ann"), make_user("bob")
    table = tables_services.table_create(variant="salon", name="Салон", created_by=ann)
    seating.seat_take(table=table, player=ann)
    seating.seat_take(table=table, player=bob)
    moves.game_start(table=table, by=ann)
    rng = random.Random(2)
    for _ in range(400):  # a few deals of the shoe, then the table closes (the game voided)
        game = playing(table)
        if game is None or len(game.state["rounds"]) >= 3:
            break
        play_step(table, {ann.pk: ann, bob.pk: bob}, rng, game.number)
    closing.table_close(table=table)
    game = Game.objects.get(table=table)
    client.force_login(ann)
    html = client.get(reverse("stats")).content.decode()
    deals = [r for r in game.result["rounds"] if any(h["seat"] == "ann" for h in r["hands"])]
    assert figure(html, "salon", "rounds") == str(len(deals))
    assert figure(html, "salon", "net") == signed(game.result["deltas"]["ann"])
    # salon's decisions are reviewed too (games.strategy.salon): bets, draws, the bank's.
    insights_reviews.game_review(game)
    html = client.get(reverse("stats")).content.decode()
    reviewed = Decision.objects.filter(game=game, user=ann).count()
    assert reviewed > 0
    assert figure(html, "salon", "decisions") == str(reviewed)
    assert "не разбираются" not in variant_section(html, "salon")
    # The replay shows each of ann's reviewed decisions in the games' words.
    steps = client.get(reverse("game_replay_data", args=[game.pk])).json()["steps"]
    labels = [step["decision"]["label"] for step in steps if step.get("decision")]
    assert len(labels) == reviewed
    assert all(re.fullmatch(r"(ставка на|банк:)? ?\d+ очк(о|а|ов)", label) for label in labels)


# --- the skill rating and the leaderboard ------------------------------------------------------


def _decisions(user: Any, game: Game, losses: list[float], start: int = 1000) -> None:
    """Stored decisions with the given losses (the review's rows, written directly)."""
    Decision.objects.bulk_create(
        Decision(
            game=game,
            user=user,
            variant=game.variant,
            seat=user.username,
            number=start + i,
            round=1,
            situation="total15",
            options=[{"action": "hit", "value": 0.0}, {"action": "stand", "value": -loss}],
            chosen={"action": "stand"},
            best={"action": "hit"},
            loss=loss,
        )
        for i, loss in enumerate(losses)
    )


@pytest.fixture
def solo_games(make_user, settings):
    """A finished and an in-play solo game for each of a few players, no decisions yet."""
    settings.GAME_INTERLUDE_SECONDS = 3600
    made = {}
    for name in ("ann", "bob", "cid", "dan", "eve"):
        user = make_user(name)
        table = _solo_table(user)
        finished = _solo_game_ended(table, user)
        made[name] = (user, finished, playing(table))
    Decision.objects.all().delete()
    return made


def test_a_rating_is_the_mean_loss_per_100_decisions_with_a_95_percent_interval(solo_games):
    ann, finished, in_play = solo_games["ann"]
    rng = random.Random(11)
    losses = [0.0] * 40 + [round(rng.uniform(0, 30), 4) for _ in range(35)]
    _decisions(ann, finished, losses)
    _decisions(ann, in_play, [50.0] * 10)  # a game in play: not counted
    count, skill = player_skills(ann)["solo"]
    mean, deviation = statistics.mean(losses), statistics.stdev(losses)
    margin = 1.96 * deviation / math.sqrt(len(losses))
    assert count == skill.decisions == 75
    assert skill.lost_per_100 == pytest.approx(100 * mean)
    assert skill.high == pytest.approx(100 * (mean + margin))
    assert skill.low == pytest.approx(100 * max(0.0, mean - margin))
    assert skill.margin == pytest.approx(100 * margin)


def test_bots_are_rated_apart_from_people(solo_games):
    ann, ann_game, _ = solo_games["ann"]
    bob, bob_game, _ = solo_games["bob"]
    bob.bot_owner = ann  # bob is made a bot account: the boards split by the account kind
    bob.save(update_fields=["bot_owner"])
    _decisions(ann, ann_game, [0.5] * MIN_DECISIONS)
    _decisions(bob, bob_game, [0.1] * MIN_DECISIONS)
    assert [row["username"] for row in leaderboard("solo")] == ["ann"]
    assert [row["username"] for row in leaderboard("solo", bots=True)] == ["bob"]


def test_no_rating_below_the_threshold(solo_games):
    ann, finished, _ = solo_games["ann"]
    _decisions(ann, finished, [0.5] * (MIN_DECISIONS - 1))
    assert player_skills(ann)["solo"] == (MIN_DECISIONS - 1, None)
    assert skill_of(MIN_DECISIONS - 1, 0.1, 0.2) is None
    assert skill_of(MIN_DECISIONS, 0.1, 0.2) is not None


def test_the_leaderboard_ranks_by_the_upper_end_so_a_small_lucky_sample_does_not_win(
    solo_games,
):
    (ann, ann_game, _), (bob, bob_game, _) = solo_games["ann"], solo_games["bob"]
    (cid, cid_game, _), (dan, _, dan_playing) = solo_games["cid"], solo_games["dan"]
    eve, eve_game, _ = solo_games["eve"]
    # ann: a lower mean, but few decisions and a wide spread.
    ann_losses = [0.0] * 55 + [12.0] * 5
    # bob: a higher mean, over many decisions with a small spread: surer, so first.
    bob_losses = [1.2] * 300 + [1.0] * 300
    # cid: perfect, but one decision short of the threshold.
    cid_losses = [0.0] * (MIN_DECISIONS - 1)
    # dan: enough decisions, all in a game still in play.
    dan_losses = [0.0] * 80
    # eve: many decisions, often costly.
    eve_losses = [5.0] * 100 + [0.0] * 100
    _decisions(ann, ann_game, ann_losses)
    _decisions(bob, bob_game, bob_losses)
    _decisions(cid, cid_game, cid_losses)
    _decisions(dan, dan_playing, dan_losses)
    _decisions(eve, eve_game, eve_losses)

    def upper(losses: list[float]) -> float:
        return statistics.mean(losses) + 1.96 * statistics.stdev(losses) / math.sqrt(len(losses))

    assert statistics.mean(ann_losses) < statistics.mean(bob_losses)
    assert upper(bob_losses) < upper(ann_losses) < upper(eve_losses)
    board = leaderboard("solo")
    assert [row["username"] for row in board] == ["bob", "ann", "eve"]
    assert [row["place"] for row in board] == [1, 2, 3]
    assert board[0]["skill"].high == pytest.approx(100 * upper(bob_losses))
    assert leaderboard("solo", size=2)[-1]["username"] == "ann"
    assert leaderboard("blackjack") == []


def test_the_lobby_shows_each_rated_variants_leaderboard_with_one_query_each(client, solo_games):
    ann, ann_game, _ = solo_games["ann"]
    bob, bob_game, _ = solo_games["bob"]
    _decisions(ann, ann_game, [0.25] * 60 + [1.0] * 40)
    _decisions(bob, bob_game, [0.0] * 30 + [0.5] * 30)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("lobby"))
    assert response.status_code == 200
    on_decisions = [q["sql"] for q in queries.captured_queries if "tables_decision" in q["sql"]]
    assert len(on_decisions) == len(RATED) == 5
    html = response.content.decode()
    assert "Рейтинг мастерства" in html and "по верхней границе" in html
    board = re.search(r'<div class="board" data-variant="solo">.*?</div>', html, re.S).group(0)
    assert re.findall(r'data-player="([^"]+)"', board) == ["bob", "ann"]
    bob_skill = player_skills(bob)["solo"][1]
    assert f"{ru(round(bob_skill.lost_per_100, 2))}</span>" in board
    assert f"± {ru(round(bob_skill.margin, 2))}" in board
    classic = re.search(r'<div class="board" data-variant="classic">.*?</div>', html, re.S)
    assert f"Пока ни у кого нет {MIN_DECISIONS} решений" in classic.group(0)


def test_the_statistics_page_shows_the_rating_once_there_are_enough_decisions(client, solo_games):
    ann, finished, _ = solo_games["ann"]
    losses = [0.0] * 50 + [2.0] * 10
    _decisions(ann, finished, losses)
    client.force_login(ann)
    html = client.get(reverse("stats")).content.decode()
    skill = player_skills(ann)["solo"][1]
    text = figure(html, "solo", "skill")
    assert f"<strong>{ru(round(skill.lost_per_100, 2))} ± {ru(round(skill.margin, 2))}" in text
    bars = chart(html, "chart-loss-solo")
    assert [t.text for t in bars.iter("text") if t.get("class") == "chart-label"] == [
        situation_label("total15")
    ]


def test_the_admins_user_list_links_each_players_statistics(client, make_user):
    make_user("ann")
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    html = client.get(reverse("admin:accounts_user_changelist")).content.decode()
    assert f'href="{reverse("stats_of", args=["ann"])}"' in html


def test_a_figure_that_rounds_to_a_whole_number_prints_bare():
    from insights.stats import number

    assert (number(1066.9999), number(2.345), number(-0.001), number(3.0)) == (
        "1067",
        "2,35",
        "0",
        "3",
    )
