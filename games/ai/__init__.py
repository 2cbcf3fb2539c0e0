"""AI seats: one decision from what a seat may see (each variant's `docs/rules/` file, "AI seats").

The only entry point is `choose_action(variant, level, view, legal)`. It is given the
seat's view (`engine.view(state, seat)` for the seat on turn) and that seat's legal
actions (`engine.legal_actions(state)["actions"]`), and nothing else: never the state,
the stock, a hole card or another seat's private cards. So a decision cannot depend on
anything hidden — the tests build states that differ only in hidden cards and check that
the views, and so the decisions, are equal.

Levels per variant (`LEVELS`), as the rules documents state them:

* ``blackjack``: ``easy`` hits below 17; ``medium`` plays the common 4–8 deck, S17, DAS
  basic-strategy chart (a fixed published chart, `games.ai.charts`); ``hard`` plays the
  chart computed from this variant's rules (`games.strategy.blackjack`).
* ``classic``: ``easy`` hits below 17; ``medium`` a fixed hit/stand chart
  (`games.ai.charts`); ``hard`` the computed points-maximising chart
  (`games.strategy.classic`).
* ``salon``: the rules give one AI for each role: ``ponter`` (bets the table minimum,
  stands on 16 or more) and ``banker`` (draws while below 17). The bank rotates, so a
  seat plays whichever role the deal gives it, read from the view: both level names
  give the same play, and either may be used for a salon seat.
* ``banker36``: ``easy`` bets the smallest offer and draws below 17; ``hard`` draws by the
  exact optimum for its cards and bets the largest offer when its first card's expected
  value is positive (`games.strategy.banker36`). The banker has no decisions.
* ``solo``: the rules give no AI (the computer banker is automatic); ``player`` is a
  plain player for simulations: bets 25 coins (the smallest quick button, or the most
  allowed when that is less), draws below 17, then asks for the next round.

The decision is returned as an action for `engine.apply`:
``{"seat": ..., "action": ...}`` plus ``"amount"`` for a bet and ``"position"`` for a cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from games.ai import banker36, blackjack, classic, salon, solo

__all__ = ["AIS", "LEVELS", "AISeat", "Action", "View", "choose_action", "prepare"]

View = Mapping[str, Any]
Action = dict[str, Any]


class AISeat(Protocol):
    """One variant's AI levels (a module of `games.ai`); mypy checks each one in `AIS`."""

    LEVELS: tuple[str, ...]
    """The level names, as the variant's rules document states them."""

    def prepare(self, level: str) -> None:
        """Compute what `level` needs up front (see `games.ai.prepare`); may do nothing."""
        ...

    def choose(
        self, level: str, seat: str, view: View, legal: Sequence[Mapping[str, Any]]
    ) -> Action:
        """The decision of `seat` (on turn) at `level`, from its view and legal actions."""
        ...


def _registry(**ais: AISeat) -> Mapping[str, AISeat]:
    # Keyword arguments, so that mypy names the member that does not fit (as
    # `games.variants` does for the variants).
    return dict(ais)


AIS: Mapping[str, AISeat] = _registry(
    blackjack=blackjack, classic=classic, salon=salon, banker36=banker36, solo=solo
)

LEVELS: dict[str, tuple[str, ...]] = {key: ai.LEVELS for key, ai in AIS.items()}


def _check_level(variant: str, level: str) -> None:
    levels = LEVELS.get(variant)
    if levels is None:
        raise ValueError(f"no AI for variant {variant!r}; AI variants: {', '.join(sorted(LEVELS))}")
    if level not in levels:
        raise ValueError(
            f"{level!r} is not a {variant} AI level; the levels are: {', '.join(levels)}"
        )


def prepare(variant: str, level: str) -> None:
    """Compute whatever the level needs up front (the strategy tables): once per process.

    Optional: `choose_action` computes it on first use. A simulation calls it before
    starting its worker processes so that they inherit the tables instead of computing
    them again.
    """
    _check_level(variant, level)
    AIS[variant].prepare(level)


def choose_action(
    variant: str, level: str, view: View, legal: Sequence[Mapping[str, Any]]
) -> Action:
    """The AI's action for the seat on turn, from that seat's view and legal actions.

    `view` is `engine.view(state, seat)` for the seat on turn (its ``"turn"`` names the
    seat) and `legal` is `engine.legal_actions(state)["actions"]`. Raises ValueError for
    an unknown variant or level, or when the view's seat has nothing to do.
    """
    _check_level(variant, level)
    seat = view.get("turn")
    if seat is None or not legal:
        raise ValueError("the AI is asked only for the seat on turn, with its legal actions")
    return AIS[variant].choose(level, seat, view, legal)
