"""Duplicate heats of `classic` and `solo` through live play's services (docs/tournaments.md,
«Duplicate heats»): every entrant is dealt the same cards at a table of their own, from the
seed the event committed to; the heat is scored in tournament chips, the event ranked by
them, and once it is over every record verifies against the revealed seed and two heats
can be compared round by round.

In-process and inside the test's transaction: the signal that ends a heat runs on commit,
so the plays run under `django_capture_on_commit_callbacks(execute=True)`."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts.services import escrow_account
from games import fairness
from play.models import Game
from play.services import moves, seating
from play.services.errors import PlayError
from play.services.records import RecordSealed, public_record
from tests.play.live_helpers import play_game_randomly, playing, sweep_after
from tests.tournaments.helpers import make_tournament
from tests.verifier import verified
from tournaments.models import Entry, Tournament
from tournaments.services import (
    duplicate_context_table,
    entry_register,
    tournament_finish,
    tournament_registration_open,
    tournament_start,
)

pytestmark = pytest.mark.django_db

# Each variant's heat: the rounds it is set to, and the engine options its game gets.
HEATS = {
    "classic": (5, {"rounds": 5, "one_player": True}),
    "solo": (3, {"start_coins": 1000, "start_bank": 300, "rounds": 3}),
}


def a_heat(make_user: Any, variant: str, players: int = 2) -> tuple[Tournament, list[Any]]:
    rounds, _options = HEATS[variant]
    tournament = tournament_registration_open(
        tournament=make_tournament(
            variant=variant, rounds=rounds, buy_in=100, starts_at=timezone.now()
        )
    )
    users = [make_user(f"{variant}{i}") for i in range(players)]
    for user in users:
        entry_register(tournament_id=tournament.pk, player=user, now=timezone.now())
    return tournament_start(tournament=tournament), users


def heat_game(entry: Entry) -> Game:
    return Game.objects.get(table=entry.table)


def entries_of(tournament: Tournament) -> list[Entry]:
    return list(tournament.entries.select_related("table", "player").order_by("pk"))


def opening(game: Game) -> tuple[str, ...]:
    """The cards dealt before the entrant's first decision: their own and the house's."""
    state = game.state
    if game.variant == "classic":
        seat = game.players[0]["id"]
        return (*state["hands"][seat], *state["dealer"])
    return (*state["hand"], *state["banker_cards"])


def play_every_heat(tournament: Tournament, capture: Any) -> None:
    with capture(execute=True):
        for index, entry in enumerate(entries_of(tournament)):
            user = entry.player
            play_game_randomly(entry.table, {user.pk: user}, random.Random(40 + index))


@pytest.mark.parametrize("variant", sorted(HEATS))
def test_every_entrant_is_dealt_the_same_cards_from_the_committed_seed(make_user, variant):
    tournament, _users = a_heat(make_user, variant, players=3)
    assert tournament.status == Tournament.Status.RUNNING
    games = [heat_game(entry) for entry in entries_of(tournament)]
    assert len({g.table_id for g in games}) == 3
    context = {"table": duplicate_context_table(tournament), "shoe": 1, "variant": variant}
    assert {g.seed for g in games} == {fairness.derive(tournament.server_seed, context, [])}
    assert all(g.context == context and g.client_seeds == [] and g.sealed for g in games)
    assert all(g.options == HEATS[variant][1] for g in games)
    # The same first cards at every table, each entrant alone at theirs.
    assert len({opening(g) for g in games}) == 1
    assert all(len(g.players) == 1 for g in games)


@pytest.mark.parametrize("variant", sorted(HEATS))
def test_the_heats_are_scored_ranked_and_verify_against_the_revealed_seed(
    make_user, variant, django_capture_on_commit_callbacks
):
    tournament, _users = a_heat(make_user, variant, players=2)
    first, second = entries_of(tournament)
    with django_capture_on_commit_callbacks(execute=True):
        game = play_game_randomly(first.table, {first.player.pk: first.player}, random.Random(7))
    # Over at one table, still dealt at the other: sealed.
    assert game.status == Game.Status.FINISHED and game.sealed
    with pytest.raises(RecordSealed):
        public_record(game)
    with django_capture_on_commit_callbacks(execute=True):
        play_game_randomly(second.table, {second.player.pk: second.player}, random.Random(8))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED  # every heat over: it ends
    ranked = list(tournament.entries.select_related("table").order_by("place", "pk"))
    for entry in ranked:
        game = heat_game(entry)
        seat = game.players[0]["id"]
        # One tournament chip to a classic point or a solo coin (the bank's delta apart).
        assert entry.stack == 1000 + game.result["deltas"][seat]
        assert entry.heat_over and not entry.no_show
        code, output = verified(public_record(game))
        assert code == 0, output
        assert public_record(game)["fairness"]["server_seed"] == tournament.server_seed
    stacks = [e.stack for e in ranked]
    assert stacks == sorted(stacks, reverse=True)
    assert ranked[0].place == 1 and ranked[1].place == (1 if stacks[0] == stacks[1] else 2)
    assert sum(e.prize for e in ranked) == 200
    assert escrow_account(tournament.escrow_code).balance == 0


@pytest.mark.parametrize("variant", sorted(HEATS))
def test_after_the_event_two_heats_are_compared_round_by_round_on_the_same_cards(
    make_user, client, variant, django_capture_on_commit_callbacks
):
    tournament, users = a_heat(make_user, variant, players=2)
    url = reverse("tournament_compare", args=[tournament.pk])
    play_every_heat(tournament, django_capture_on_commit_callbacks)
    client.force_login(users[0])
    page = client.get(url, {"a": users[0].username, "b": users[1].username}).content.decode()
    assert "Раунд 1" in page
    assert f'data-side="a">{users[0].username}' in page
    assert f'data-side="b">{users[1].username}' in page
    assert ("Банкир" if variant == "solo" else "Дилер") in page
    # Each round opens alike on both sides: the same first card at the head of each hand
    # (a side whose heat ended earlier, a solo bank broken, has no cards that round).
    firsts = [first_card(side) for side in page.split('class="compare-side"')[1:]]
    played = [(a, b) for a, b in zip(firsts[0::2], firsts[1::2], strict=True) if a and b]
    assert played and all(a == b for a, b in played)
    # The heat's own replay leads to the comparison, this heat first.
    game = Game.objects.get(table__tournament_entries__player=users[0])
    replay = client.get(reverse("game_replay", args=[game.pk])).content.decode()
    assert f"{url}?a={users[0].username}" in replay


def first_card(side: str) -> str | None:
    parts = side.split('<span class="card-text', 2)
    return parts[1].split("</span>", 1)[0] if len(parts) > 1 else None


def test_a_classic_entrant_who_stands_up_is_played_by_the_clock_to_the_matchs_end(
    make_user, django_capture_on_commit_callbacks
):
    # Removal from the match would end the heat with what it has so far; the clock plays on.
    tournament, users = a_heat(make_user, "classic", players=2)
    entry = entries_of(tournament)[0]
    with django_capture_on_commit_callbacks(execute=True):
        seating.seat_leave(table=entry.table, player=users[0])
        for _ in range(100):
            game = playing(entry.table)
            if game is None:
                break
            now = timezone.now()
            sweep_after(max(game.deadline or now, game.clock_starts_at or now))
    game = heat_game(entry)
    assert game.status == Game.Status.FINISHED and len(game.state["rounds"]) == 5
    assert all(a["action"] == "timeout" for a in game.actions)
    entry.refresh_from_db()
    assert entry.heat_over and entry.stack == 1000 + game.result["deltas"][game.players[0]["id"]]


def test_a_solo_heat_is_one_game_the_entrant_cannot_restart_or_leave(
    make_user, django_capture_on_commit_callbacks
):
    tournament, users = a_heat(make_user, "solo", players=2)
    entry = entries_of(tournament)[0]
    game = playing(entry.table)
    assert game is not None
    with pytest.raises(PlayError) as refused:
        moves.game_act(
            table=entry.table, player=users[0], action={"action": "new_game"}, version=None
        )
    assert refused.value.code == "illegal_action"
    with pytest.raises(PlayError) as refused:
        moves.solo_new_game(table=entry.table, player=users[0])
    assert refused.value.code == "illegal_action"
    with pytest.raises(PlayError) as refused:
        seating.seat_leave(table=entry.table, player=users[0])
    assert refused.value.code == "illegal_action" and "заезд" in refused.value.message
    assert playing(entry.table) == game
    # Played to its end, the table deals no second game.
    with django_capture_on_commit_callbacks(execute=True):
        play_game_randomly(entry.table, {users[0].pk: users[0]}, random.Random(3))
    with pytest.raises(PlayError) as refused:
        moves.solo_new_game(table=entry.table, player=users[0])
    assert refused.value.code == "cannot_start"


def test_a_solo_heat_left_unfinished_at_the_window_counts_its_settled_rounds(make_user):
    tournament, users = a_heat(make_user, "solo", players=2)
    entry = entries_of(tournament)[0]
    table = entry.table
    state = playing(table).state
    bet = {"action": "bet", "amount": 10}
    moves.game_act(table=table, player=users[0], action=bet, version=None)
    moves.game_act(table=table, player=users[0], action={"action": "stand"}, version=None)
    moves.game_act(table=table, player=users[0], action={"action": "next_round"}, version=None)
    moves.game_act(table=table, player=users[0], action=bet, version=None)  # still in play
    settled = playing(table).state["deltas"][state["player"]]  # the first round's result
    tournament = tournament_finish(tournament=tournament)  # the window closed
    entry.refresh_from_db()
    assert entry.heat_over and not entry.no_show and entry.stack == 1000 + settled
    absent = Entry.objects.get(tournament=tournament, player=users[1])
    assert absent.no_show and absent.stack == 1000  # nothing decided, nothing won or lost
    assert not heat_game(entry).sealed


@pytest.mark.parametrize(
    ("variant", "rounds", "refused"),
    [
        ("classic", 7, None),
        ("classic", 6, "rounds"),
        ("solo", 12, None),
        ("blackjack", 6, None),
        ("salon", 5, "format"),
        ("banker36", 5, "format"),
    ],
)
def test_admin_takes_duplicate_heats_of_the_house_variants_and_classics_match_lengths(
    variant, rounds, refused
):
    now = timezone.now()
    event = Tournament(
        name="Заезд",
        variant=variant,
        format=Tournament.Format.DUPLICATE,
        rounds=rounds,
        registration_opens_at=now,
        starts_at=now + datetime.timedelta(hours=1),
        ends_at=now + datetime.timedelta(hours=2),
    )
    if refused is None:
        event.full_clean()
        return
    with pytest.raises(ValidationError) as caught:
        event.full_clean()
    assert refused in caught.value.message_dict


def test_the_coach_gives_no_hint_nor_review_while_a_heat_is_sealed(
    make_user, client, django_capture_on_commit_callbacks
):
    tournament, _users = a_heat(make_user, "solo", players=2)
    first, _second = entries_of(tournament)
    client.force_login(first.player)
    url = reverse("coach_state", args=[first.table_id])
    silent = client.get(url).json()
    # The entrant's bet is a real choice, and an ordinary solo table values it: not here.
    assert heat_game(first).state["phase"] == "bet"
    assert silent["hint"] is None and silent["last_round"] is None
    with django_capture_on_commit_callbacks(execute=True):
        play_game_randomly(first.table, {first.player.pk: first.player}, random.Random(3))
    during = client.get(url).json()
    assert during["last_round"] is None and during["session"]["decisions"] == 0
