"""The charts' tooltips carry the time they mention, so the page shows it in the browser's
time zone (static/js/times.js) rather than the server's."""

from __future__ import annotations

from insights.charts import Point, line_chart


def _chart(points: list[Point]) -> str:
    return str(
        line_chart(
            points,
            ident="c",
            title="t",
            desc="d",
            start_label="a",
            end_label="b",
            value_text={},
        )
    )


def test_a_points_time_is_marked_for_the_browser_to_localise() -> None:
    iso = "2026-03-01T12:00:00+00:00"
    svg = _chart(
        [
            Point(
                value=5,
                note="игра №1 (01.03.2026 12:00): +5",
                when=iso,
                when_text="01.03.2026 12:00",
            )
        ]
    )
    assert f'<title data-when="{iso}" data-when-text="01.03.2026 12:00">' in svg


def test_a_point_without_a_time_has_a_plain_tooltip() -> None:
    svg = _chart([Point(value=-1, note="игра №2 (идёт): −1")])
    assert "<title>игра №2 (идёт): −1</title>" in svg
