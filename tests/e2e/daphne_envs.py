"""The environments the browser tests' daphne runs with, by name.

A browser module names the one it needs (`DAPHNE_ENV = "one-game"`; none: "pages"). A
daphne start is seconds of the suite's time, and a process restarts daphne whenever the
next module asks for another environment: so there are few of them, each shared by every
module whose tests it suits, and the suite runs the modules of one environment back to
back in one process (tests/conftest.py). A module that needs a setting of its own says
why here.
"""

from __future__ import annotations

# Seconds between the rounds of a blackjack game in "blackjack-round-pause": long enough
# for a test to look at a settled round before the next one is dealt.
BLACKJACK_ROUND_PAUSE = 8

ENVS: dict[str, dict[str, str]] = {
    # No deadline ticker: nothing moves unless the test (or its pages) acts.
    "pages": {},
    # The ticker deals once the pages' client seeds are in, or after 5 s without them; AI
    # seats at the site's own pace; the next game after the site's own interlude.
    "ticker": {"DEADLINE_TICKER": "1", "CLIENT_SEED_SECONDS": "5"},
    # As "ticker", with quick AI seats, and no next game dealt while a test looks at one.
    "one-game": {
        "DEADLINE_TICKER": "1",
        "AI_DECISION_SECONDS": "0.2",
        "CLIENT_SEED_SECONDS": "5",
        "GAME_INTERLUDE_SECONDS": "120",
    },
    # Game after game with hardly a wait (seeds, interludes, AI seats), and a classic pause
    # between rounds long enough to look at a settled round (its own test), short for the rest.
    "quick-rounds": {
        "DEADLINE_TICKER": "1",
        "AI_DECISION_SECONDS": "0.2",
        "CLIENT_SEED_SECONDS": "0.5",
        "GAME_INTERLUDE_SECONDS": "0.5",
        "CLASSIC_ROUND_PAUSE_SECONDS": "3",
    },
    # As "one-game", but the client-seed wait leaves a test that intercepts the page's seed
    # (to deal a chosen hand) all the time it needs.
    "seed-intercepted": {
        "DEADLINE_TICKER": "1",
        "AI_DECISION_SECONDS": "0.2",
        "CLIENT_SEED_SECONDS": "20",
        "GAME_INTERLUDE_SECONDS": "120",
    },
    # Blackjack's pause between rounds, to be seen (tests/e2e/test_table_blackjack_settled.py).
    "blackjack-round-pause": {
        "DEADLINE_TICKER": "1",
        "AI_DECISION_SECONDS": "0.2",
        "CLIENT_SEED_SECONDS": "3",
        "GAME_INTERLUDE_SECONDS": "120",
        "BLACKJACK_ROUND_PAUSE_SECONDS": str(BLACKJACK_ROUND_PAUSE),
    },
}

DEFAULT = "pages"


def daphne_env_name(module: object) -> str:
    """The name of the environment a browser test module asks for."""
    name: str = getattr(module, "DAPHNE_ENV", DEFAULT)
    if name not in ENVS:
        raise LookupError(f"{module!r} asks for an unknown daphne environment {name!r}")
    return name
