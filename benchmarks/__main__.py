"""Print the benchmark figures: `python -m benchmarks [--quick]`."""

from __future__ import annotations

import argparse
import sys

from benchmarks.engine import engine_figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    args = parser.parse_args(argv)
    print(engine_figures(quick=args.quick))
    try:
        from benchmarks.ai import ai_figures
    except ImportError:  # the AI figures arrive with the AI package
        return 0
    print()
    print(ai_figures(quick=args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
