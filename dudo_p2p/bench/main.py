"""``dudo-p2p bench [--json] [--quick] [--only NAME,...]``: run the measurements, print a table.

Each :class:`Measurement` produces some :class:`~dudo_p2p.bench.figures.Figure` values. The run
goes on when one fails: its figures are printed as errors (``null`` in the JSON) and the
error text follows the table. With ``--json`` the last stdout line is one JSON object: every
figure's key, plus "errors" ({measurement: text}), "machine", "quick" and "seconds". Progress
goes to stderr, one line per measurement. Exit status: 0, or 1 when a measurement failed
(a missed target is reported, not an error). Sizes: the full run takes under 3 minutes on
a 2-core machine, ``--quick`` about half a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dudo_p2p.bench.figures import Figure, Target, Value, table

Run = Callable[[bool, Mapping[str, Value]], Mapping[str, Value]]


@dataclass(frozen=True)
class Measurement:
    """One step of the bench: ``run(quick, figures_so_far)`` returns its figures by key."""

    name: str
    about: str
    figures: tuple[Figure, ...]
    run: Run
    needs: tuple[str, ...] = ()  # measurements whose figures ``run`` reads


def _rtt(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.loopback import bare_rtt

    return bare_rtt(300, idle_pings=20) if quick else bare_rtt(2000, idle_pings=100)


def _games(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.local import inproc_games

    return inproc_games(0.5 if quick else 3.0)


def _discovery(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.loopback import discovery

    return discovery(10 if quick else 50, cold_trials=1 if quick else 3)


def _bots(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.local import bot_decisions

    return bot_decisions(30 if quick else 300)


def _crypto(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.local import crypto_round

    return crypto_round(20 if quick else 200)


def _ui(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.ui_child import measure_ui

    return measure_ui(60, 1.0) if quick else measure_ui(300, 5.0)


def _consensus(quick: bool, so_far: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.peers import bid_final

    return bid_final(quick, so_far.get("bare_rtt_us"), so_far.get("bare_rtt_idle_us"))


def _spectators(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.spectators import with_spectators

    return with_spectators(quick)


def _game(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.peers import sim_game

    return sim_game(quick)


def _idle(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.idle import idle_wakeups

    return idle_wakeups(2.0 if quick else 5.0)


def _dead(quick: bool, _: Mapping[str, Value]) -> Mapping[str, Value]:
    from dudo_p2p.bench.peers import dead_peer

    return dead_peer(quick)


MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement("rtt", "bare pyzmq round trip between two processes on 127.0.0.1", (
        Figure("bare_rtt_us", "us"), Figure("bare_rtt_us_p99", "us"),
        Figure("bare_rtt_idle_us", "us")), _rtt),
    Measurement("games", "whole in-process games, 4 random-legal players", (
        Figure("inproc_games_per_s", "games/s", Target(200, at_most=False)),
        Figure("inproc_actions_per_s", "actions/s")), _games),
    Measurement("discovery", "first sight of a running peer over 127.255.255.255", (
        Figure("discovery_ms", "ms", Target(300)), Figure("discovery_ms_max", "ms"),
        Figure("discovery_cold_ms", "ms")), _discovery),
    Measurement("bots", "decision time per bot level", (
        Figure("bot_decision_ms_p99", "ms", Target(50)),
        Figure("bot_decision_ms_p50", "ms")), _bots),
    Measurement("crypto", "cryptography of one round, 6 seats", (
        Figure("crypto_round_us", "us"),), _crypto),
    Measurement("ui", "headless table 1280x800: frame time (and through the reveal's "
                "animation), idle CPU", (
        Figure("ui_frame_ms_p99", "ms", Target(8)), Figure("ui_frame_ms_p50", "ms"),
        Figure("ui_reveal_frame_ms_p99", "ms", Target(8)),
        Figure("ui_reveal_frame_cpu_ms_p99", "ms"),
        Figure("ui_idle_cpu_pct", "% core", Target(3)), Figure("ui_rss_mb", "MiB")), _ui),
    Measurement("consensus", "bid submitted -> agreed by all, 6 peer processes", (
        Figure("bid_final_ms_p50", "ms", Target(2)), Figure("bid_final_ms_p99", "ms", Target(10)),
        Figure("consensus_ratio", "x RTT"), Figure("consensus_ratio_idle", "x idle RTT"),
        Figure("bids_measured", "bids"),
        Figure("peer_cpu_ms_per_action", "ms")),
        _consensus, needs=("rtt",)),
    Measurement("spectators", "the consensus figures without and with 4 `dudo-p2p watch` "
                "spectators joining the host (under SCHED_IDLE once started: on a LAN each "
                "has a machine of its own), 6 peers, 100 bids a run, 7 back-to-back pairs "
                "(the order alternating): medians without (_nospec) and with (_4spec_idle), "
                "the pairs' mean difference (_delta_idle); each judged figure (_judged) with "
                "its 95 % interval against a stated margin: unchanged, changed or can't tell "
                "(spectator_verdict)", (
        *(Figure(f"{key}_{side}", unit)
          for key, unit in (("bid_final_ms_p50", "ms"), ("bid_final_ms_p99", "ms"),
                            ("peer_cpu_ms_per_action", "ms"),
                            ("host_cpu_ms_per_action", "ms"),
                            ("others_cpu_ms_per_action", "ms"),
                            ("host_extra_cpu_ms_per_action", "ms"),
                            ("seat_frames_per_action", "frames"),
                            ("spectator_frames_per_action", "frames"),
                            ("from_spectators_per_action", "frames"),
                            ("spectator_steps_per_action", "steps"),
                            ("spectator_signed_per_action", "replies"),
                            ("spectator_cpu_ms_per_action", "ms"))
          for side in ("nospec", "4spec_idle", "delta_idle")),
        # delta, low, high, margin: fractions of the pair's figure without; flags 0/1
        *(Figure(f"{key}_judged", "fraction")
          for key in ("bid_final_ms_p50", "bid_final_ms_p99", "peer_cpu_ms_per_action",
                      "host_extra_cpu_ms_per_action", "seat_frames_per_action")),
        Figure("spectator_verdict", "figures"),
        *(Figure(f"bid_final_ms_p99_pooled_{side}", "ms") for side in ("nospec", "4spec_idle")),
        Figure("bid_final_ms_p50_runs", "ms"), Figure("peer_cpu_ms_per_action_runs", "ms"),
        Figure("spectator_moves_min", "moves"), Figure("spectator_load", "load")),
        _spectators),
    Measurement("game", "whole 6-peer easy-bot game, `dudo-p2p sim`", (
        Figure("game_seconds_6p", "s", Target(5)), Figure("game_rounds_6p", "rounds"),
        Figure("peer_rss_mb", "MiB", Target(60))), _game),
    Measurement("idle", "wake-ups of an idle seated node (2 seats, nobody acts)", (
        Figure("idle_wakeups_per_s", "/s"), Figure("idle_wakeups_per_s_max", "/s")), _idle),
    Measurement("dead", "kill -9 of a peer and a restart from its journal -> back in its "
                "seat; kill -9 for good -> the others show it disconnected, then remove it", (
        Figure("dead_peer_detected_s", "s", Target(5)), Figure("dead_peer_first_s", "s"),
        Figure("dead_peer_removed_s", "s"), Figure("reconnect_resume_s", "s")),
        _dead),
)

BY_NAME = {m.name: m for m in MEASUREMENTS}
BY_KEY = {f.key: m for m in MEASUREMENTS for f in m.figures}


def select(only: str | None) -> list[Measurement]:
    """The measurements to run, in table order: all, or those named (by measurement name or
    by figure key) plus what they need. ``ValueError`` names an unknown entry."""
    if not only:
        return list(MEASUREMENTS)
    wanted: set[str] = set()
    for entry in (e.strip() for e in only.split(",")):
        if not entry:
            continue
        measurement = BY_NAME.get(entry) or BY_KEY.get(entry)
        if measurement is None:
            raise ValueError(f"unknown measurement {entry!r}; choose from "
                             f"{', '.join(BY_NAME)} (or a figure's key)")
        wanted.add(measurement.name)
        wanted.update(measurement.needs)
    return [m for m in MEASUREMENTS if m.name in wanted]


def machine() -> dict[str, Any]:
    """Where the figures were taken: ``uname -a``, core count, CPU model, Python."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo
                          if ln.startswith("model name")), "")
    except OSError:
        pass
    # Other work on the machine skews every figure: say how busy it was when we started.
    return {"uname": " ".join(os.uname()), "nproc": os.cpu_count(), "cpu": model,
            "python": platform.python_version(),
            "loadavg": [round(x, 2) for x in os.getloadavg()]}


