"""The rules of «Двадцать одно»: a pure engine that knows nothing of Django.

Standard library only; no global random, no clock. Randomness comes in as a seed or a
stacked deck, and every transition is `engine.apply(state, action) -> (state, events)`.
"""
