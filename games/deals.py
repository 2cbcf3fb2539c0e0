"""Whether a deal is in play, and whether a transition ended one: what the table chat's
"no coaching from the rail" rule turns on (docs/protocol.md §17).

A deal (раздача) is one round of a variant: in `classic` and `blackjack` a round against
the dealer, in `salon` a deal of the bank against the ponters, in `banker36` a duel
between the bank and one player, in `solo` a round against the computer banker. Every
variant settles a deal with a `settle` event and ends its game with `finished`; so the
end of a deal is read from a transition's events alone, without the state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

State = dict[str, Any]

# The events that end a deal: the deal settled, or the game (and with it the deal) over.
DEAL_ENDING_EVENTS = frozenset({"settle", "finished"})


def _classic_or_blackjack(state: State) -> bool:
    # The next round is dealt in the transition that settles one: a seat (or a hand) is
    # on turn whenever the game is not over.
    return state["turn"] is not None


def _salon(state: State) -> bool:
    # The cut comes before any card of the deal; bets are made on the card each ponter
    # has been dealt.
    return state["phase"] in ("bet", "ponters", "banker")


def _banker36(state: State) -> bool:
    # A circle is a run of duels, each a deal; between banks there is no circle.
    return state["circle"] is not None


def _solo(state: State) -> bool:
    # "over": the round is settled and the player has not asked for the next one.
    return state["phase"] in ("bet", "draw")


_IN_PLAY: Mapping[str, Callable[[State], bool]] = {
    "classic": _classic_or_blackjack,
    "blackjack": _classic_or_blackjack,
    "salon": _salon,
    "banker36": _banker36,
    "solo": _solo,
}


def deal_in_play(state: State) -> bool:
    """True while cards of a deal are on the table and it is not settled."""
    if state["finished"]:
        return False
    return _IN_PLAY[state["variant"]](state)


def ends_a_deal(events: Iterable[Mapping[str, Any]]) -> bool:
    """True when a transition with these events settled a deal or ended the game."""
    return any(event.get("type") in DEAL_ENDING_EVENTS for event in events)