def run_all(chosen: list[Measurement], quick: bool,
            progress: Callable[[str], None]) -> tuple[dict[str, Value], dict[str, str]]:
    """Run ``chosen`` in order; returns (figures by key, errors by measurement name). Every
    figure of a failed measurement (or one it did not return) is None."""
    values: dict[str, Value] = {}
    errors: dict[str, str] = {}
    for measurement in chosen:
        progress(f"bench: {measurement.name}: {measurement.about} ...")
        started = time.monotonic()
        got: Mapping[str, Value] = {}
        try:
            got = measurement.run(quick, values)
        except Exception as exc:  # a failed measurement is reported; the run goes on
            errors[measurement.name] = f"{type(exc).__name__}: {exc}"
            if os.environ.get("DUDO_BENCH_DEBUG"):
                traceback.print_exc()
        for figure in measurement.figures:
            values[figure.key] = got.get(figure.key)
        outcome = "failed" if measurement.name in errors else "done"
        progress(f"bench: {measurement.name}: {outcome} in {time.monotonic() - started:.1f} s")
    return values, errors


def add_parser(subparsers: Any) -> None:
    """Register ``bench`` on an argparse subparsers object; the handler is :func:`run`."""
    parser = subparsers.add_parser(
        "bench", help="measure what players feel (see README)",
        description="Measure latency, throughput, bots, UI and memory on this machine, over "
                    "loopback only. Measurements: " + ", ".join(BY_NAME) + ".")
    parser.add_argument("--json", action="store_true",
                        help="also print one JSON object as the last line of stdout")
    parser.add_argument("--quick", action="store_true", help="CI-size runs (about 30 s)")
    parser.add_argument("--only", metavar="NAME,...",
                        help="run only these measurements (names or figure keys)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        chosen = select(args.only)
    except ValueError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    where = machine()
    print(f"bench: {where['nproc']} cores ({where['cpu']}), load average "
          f"{' '.join(map(str, where['loadavg']))} at the start", file=sys.stderr, flush=True)
    values, errors = run_all(chosen, args.quick, lambda text: print(text, file=sys.stderr,
                                                                     flush=True))
    figures = [f for m in chosen for f in m.figures]
    print(table(figures, values, errors))
    if args.json:
        report: dict[str, Any] = dict(values)
        report.update(errors=errors, machine=where, quick=args.quick,
                      seconds=round(time.monotonic() - started, 1))
        print(json.dumps(report))
    return 1 if errors else 0
