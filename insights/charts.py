"""Server-side SVG charts for the statistics page: no script, no chart library, no CDN.

The markup is what the strict Content-Security-Policy (config/settings.py) lets through
inline in a page: geometry in attributes, no `style` attribute, no <style> element, no
event handler. Colours, strokes and type sizes come from classes in static/css/stats.css.
Each chart scales with its viewBox (CSS gives it the width of its box and the height
follows), is an image to assistive technology (role="img", named by its <title> and
described by its <desc>), and each point or bar carries its own <title>, the tooltip a
pointer shows.

Every piece of text is escaped here: labels come from the database (a username never
does, but a situation's label is built from its code).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# The line chart's frame in viewBox units: room for the value labels on the left.
# 320 wide: at a phone's width the chart is drawn at about 0.9 of its size, so its text
# stays readable (static/css/stats.css caps the width on wider screens).
LINE_WIDTH, LINE_HEIGHT = 320, 200
LINE_LEFT, LINE_RIGHT, LINE_TOP, LINE_BOTTOM = 52, 8, 12, 30
TICK_GAP = 14  # the least distance between two value labels: a closer one is left out
# The bar chart: one row per bar, its label on a line of its own above the bar, so that
# long labels («мягкие 18 против четвёрки») stay readable at a phone's width.
BAR_WIDTH, BAR_ROW, BAR_TOP = 320, 46, 6
BAR_VALUE_ROOM = 140  # the bar's longest length leaves room for its value text


@dataclass(frozen=True)
class Point:
    """One point of a line chart: its value and what its tooltip says."""

    value: float
    note: str
    sign: int = 0  # the step's direction (+1 a gain, −1 a loss): its marker's colour
    # A time inside the note (ISO, and the note's server rendering of it), which the page
    # rewrites in the browser's time zone (static/js/times.js).
    when: str = ""
    when_text: str = ""


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str  # the value as printed next to the bar
    note: str  # the tooltip


def _when(point: Point) -> str:
    """The attributes by which the page shows a note's time in the browser's zone."""
    if not point.when or not point.when_text:
        return ""
    return f' data-when="{escape(point.when)}" data-when-text="{escape(point.when_text)}"'


def _n(value: float) -> str:
    """A coordinate: short, with no locale in it."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _frame(ident: str, kind: str, width: float, height: float, title: str, desc: str) -> str:
    return (
        f'<svg class="chart chart-{kind}" id="{escape(ident)}" viewBox="0 0 {_n(width)} '
        f'{_n(height)}" role="img" aria-labelledby="{escape(ident)}-title {escape(ident)}-desc"'
        f' data-chart="{kind}">'
        f'<title id="{escape(ident)}-title">{escape(title)}</title>'
        f'<desc id="{escape(ident)}-desc">{escape(desc)}</desc>'
    )


def line_chart(
    points: Sequence[Point],
    *,
    ident: str,
    title: str,
    desc: str,
    start_label: str,
    end_label: str,
    value_text: dict[float, str],
) -> SafeString:
    """A running total: a line from 0 (before the first point) through every point, a
    marker at each point, a line at zero and the extreme values on the left.

    `value_text` prints the axis values (the caller formats numbers in the page's
    language); its keys are the values to mark: the lowest, 0 and the highest."""
    values = [0.0] + [p.value for p in points]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    span = high - low
    low, high = low - span * 0.06, high + span * 0.06
    left, right = LINE_LEFT, LINE_WIDTH - LINE_RIGHT
    top, bottom = LINE_TOP, LINE_HEIGHT - LINE_BOTTOM
    steps = max(1, len(points))

    def x(i: int) -> float:
        return left + (right - left) * i / steps

    def y(value: float) -> float:
        return bottom - (bottom - top) * (value - low) / (high - low)

    parts = [_frame(ident, "line", LINE_WIDTH, LINE_HEIGHT, title, desc)]
    parts.append('<g class="chart-grid" aria-hidden="true">')
    labelled: list[float] = []
    # Zero first: an extreme too close to it loses its label (not its rule).
    for value, text in sorted(value_text.items(), key=lambda item: (item[0] != 0, item[0])):
        kind = "chart-zero" if value == 0 else "chart-rule"
        parts.append(
            f'<line class="{kind}" x1="{_n(left)}" x2="{_n(right)}" '
            f'y1="{_n(y(value))}" y2="{_n(y(value))}"/>'
        )
        if all(abs(y(value) - y(other)) >= TICK_GAP for other in labelled):
            labelled.append(value)
            parts.append(
                f'<text class="chart-tick" x="{_n(left - 6)}" y="{_n(y(value) + 4)}" '
                f'text-anchor="end">{escape(text)}</text>'
            )
    parts.append(
        f'<text class="chart-tick" x="{_n(x(0))}" y="{_n(LINE_HEIGHT - 8)}" '
        f'text-anchor="start">{escape(start_label)}</text>'
        f'<text class="chart-tick" x="{_n(right)}" y="{_n(LINE_HEIGHT - 8)}" '
        f'text-anchor="end">{escape(end_label)}</text>'
        "</g>"
    )
    line = " ".join(f"{_n(x(i))},{_n(y(v))}" for i, v in enumerate(values))
    parts.append(f'<polyline class="chart-path" points="{line}"/>')
    radius = 4 if len(points) <= 60 else 2.5
    parts.append('<g class="chart-points">')
    for i, point in enumerate(points, start=1):
        tone = "plus" if point.sign > 0 else "minus" if point.sign < 0 else "even"
        parts.append(
            f'<circle class="chart-point {tone}" cx="{_n(x(i))}" cy="{_n(y(point.value))}" '
            f'r="{_n(radius)}"><title{_when(point)}>{escape(point.note)}</title></circle>'
        )
    parts.append("</g></svg>")
    return mark_safe("".join(parts))  # every text above is escaped


def bar_chart(bars: Sequence[Bar], *, ident: str, title: str, desc: str) -> SafeString:
    """Horizontal bars, longest first as given, each with its label above it and its
    value printed after it; lengths are proportional to the values (the longest spans
    the chart less room for its value)."""
    height = BAR_TOP * 2 + BAR_ROW * len(bars)
    longest = max((bar.value for bar in bars), default=0.0) or 1.0
    room = BAR_WIDTH - BAR_VALUE_ROOM
    parts = [_frame(ident, "bars", BAR_WIDTH, height, title, desc)]
    for i, bar in enumerate(bars):
        top = BAR_TOP + i * BAR_ROW
        length = max(2.0, room * bar.value / longest)
        parts.append(
            f'<g class="chart-bar"><title>{escape(bar.note)}</title>'
            f'<text class="chart-label" x="0" y="{_n(top + 15)}">{escape(bar.label)}</text>'
            f'<rect class="chart-bar-rect" x="0" y="{_n(top + 21)}" width="{_n(length)}" '
            f'height="16" rx="3"/>'
            f'<text class="chart-value" x="{_n(length + 6)}" y="{_n(top + 34)}">'
            f"{escape(bar.text)}</text></g>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped
