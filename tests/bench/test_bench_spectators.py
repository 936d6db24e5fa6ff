"""The spectator comparison's verdict (bench/equivalence.py, bench/spectators.py): paired
differences, their 95 % interval, a stated margin, and the three answers. It must be able to
say "changed": a deliberately costly spectator (a fake measure whose runs with spectators
cost the seats more) is called changed, a free one unchanged, a noisy one can't tell; and
over many seeded sections with no change it says "changed" at most about 5 % of the time."""

from __future__ import annotations

import ast
import inspect
import random
import statistics
from pathlib import Path

import pytest

from dudo_p2p.bench import main as bench_main
from dudo_p2p.bench.equivalence import (
    CANT_TELL,
    CHANGED,
    UNCHANGED,
    judge,
    overall,
    paired_interval,
    t975,
)
from dudo_p2p.bench.figures import Value
from dudo_p2p.bench.spectators import COMPARED, MARGINS, with_spectators


def test_t_quantiles_and_the_interval_of_known_pairs() -> None:
    assert t975(1) == 12.706 and t975(6) == 2.447 and t975(30) == 2.042
    assert abs(t975(60) - 2.000) < 0.002 and abs(t975(120) - 1.980) < 0.002
    with pytest.raises(ValueError):
        t975(0)
    mean, low, high = paired_interval([1.0, 2.0, 3.0, 4.0])  # sd 1.291, se 0.6455
    assert mean == 2.5 and low is not None and high is not None
    assert abs(high - (2.5 + 3.182 * 0.6455)) < 1e-3 and abs(low - (2.5 - 3.182 * 0.6455)) < 1e-3
    assert paired_interval([3.0]) == (3.0, None, None)
    with pytest.raises(ValueError):
        paired_interval([])


def test_the_three_answers_and_their_edges() -> None:
    assert judge([0.1, -0.1, 0.05, -0.05], 1.0).verdict == UNCHANGED
    assert judge([2.0, 2.1, 1.9, 2.05], 1.0).verdict == CHANGED
    assert judge([-2.0, -2.1, -1.9, -2.05], 1.0).verdict == CHANGED  # either way
    assert judge([1.0, 1.1, 0.9, 1.05], 1.0).verdict == CANT_TELL  # straddles the margin
    assert judge([5.0, -5.0, 4.0, -4.0], 1.0).verdict == CANT_TELL  # too noisy
    assert judge([0.0], 1.0).verdict == CANT_TELL  # one pair: no interval
    assert judge([0.0, 0.0], 1.0).verdict == UNCHANGED  # (no spread: the interval is a point)
    with pytest.raises(ValueError):
        judge([0.0, 0.0], 0.0)
    a, b, c = (judge(d, 1.0) for d in ([0.0, 0.1], [2.0, 2.1], [5.0, -5.0]))
    assert overall([a, a]) == UNCHANGED and overall([a, b, c]) == CHANGED
    assert overall([a, c]) == CANT_TELL
    figure = b.as_figure()
    assert figure["changed"] == 1.0 and figure["unchanged"] == 0.0 and figure["pairs"] == 2.0
    assert "low" not in judge([0.0], 1.0).as_figure()


class FakeTable:
    """Stands in for measure_bids: figures drawn around a base that drifts with the load
    (the same drift for both sides of a run at the same moment), plus ``cost`` for a run
    with spectators: a fraction added to the latency and the seats' CPU, frames added."""

    def __init__(self, seed: int, cost: float = 0.0, noise: float = 0.03,
                 drift: float = 0.02) -> None:
        self.rng = random.Random(seed)
        self.cost = cost
        self.noise = noise
        self.drift = drift
        self.calls: list[int] = []
        self.priorities: set[str] = set()
        self.load = 1.0

    def __call__(self, n: int, want: int, rtt: object, *, timeout: float, spectators: int,
                 priority: str, keep: list[float], env: dict[str, str]) -> dict[str, Value]:
        assert n == 6 and "PYTHONDONTWRITEBYTECODE" not in env
        self.priorities.add(priority)
        self.calls.append(spectators)
        self.load *= 1 + self.rng.gauss(0, self.drift)  # a machine whose load wanders
        extra = 1 + (self.cost if spectators else 0.0)

        def draw(base: float) -> float:
            return base * self.load * extra * (1 + self.rng.gauss(0, self.noise))

        bids = [draw(14.0) * self.rng.expovariate(1.0) ** 0.3 for _ in range(want)]
        keep.extend(bids)
        host, others = draw(5.0), draw(5.0)
        figures: dict[str, Value] = {key: 0.0 for key in COMPARED}
        figures.update(
            bid_final_ms_p50=statistics.median(bids), bid_final_ms_p99=sorted(bids)[-2],
            peer_cpu_ms_per_action=(host + 5 * others) / 6, host_cpu_ms_per_action=host,
            others_cpu_ms_per_action=others, host_extra_cpu_ms_per_action=host - others,
            seat_frames_per_action=6.5 * (1 + (self.cost if spectators else 0.0))
            + self.rng.gauss(0, 0.02),
            spectator_moves_min=40.0 if spectators else None,
            spectator_cpu_ms_per_action=0.97 if spectators else None)
        return figures


def _section(fake: FakeTable, pairs: int = 7) -> dict[str, Value]:
    return with_spectators(False, pairs=pairs, bids=80, say=lambda _: None, measure=fake)


