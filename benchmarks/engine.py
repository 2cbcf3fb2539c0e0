"""Engine speed: rounds per second through the public `apply` API, per variant, next to a
minimal loop that shuffles, deals and totals the very same cards without the engine.

For `blackjack` (the variant with a target) the baseline is a whole game loop written
without the engine — same seed, same shoe rule, same easy player, same dealer — and a test
(tests/games/test_bench.py) proves it deals exactly the engine's cards. For the others it
replays the engine's cards from its results.

The automatic players are the variants' simplest AI levels, so every decision also pays
for the seat's view, as a live table does. The baseline replays the engine's own cards:
the same number of shuffles through the same shuffle function, then every hand's cards
dealt one at a time with a running total, and the hand compared with the dealer's or
banker's. Both run in this process, one after the other, five times; medians are printed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from games import engine
from games.cards import is_natural52, shoe, total36, total52
from games.shuffle import shuffled

DECK_OF = {
    "classic": ("standard52", 1),
    "salon": ("standard52", 2),
    "solo": ("russian36", 1),
    "banker36": ("russian36", 1),
    "blackjack": ("standard52", 6),
}
TARGET_RATIO = {"blackjack": 5.0}


def _game(variant: str, units: int, seed: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A game long enough for about `units` settled rounds, with its seats."""
    if variant == "blackjack":
        return {"rounds": units}, [{"id": "p0"}]
    if variant == "classic":
        return {"rounds": 10}, [{"id": f"p{i}"} for i in range(3)]
    if variant == "salon":
        return {"deals": units, "min_bet": 10, "max_bet": 100}, [
            {"id": f"p{i}", "chips": 100_000} for i in range(4)
        ]
    if variant == "banker36":
        return {"banks": max(units // 3, 1), "stake": 10, "entry_limit": 100}, [
            {"id": f"p{i}", "chips": 100_000} for i in range(4)
        ]
    return {"start_coins": 10**9, "start_bank": 10**9}, [{"id": "p0"}]


def _player(variant: str) -> Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]:
    from games.ai import choose_action

    level = {
        "blackjack": "easy",
        "classic": "easy",
        "salon": None,
        "banker36": "easy",
        "solo": None,
    }[variant]

    def play(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        if variant == "salon":
            ai = "banker" if view.get("banker") == view.get("seat") else "ponter"
            return choose_action(variant, ai, view, legal)
        if variant == "solo":
            return _solo(view, legal)
        return choose_action(variant, level, view, legal)

    return play


def _solo(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    names = {entry["action"]: entry for entry in legal}
    if "bet" in names:
        return {"action": "bet", "amount": names["bet"]["min"]}
    if "next_round" in names:
        return {"action": "next_round"}
    total = view["hand"]["total"]
    return {"action": "hit" if "hit" in names and total < 17 else "stand"}


def play_engine(variant: str, units: int, seed: str) -> tuple[int, list[dict[str, Any]]]:
    """Play games (a `classic` match is only 10 rounds) until `units` rounds have settled;
    return the count and the finished states, for the baseline to deal the same cards."""
    player = _player(variant)
    rounds = 0
    states: list[dict[str, Any]] = []
    while rounds < units:
        options, seats = _game(variant, units - rounds, seed)
        first = seats[0]["id"] if variant in ("salon", "banker36") else None
        game_seed = f"{seed}-{len(states)}"
        state, _ = engine.new_game(
            variant, seats=seats, options=options, seed=game_seed, first_banker=first
        )
        while not state["finished"] and rounds + len(state["rounds"]) < units:
            turn = engine.legal_actions(state)
            assert turn is not None
            seat = turn["seat"]
            action = player(engine.view(state, seat), turn["actions"])
            action["seat"] = seat
            state, _ = engine.apply(state, action)
        rounds += len(state["rounds"])
        states.append(state)
    return rounds, states


def baseline(variant: str, states: list[dict[str, Any]], seed: str) -> int:
    """Shuffle, deal and total the engine's cards without the engine."""
    kind, copies = DECK_OF[variant]
    full = shoe(kind, copies)
    totals = total52 if kind == "standard52" else total36
    checksum = 0
    for index, state in enumerate(states):
        for number in range(state["shoe"]["shuffles"]):
            shuffled(full, f"{seed}-{index}", number)
        for unit in state["rounds"]:
            house = 0
            for hand in reversed(unit["hands"]):  # the dealer/banker is listed last
                cards = hand["cards"]
                running = 0
                for count in range(1, len(cards) + 1):
                    value = totals(cards[:count])
                    running = value[0] if isinstance(value, tuple) else value
                if hand.get("seat") == "dealer" or hand.get("role") == "banker":
                    house = running
                else:
                    checksum += (running > house) - (running < house)
    return checksum


def blackjack_loop(rounds: int, seed: str) -> list[list[str]]:
    """The same blackjack game without the engine: one seat playing the easy level (hit
    below 17), the dealer standing on 17, a new six-deck shoe under 78 cards, all from
    the seed's shuffles. Returns each round's cards, which must equal the engine's."""
    full = shoe("standard52", 6)
    stock: list[str] = []
    position = 0
    shuffles = 0
    played: list[list[str]] = []
    for _ in range(rounds):
        if len(stock) - position < 78:
            stock, position = shuffled(full, seed, shuffles), 0
            shuffles += 1
        player = [stock[position], stock[position + 2]]
        dealer = [stock[position + 1], stock[position + 3]]
        position += 4
        natural = is_natural52(player)
        total = total52(player)[0]
        while not natural and total < 17:
            player.append(stock[position])
            position += 1
            total = total52(player)[0]
        if total <= 21 and not natural:
            while total52(dealer)[0] < 17:
                dealer.append(stock[position])
                position += 1
        played.append(player + dealer)
    return played


def engine_figures(*, quick: bool) -> str:
    units = 200 if quick else 2_000
    runs = 3 if quick else 5
    lines = [
        "Rules engine: settled rounds per second, one process "
        f"(median of {runs} runs of ~{units} rounds; baseline = the same cards shuffled, "
        "dealt and totalled without the engine)",
        f"{'variant':<10} {'engine r/s':>12} {'baseline r/s':>14} {'ratio':>7}  target",
    ]
    for variant in engine.VARIANT_KEYS:
        engine_rates, base_rates = [], []
        for run in range(runs):
            seed = f"bench-{variant}-{run}"
            started = time.perf_counter()
            rounds, states = play_engine(variant, units, seed)
            engine_rates.append(rounds / (time.perf_counter() - started))
            started = time.perf_counter()
            if variant == "blackjack":  # a whole game loop, checked to deal the same cards
                blackjack_loop(rounds, f"{seed}-0")
            else:
                baseline(variant, states, seed)
            base_rates.append(rounds / (time.perf_counter() - started))
        fast, base = statistics.median(engine_rates), statistics.median(base_rates)
        ratio = base / fast
        target = TARGET_RATIO.get(variant)
        verdict = (
            "" if target is None else f"≤ {target:g}×: {'met' if ratio <= target else 'MISSED'}"
        )
        lines.append(f"{variant:<10} {fast:>12,.0f} {base:>14,.0f} {ratio:>6.2f}×  {verdict}")
    return "\n".join(lines)
