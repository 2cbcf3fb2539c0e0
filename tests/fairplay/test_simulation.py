"""The detector measured at a small scale (issue 32, item 4): a population plays
`banker36` and `salon` through the real services; a dumping ring is flagged within 200 of its
decisions, honest pairs are not."""

from __future__ import annotations

import pytest

from fairplay.flows import chip_flow
from fairplay.leak import window_start
from fairplay.simulation import simulate

pytestmark = pytest.mark.django_db


def test_a_dumping_ring_is_flagged_and_honest_pairs_are_not():
    lines: list[str] = []
    outcome = simulate(
        honest=4, dumping=1, soft=0, sessions=3, ring_banks=24, seed="t", report=lines.append
    )
    print("\n".join(lines), outcome.summary(), sep="\n")
    (ring,) = outcome.rings
    assert ring.flagged_after is not None and ring.flagged_after <= 200, lines
    assert outcome.honest_pairs > 0
    assert outcome.honest_flagged == 0
    assert outcome.precision == 1.0
    # The pair's chip flow is on the case's evidence: their duels counted both ways. (Not
    # its sign: 48 banks of ±10 duels are too few for a dump to show in the chips — which
    # is why the detector reads the decisions' EV, not the results.)
    flow = chip_flow(ring.bank_id, ring.feeder_id, since=window_start())
    assert flow["games"] > 0 and flow["to_first"] + flow["to_second"] > 0, flow
    assert flow["net_to_first"] == flow["to_first"] - flow["to_second"]


def test_a_salon_dumping_ring_is_flagged_and_honest_pairs_are_not():
    """The same at `salon`: the feeder, a ponter at the partner's bank, bets the most on
    the hands the coach values least and draws or stands against the coach's play; the
    ring's decisions count both players' (the banker's draws, the shoes the feeder
    banks)."""
    lines: list[str] = []
    outcome = simulate(
        honest=4,
        dumping=1,
        soft=0,
        sessions=2,
        ring_banks=6,
        seed="t",
        report=lines.append,
        variant="salon",
    )
    print("\n".join(lines), outcome.summary(), sep="\n")
    (ring,) = outcome.rings
    assert ring.flagged_after is not None and ring.flagged_after <= 200, lines
    assert outcome.honest_pairs > 0
    assert outcome.honest_flagged == 0
    assert outcome.precision == 1.0