def test_a_free_spectator_is_unchanged_and_the_order_alternates() -> None:
    fake = FakeTable(seed=1, noise=0.02)
    out = _section(fake)
    assert fake.calls == [0, 4, 4, 0] * 3 + [0, 4] and fake.priorities == {"idle"}
    verdict = out["spectator_verdict"]
    assert isinstance(verdict, dict)
    assert verdict == {"unchanged": 5.0, "changed": 0.0, "cant_tell": 0.0, "pairs": 7.0,
                       "overall": 1.0}
    runs = out["bid_final_ms_p50_runs"]
    assert isinstance(runs, dict) and len(runs) == 14 and "4spec_idle_7" in runs


def test_the_spectators_own_cpu_is_said_and_reported_from_the_runs_with_them() -> None:
    # measure_bids gives it only when spectators ran (their CPU per action, from /proc)
    said: list[str] = []
    out = with_spectators(False, pairs=2, bids=30, say=said.append, measure=FakeTable(seed=2))
    assert out["spectator_cpu_ms_per_action_4spec_idle"] == 0.97
    assert out["spectator_cpu_ms_per_action_nospec"] is None
    pairs = [line for line in said if " pair " in line]
    assert len(pairs) == 2 and all("a spectator's CPU ms 0.97" in line for line in pairs)


def test_normal_priority_is_named_apart() -> None:
    fake = FakeTable(seed=4)
    out = with_spectators(False, pairs=2, bids=30, priority="normal", say=lambda _: None,
                          measure=fake)
    assert fake.priorities == {"normal"}
    assert "bid_final_ms_p50_4spec" in out and "bid_final_ms_p50_delta" in out
    assert not any(key.endswith("_idle") for key in out)


def test_a_deliberately_costly_spectator_is_changed() -> None:
    out = _section(FakeTable(seed=2, cost=0.30, noise=0.02))
    verdict = out["spectator_verdict"]
    assert isinstance(verdict, dict) and verdict["overall"] == -1.0
    for key in ("bid_final_ms_p50", "peer_cpu_ms_per_action", "seat_frames_per_action"):
        judged = out[f"{key}_judged"]
        assert isinstance(judged, dict) and judged["changed"] == 1.0, key
        assert judged["low"] > judged["margin"]
        # each pair's difference is a fraction of its own figure without: the cost, 30 %
        assert abs(judged["delta"] - 0.30) < 0.05, key


def test_a_noisy_machine_cannot_tell() -> None:
    out = _section(FakeTable(seed=3, noise=0.40, drift=0.10), pairs=3)
    verdict = out["spectator_verdict"]
    assert isinstance(verdict, dict) and verdict["overall"] == 0.0
    assert verdict["cant_tell"] >= 1 and verdict["changed"] == 0.0


def test_with_no_change_it_says_changed_at_most_about_5_percent_of_the_time() -> None:
    # the false alarm rate of one figure, over seeded sections whose two sides are the same
    # distribution (noise 10 %, a margin of 10 % of the median): at most 2.5 % a side
    rng = random.Random(20)
    said = [judge([rng.gauss(0, 1.0) - rng.gauss(0, 1.0) for _ in range(7)], 0.3).verdict
            for _ in range(2000)]
    assert said.count(CHANGED) / len(said) <= 0.05
    # and a change at twice the margin is called changed most of the time
    said = [judge([rng.gauss(0.6, 0.1) - rng.gauss(0, 0.1) for _ in range(7)], 0.3).verdict
            for _ in range(500)]
    assert said.count(CHANGED) / len(said) >= 0.9


def test_the_bench_table_lists_every_judged_figure() -> None:
    keys = {f.key for f in bench_main.BY_NAME["spectators"].figures}
    assert {f"{key}_judged" for key in MARGINS} <= keys
    assert {f"{key}_delta_idle" for key in COMPARED} <= keys
    # the margins are constants stated in the source, not computed from a run
    source = Path(inspect.getfile(with_spectators)).read_text()
    assert any(isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "MARGINS"
               for node in ast.parse(source).body)


def test_the_longer_run_says_its_verdict_in_its_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from dudo_p2p.bench import spectators

    asked: list[tuple[object, ...]] = []
    said = [1.0]

    def fake(quick: bool, count: int, *, pairs: int, bids: int,
             priority: str, measure: object) -> dict[str, Value]:
        asked.append((quick, count, pairs, bids, priority))
        return {"spectator_verdict": {"overall": said[0]}}

    monkeypatch.setattr(spectators, "with_spectators", fake)
    for word, code in ((1.0, 0), (-1.0, 1), (0.0, 2)):
        said[0] = word
        assert spectators.main(["--pairs", "35"]) == code
    assert asked[0] == (False, 4, 35, spectators.BIDS, "idle")
    assert capsys.readouterr().out.count("spectator_verdict") == 3


def test_the_control_spins_idle_processes_in_place_of_spectators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from dudo_p2p.bench import spectators

    seen: list[tuple[int, list[int]]] = []

    def fake(n: int, want: int, rtt: object, **kwargs: object) -> dict[str, Value]:
        assert "spectators" not in kwargs  # no spectator at all: only the spinners
        me = os.getpid()
        with open(f"/proc/{me}/task/{me}/children") as children:
            pids = [int(p) for p in children.read().split()]
        seen.append((n, [os.sched_getscheduler(p) for p in pids]))
        return {}

    monkeypatch.setattr(spectators, "measure_bids", fake)
    measure = spectators.spinning(2)
    measure(6, 10, None, spectators=4, priority="idle")
    measure(6, 10, None, spectators=0, priority="idle")
    assert seen[0] == (6, [os.SCHED_IDLE, os.SCHED_IDLE]) and seen[1] == (6, [])
