"""Chip amounts and other whole numbers, written one way in every page (issue 20): the
active language's grouping with a no-break space in Russian («10 000»; "10,000" in
English), a true minus «−» and, for a change of balance, a plus: «+25», «−50».

    {% load numbers %}{{ wallet.balance|number }} · {{ entry.amount|signed }}

The table page's scripts format the same way (formatNumber/formatSigned in
static/js/table/dom.js)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.formats import number_format

register = template.Library()

MINUS = "\u2212"
NBSP = "\u00a0"


def _whole(value: Any) -> int | None:
    try:
        return round(float(value))
    except (TypeError, ValueError):
        return None


@register.filter
def number(value: Any) -> str:
    """«10 000», "10,000"; a true minus. Anything not a number is shown as it is."""
    whole = _whole(value)
    if whole is None:
        return "" if value is None else str(value)
    text = number_format(abs(whole), 0, use_l10n=True, force_grouping=True)
    text = text.replace(" ", NBSP)  # a thousands group never breaks across lines
    return f"{MINUS}{text}" if whole < 0 else text


@register.filter
def signed(value: Any) -> str:
    """«+25», «−50», «0»: a change of an amount."""
    whole = _whole(value)
    if whole is None:
        return "" if value is None else str(value)
    text = number(abs(whole))
    if whole > 0:
        return f"+{text}"
    return f"{MINUS}{text}" if whole < 0 else text
