"""Each variant's `game.view` and rules-engine events (docs/protocol.md §6.1, §10, §12), one
module per variant.

A view is tagged by its `variant` key, so `View` reads any of the five. Events are not:
several variants send an event of the same `type` with other fields (`deal`, `hit`,
`stand`, `settle`, `finished`, `round_start`), so an `update`'s `events` can be read only
once the table's variant is known: `EVENTS_BY_VARIANT[variant]` is that variant's events
and the platform's own (`contract.events`)."""

from __future__ import annotations

from typing import Any

from contract.events import PlatformEvent
from contract.variants.banker36 import Banker36Event, Banker36View
from contract.variants.blackjack import BlackjackEvent, BlackjackView
from contract.variants.classic import ClassicEvent, ClassicView
from contract.variants.salon import SalonEvent, SalonView
from contract.variants.solo import SoloEvent, SoloView

__all__ = [
    "EVENTS_BY_VARIANT",
    "VIEWS_BY_VARIANT",
    "Banker36Event",
    "Banker36View",
    "BlackjackEvent",
    "BlackjackView",
    "ClassicEvent",
    "ClassicView",
    "SalonEvent",
    "SalonView",
    "SoloEvent",
    "SoloView",
    "View",
]

View = ClassicView | SalonView | SoloView | Banker36View | BlackjackView

VIEWS_BY_VARIANT: dict[str, type[Any]] = {
    "classic": ClassicView,
    "salon": SalonView,
    "solo": SoloView,
    "banker36": Banker36View,
    "blackjack": BlackjackView,
}

# The values are unions (a type to read with, `contract.reading.read`), not classes.
EVENTS_BY_VARIANT: dict[str, Any] = {
    "classic": ClassicEvent | PlatformEvent,
    "salon": SalonEvent | PlatformEvent,
    "solo": SoloEvent | PlatformEvent,
    "banker36": Banker36Event | PlatformEvent,
    "blackjack": BlackjackEvent | PlatformEvent,
}
