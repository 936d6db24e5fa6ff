"""The micro-benchmark reports every step, timed by the injected clock."""

from __future__ import annotations

import pytest

from dudo_p2p.crypto.bench import round_cost


def test_round_cost_reports_each_step_in_microseconds_from_the_injected_clock() -> None:
    ticks = iter(range(10_000))

    def clock() -> float:
        return next(ticks) * 1e-3  # every reading 1 ms later than the last

    result = round_cost(n_players=3, repeats=2, clock=clock)
    assert set(result) == {"sign_us", "verify_us", "commit_us", "derive_round_us", "round_total_us",
                           "vss_us"}
    # Each step reads the clock twice around 2 repeats: 1 ms / 2 = 500 us.
    assert result["sign_us"] == pytest.approx(500.0)
    # ... but the VSS step twice around each repeat (its set-up is not timed): 1 ms each.
    assert result["vss_us"] == pytest.approx(1000.0)
    assert result["round_total_us"] == pytest.approx(500.0 * (2 + 3 + 3 * 3 + 2 * 3 + 1))


def test_round_cost_refuses_a_table_of_one() -> None:
    with pytest.raises(ValueError):
        round_cost(n_players=1)
