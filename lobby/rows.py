"""A lobby row as one viewer sees it: the table's facts (`selectors.lobby_row`), whether
the viewer may sit there — decided by play.services.seating, the one place that knows — and its
markup (templates/lobby/lobby_row.html). The page, lobby.json and the lobby socket all
build their rows here, so a live update is the row the page would render.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from play.services.seating import HeldSeat, Sitter, TableFacts, Verdict, seat_verdict


def sitter_from(me: dict[str, Any] | None) -> Sitter | None:
    """The seating facts of a viewer's `me` (`selectors.player_lobby_state`)."""
    if me is None:
        return None
    return Sitter(
        balance=me["balance"],
        seats=tuple(HeldSeat(**seat) for seat in me["seats"]),
        is_bot=me["bot"],
    )


def verdict(row: dict[str, Any], sitter: Sitter | None, *, is_open: bool = True) -> Verdict:
    """Whether the viewer may sit at the table of `row` (a lobby row: open, unless the
    table was just closed and `is_open` is False)."""
    facts = TableFacts(
        table_id=row["id"],
        variant=row["variant"],
        is_open=is_open,
        entry_limit=row["entry_limit"],
        seats_taken=row["seats_taken"],
        seat_count=row["seat_count"],
        bots_allowed=row["bots"],
    )
    return _verdict(translation.get_language() or "", facts, sitter)


# A batch's rows are decided for every lobby socket, and most sockets of a row decide
# alike: both the verdict and the markup are remembered by what they depend on (the
# language included: the messages are in it), so a change costs each socket a lookup.
@lru_cache(maxsize=4096)
def _verdict(language: str, facts: TableFacts, sitter: Sitter | None) -> Verdict:
    return seat_verdict(facts, sitter)


# The fields of a row its markup shows (templates/lobby/lobby_row.html).
_SHOWN = (
    "id",
    "name",
    "variant",
    "variant_name",
    "seats_taken",
    "seat_count",
    "stakes",
    "entry_limit",
    "playing",
)


def row_html(row: dict[str, Any], decided: Verdict, *, closed: bool = False) -> str:
    """The row's `<tr>` in the active language."""
    shown = tuple(row[name] for name in _SHOWN)
    return _render(translation.get_language() or "", shown, decided, closed)


@lru_cache(maxsize=1024)
def _render(language: str, shown: tuple[Any, ...], decided: Verdict, closed: bool) -> str:
    with translation.override(language):
        html = render_to_string(
            "lobby/lobby_row.html",
            {"t": dict(zip(_SHOWN, shown, strict=True)), "join": decided, "closed": closed},
        )
    # The template's own escaping made it safe; stripped, it is one `<tr>` to swap in.
    return mark_safe(html.strip())


def for_viewer(
    row: dict[str, Any], sitter: Sitter | None, *, html: bool, closed: bool = False
) -> dict[str, Any]:
    """`row` with the viewer's `join` (docs/protocol.md §14) and, if asked, its `html`."""
    decided = verdict(row, sitter, is_open=not closed)
    shown = {**row, "join": decided.as_dict()}
    if html:
        shown["html"] = row_html(row, decided, closed=closed)
    return shown
