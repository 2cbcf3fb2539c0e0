"""AI and strategy figures: simulation speed and the time to compute the strategy."""

from __future__ import annotations

import time

from games.simulation import bench_figures


def ai_figures(*, quick: bool) -> str:
    rows = bench_figures(quick, clock=time.process_time)
    width = max(len(label) for label, _ in rows)
    lines = ["AI seats and strategy engine (CPU seconds of this process; medians)"]
    lines += [f"{label:<{width}}  {value}" for label, value in rows]
    return "\n".join(lines)
