"""What the bot plays: one decision from its seat's view (`game.view`, §12) alone.

* `classic`, `salon`, `banker36` — the strongest AI level's policy of `games.ai`, which
  reads the same view the server sends this seat (its own cards, the dealer's up-card, the
  offered bets): `classic` `hard` (the computed points-maximising chart), `banker36`
  `hard` (the exact draw/stand optimum and the first-card bet signal), `salon`'s one AI
  (each role's rule: the only strategy the rules give).
* `blackjack`, `solo` — the coach's `best` option (`GET /tables/<id>/coach.json`, the
  exact expected values for this seat's view); a `solo` bet is the best end of its range,
  which the coach lists as its two options. Where the coach values nothing (a single
  offer, `next_round`) the decision is plain: the one thing to do, or the next round.
  Where the coach is silent on a real choice (a tournament heat, where it gives no hints
  until the event ends), `games.ai`'s player for the variant decides: `blackjack` `hard`
  (the chart computed from the variant's rules), `solo` `player`.

A decision is the `action` message's fields: ``{"action": ..., "amount"?, "position"?}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games import ai

Decision = dict[str, Any]

# The strongest AI level of each variant the bot plays by `games.ai`.
AI_LEVELS = {"classic": "hard", "banker36": "hard", "salon": "ponter"}
COACHED = ("blackjack", "solo")
# Who decides a coached variant's choice the coach leaves unvalued (a tournament heat).
COACH_SILENT_LEVELS = {"blackjack": "hard", "solo": "player"}
# Never chosen by the bot: they start a game or a round over, they do not play it.
NOT_MOVES = frozenset({"restart", "new_game"})


class NoDecision(Exception):
    """The view offers this seat nothing the policy can play."""


def by_ai(variant: str, view: Mapping[str, Any]) -> Decision:
    """The strongest AI level's move for the seat on turn, from its own view."""
    chosen = ai.choose_action(variant, AI_LEVELS[variant], view, view["actions"])
    return {key: value for key, value in chosen.items() if key != "seat"}


def from_hint(hint: Mapping[str, Any] | None, actions: list[Mapping[str, Any]]) -> Decision:
    """The coach's best option for the decision at hand, or the plain move where the
    coach values none (`hint` null)."""
    offered = {entry["action"] for entry in actions}
    if hint is not None:
        best = next(option for option in hint["options"] if option["best"])
        if best["action"] in offered:
            decision: Decision = {"action": best["action"]}
            if "amount" in best:
                decision["amount"] = best["amount"]
            return decision
    playable = [entry for entry in actions if entry["action"] not in NOT_MOVES]
    if "next_round" in offered:
        return {"action": "next_round"}
    if len(playable) == 1 and set(playable[0]) == {"action"}:
        return {"action": playable[0]["action"]}
    raise NoDecision(f"the coach valued nothing of {sorted(offered)}")


def decide(
    variant: str, view: Mapping[str, Any], hint: Mapping[str, Any] | None = None
) -> Decision:
    """The move for the seat on turn (`view.turn`, with `view.actions` its offers);
    `hint` is the coach's for `blackjack` and `solo`."""
    actions = view.get("actions") or []
    if not actions:
        raise NoDecision("the view offers no action")
    if variant in COACHED:
        try:
            return from_hint(hint, actions)
        except NoDecision:
            if hint is not None:
                raise
            chosen = ai.choose_action(variant, COACH_SILENT_LEVELS[variant], view, actions)
            return {key: value for key, value in chosen.items() if key != "seat"}
    return by_ai(variant, view)
