"""The spectator comparison's p99 (bench/spectators.py): pooled bids, and the interval the
verdict reads: distribution-free, so it holds the true p99 of any distribution at least 95 %
of the time (checked on seeded samples of two shapes), open above when too few bids."""

from __future__ import annotations

import math
import random

import pytest

from dudo_p2p.bench.spectators import _pooled_p99, p99_interval


@pytest.mark.parametrize(("draw", "p99"), [
    (lambda r: r.expovariate(1.0), math.log(100)),  # a long tail, as bid latencies have
    (lambda r: r.random(), 0.99),
])
def test_the_interval_holds_the_true_p99_at_least_95_percent_of_the_time(
    draw: object, p99: float,
) -> None:
    rng = random.Random(20)
    held = 0
    for _ in range(400):
        lo, hi = p99_interval([draw(rng) for _ in range(500)])  # type: ignore[operator]
        assert hi is not None
        held += lo <= p99 <= hi
    assert held / 400 >= 0.95


def test_500_bids_give_the_11th_slowest_to_the_slowest_and_100_are_open_above() -> None:
    bids = [float(k) for k in range(1, 501)]
    random.Random(1).shuffle(bids)
    assert p99_interval(bids) == (490.0, 500.0)
    lo, hi = p99_interval([float(k) for k in range(1, 101)])
    assert lo == 97.0 and hi is None  # the slowest of 100 is below the p99 37 % of the time
    with pytest.raises(ValueError):
        p99_interval([])


def test_the_verdict_reads_the_pooled_p99_against_the_interval_without() -> None:
    rng = random.Random(3)
    without = [rng.expovariate(0.1) for _ in range(500)]
    said: list[str] = []
    out = _pooled_p99([without, without, [x * 1.01 for x in without]], 4, said.append)
    assert out["bid_final_ms_p99_pooled_nospec"] == sorted(without)[494]
    interval = out["bid_final_ms_p99_pooled_interval"]
    assert isinstance(interval, dict) and interval["nospec_bids"] == 500
    assert said[-1].endswith("(idle priority): not worse")
    _pooled_p99([without, without, [x * 3 for x in without]], 4, said.append)
    assert said[-1].endswith("WORSE")
    _pooled_p99([without[:100], without[:100], without[:100]], 4, said.append)
    assert said[-1].endswith("too few bids to judge")
