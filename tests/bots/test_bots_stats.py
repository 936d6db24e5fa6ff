"""The tournament's statistics: Wilson intervals and Elo differences."""

from __future__ import annotations

import math

import pytest

from dudo_p2p.bots.stats import elo_difference, fair_share_score, wilson_interval


def test_wilson_interval_matches_published_values() -> None:
    # 8 of 10 at 95 %: the textbook Wilson interval is [0.4902, 0.9433]
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_stays_inside_unit_range_at_extremes() -> None:
    lo, hi = wilson_interval(40, 40)
    assert hi == pytest.approx(1.0) and 0.9 < lo < 1.0
    lo, hi = wilson_interval(0, 40)
    assert lo == pytest.approx(0.0) and 0.0 < hi < 0.1


def test_wilson_interval_is_symmetric_and_shrinks_with_n() -> None:
    lo, hi = wilson_interval(30, 100)
    lo2, hi2 = wilson_interval(70, 100)
    assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)
    assert (hi - lo) > (wilson_interval(300, 1000)[1] - wilson_interval(300, 1000)[0])


def test_wilson_interval_refuses_impossible_counts_and_knows_nothing_at_zero() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_elo_difference_of_known_scores() -> None:
    assert elo_difference(0.5) == pytest.approx(0.0)
    assert elo_difference(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_difference(1.0) <= 800 and elo_difference(0.0) >= -800


def test_fair_share_maps_to_even_score() -> None:
    assert fair_share_score(0.25, 4) == pytest.approx(0.5)
    assert fair_share_score(0.5, 2) == pytest.approx(0.5)
    assert fair_share_score(0.4, 4) > 0.5
