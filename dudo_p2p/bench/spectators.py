"""Issue 20's bench figure: the consensus figures of a 6-seat table without and with
spectators attached (:func:`with_spectators`), measured with :mod:`dudo_p2p.bench.peers`'
tables. Moved out of ``peers.py`` unchanged (it had grown past 400 lines).
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Callable

from dudo_p2p.bench.figures import Value
from dudo_p2p.bench.peers import SPECTATOR_PRIORITIES, measure_bids

# the figures with_spectators compares, without and with spectators
COMPARED = ("bid_final_ms_p50", "bid_final_ms_p99", "peer_cpu_ms_per_action",
            "host_cpu_ms_per_action", "others_cpu_ms_per_action", "host_extra_cpu_ms_per_action",
            "seat_frames_per_action",
            "spectator_frames_per_action", "from_spectators_per_action",
            "spectator_steps_per_action", "spectator_signed_per_action")
SPECTATOR_RUNS = 5  # alternations (without, with, with at idle priority) in a full run
# What issue 20's "unchanged" is judged on: the run with the spectators at idle priority.
# On a LAN each spectator runs on a machine of its own; here 4 verifying processes share
# the seats' 2 cores, and at normal priority the scheduler makes a seat that wakes wait
# behind them (the p99). SCHED_IDLE gives them only the CPU the seats leave idle: what the
# seats then lose is what serving spectators costs them. The normal-priority run is printed
# beside it, so that the cost of sharing one machine is shown, not hidden; a seat's own CPU
# per action (from /proc, per seat process) counts in both.
JUDGED_ON = "idle"


def with_spectators(quick: bool, count: int = 4,
                    say: Callable[[str], None] | None = None) -> dict[str, Value]:
    """The consensus figures without and with ``count`` spectators attached, alternating
    (without, with at normal priority, with at idle priority: SPECTATOR_PRIORITIES;
    SPECTATOR_RUNS times each, once with ``quick``). For each figure of COMPARED: the
    median of the runs without (``..._nospec``), with (``..._4spec``, ``..._4spec_idle``),
    and ``..._delta`` / ``..._delta_idle``, the median of the alternations' differences
    (with minus without, each run back to back: robust to a load that drifts over the
    runs). The figures: bid latency p50/p99; CPU per action of a seat (the mean of all six),
    of the host (which the spectators joined: it serves them) and of the five others, and
    the host's above the others' in the same run (load cancelled); the
    frames a seat sends the other seats per action, and apart those it sends spectators;
    counted over all seats per action: frames taken from spectators, steps that took
    spectators' frames and no other, replies signed for spectators. ``..._runs`` keeps each
    run's p50 and seat CPU (``nospec_1``, ``4spec_1``, ``4idle_1``, ...): their spread is
    the noise to read the deltas against; ``spectator_judged_on`` names the priority issue
    20 is judged on (JUDGED_ON, and why); ``spectator_load`` the load average before and
    after. ``say`` gets a line per alternation (default: stderr)."""
    tell = say or (lambda text: print(text, file=sys.stderr, flush=True))
    want = 30 if quick else 100
    runs = 1 if quick else SPECTATOR_RUNS
    rounds: list[list[dict[str, Value]]] = []
    load = os.getloadavg()[0]
    for run in range(runs):
        one = [measure_bids(6, want, None, timeout=90.0)]
        one += [measure_bids(6, want, None, timeout=90.0, spectators=count, priority=p)
                for p in SPECTATOR_PRIORITIES]
        rounds.append(one)
        for side, priority in enumerate(SPECTATOR_PRIORITIES, start=1):
            tell(f"bench: spectators: run {run + 1} of {runs} (load {os.getloadavg()[0]:.1f}), "
                 f"{priority} priority: " + "; ".join(
                     f"{name} {_pair_text((one[0], one[side]), key)}" for key, name in (
                         ("bid_final_ms_p50", "p50 ms"), ("bid_final_ms_p99", "p99 ms"),
                         ("peer_cpu_ms_per_action", "seat CPU ms"),
                         ("host_cpu_ms_per_action", "host CPU ms"),
                         ("host_extra_cpu_ms_per_action", "host above the others ms"),
                         ("seat_frames_per_action", "frames to seats"),
                         ("spectator_frames_per_action", "to spectators"),
                         ("from_spectators_per_action", "from spectators"))))

    def floats(side: int, key: str) -> list[float]:
        return [v for one in rounds if isinstance(v := one[side][key], float)]

    out: dict[str, Value] = {}
    names = {1: f"{count}spec", 2: f"{count}spec_idle"}
    for key in COMPARED:
        without = floats(0, key)
        out[f"{key}_nospec"] = statistics.median(without) if without else None
        for side, name in names.items():
            with_ = floats(side, key)
            out[f"{key}_{name}"] = statistics.median(with_) if with_ else None
            deltas = [b - a for a, b in ((one[0][key], one[side][key]) for one in rounds)
                      if isinstance(a, float) and isinstance(b, float)]
            suffix = "_idle" if side == 2 else ""
            out[f"{key}_delta{suffix}"] = statistics.median(deltas) if deltas else None
    for key in ("bid_final_ms_p50", "peer_cpu_ms_per_action"):
        out[f"{key}_runs"] = {f"{side}_{i + 1}": v
                              for s, side in enumerate(("nospec", f"{count}spec", f"{count}idle"))
                              for i, one in enumerate(rounds)
                              if isinstance(v := one[s][key], float)}
    out["spectator_moves_min"] = min((v for one in rounds for side in (1, 2)
                                      if isinstance(v := one[side]["spectator_moves_min"], float)),
                                     default=None)
    out["spectator_load"] = {"start": load, "end": os.getloadavg()[0]}
    tell(f"bench: spectators: issue 20 is judged on the {JUDGED_ON}-priority run (_delta_idle): "
         "on a LAN each spectator has its own machine; at normal priority (_delta) 4 "
         "verifying processes share the seats' 2 cores, shown so as not to hide it")
    return out


def _pair_text(pair: tuple[dict[str, Value], dict[str, Value]], key: str) -> str:
    a, b = pair[0][key], pair[1][key]
    if isinstance(a, float) and isinstance(b, float):
        return f"{a:.3g} -> {b:.3g} ({b - a:+.2g})"
    return "-"
