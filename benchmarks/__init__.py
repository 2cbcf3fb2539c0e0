"""`make bench`: speed figures for the rules engine, the AI and the strategy engine.

Kept outside `games/` because measuring needs a clock, which the pure engine never reads.
"""
