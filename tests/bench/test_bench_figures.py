"""The bench's bookkeeping: percentiles, targets, the table, picking measurements, and a run
that goes on past a failed measurement. Pure and deterministic (no processes)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from dudo_p2p.bench.figures import Figure, Target, Value, percentile, table, verdict
from dudo_p2p.bench.main import MEASUREMENTS, Measurement, run_all, select


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([3.0, 1.0, 2.0], 0) == 1.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_targets_mark_ok_and_miss_in_both_directions() -> None:
    at_most = Figure("x_ms", "ms", Target(2))
    at_least = Figure("games", "games/s", Target(200, at_most=False))
    assert verdict(at_most, 2.0) == "ok"
    assert verdict(at_most, 2.01) == "MISS"
    assert verdict(at_least, 200.0) == "ok"
    assert verdict(at_least, 199.0) == "MISS"
    assert verdict(Figure("free", "us"), 1e9) == ""
    assert verdict(at_most, None) == "ERROR"
    # An object meets its target only if every entry does.
    assert verdict(at_most, {"easy": 1.0, "expert": 3.0}) == "MISS"
    assert verdict(at_most, {"easy": 1.0, "expert": 1.5}) == "ok"


def test_table_shows_each_entry_of_an_object_and_each_error() -> None:
    figures = [Figure("bot_ms", "ms", Target(50)), Figure("rtt_us", "us"),
               Figure("game_s", "s", Target(5))]
    text = table(figures, {"bot_ms": {"easy": 0.1, "hard": 60.0}, "rtt_us": 80.0,
                           "game_s": None}, {"game": "NotImplementedError: no node"})
    lines = text.splitlines()
    assert lines[0].split() == ["name", "value", "unit", "target"]
    easy = next(ln for ln in lines if ln.startswith("bot_ms.easy"))
    hard = next(ln for ln in lines if ln.startswith("bot_ms.hard"))
    assert easy.endswith("ok") and hard.endswith("MISS")
    assert "error" in next(ln for ln in lines if ln.startswith("game_s"))
    assert lines[-1] == "error in game: NotImplementedError: no node"


def test_every_figure_key_is_unique_and_the_required_ones_exist() -> None:
    keys = [f.key for m in MEASUREMENTS for f in m.figures]
    assert len(keys) == len(set(keys))
    required = {"bare_rtt_us", "bid_final_ms_p50", "bid_final_ms_p99", "consensus_ratio",
                "game_seconds_6p", "inproc_games_per_s", "discovery_ms",
                "dead_peer_detected_s", "bot_decision_ms_p99", "ui_frame_ms_p99",
                "ui_idle_cpu_pct", "peer_rss_mb", "crypto_round_us", "ui_reveal_frame_ms_p99"}
    assert required <= set(keys)


def test_select_by_name_or_key_adds_what_a_measurement_needs() -> None:
    assert [m.name for m in select(None)] == [m.name for m in MEASUREMENTS]
    assert [m.name for m in select("games")] == ["games"]
    assert [m.name for m in select("discovery_ms,games")] == ["games", "discovery"]
    assert [m.name for m in select("consensus")] == ["rtt", "consensus"]
    with pytest.raises(ValueError, match="nope"):
        select("games,nope")


def test_a_failing_measurement_gives_none_and_its_error_and_the_run_goes_on() -> None:
    def broken(quick: bool, so_far: Mapping[str, Value]) -> Mapping[str, Value]:
        raise RuntimeError("node missing")

    def fine(quick: bool, so_far: Mapping[str, Value]) -> Mapping[str, Value]:
        assert so_far == {"a": None}
        return {"b": 2.0 if quick else 1.0}

    chosen = [Measurement("first", "fails", (Figure("a", "s"),), broken),
              Measurement("second", "works", (Figure("b", "s"), Figure("c", "s")), fine)]
    said: list[str] = []
    values, errors = run_all(chosen, True, said.append)
    assert values == {"a": None, "b": 2.0, "c": None}
    assert errors == {"first": "RuntimeError: node missing"}
    assert len(said) == 4 and said[1].startswith("bench: first: failed")
