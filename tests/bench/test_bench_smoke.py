"""Smoke runs of the real measurements at tiny sizes: they finish, produce the documented keys
and positive numbers. No timing is asserted here: speed is what the bench reports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dudo_p2p.bench.local import BOT_LEVELS, bot_decisions, crypto_round, inproc_games
from dudo_p2p.bench.loopback import bare_rtt, discovery


def _positive(value: object) -> bool:
    if isinstance(value, dict):
        return bool(value) and all(_positive(v) for v in value.values())
    return isinstance(value, float | int) and value > 0


def test_inproc_games_plays_at_least_three_games() -> None:
    figures = inproc_games(0.0)
    assert set(figures) == {"inproc_games_per_s", "inproc_actions_per_s"}
    assert _positive(figures)
    assert figures["inproc_actions_per_s"] > figures["inproc_games_per_s"]


def test_bot_decisions_gives_one_figure_per_level() -> None:
    figures = bot_decisions(3)
    assert set(figures["bot_decision_ms_p99"]) == set(BOT_LEVELS)
    assert _positive(figures)
    for level in BOT_LEVELS:
        assert figures["bot_decision_ms_p50"][level] <= figures["bot_decision_ms_p99"][level]


def test_crypto_round_reports_each_step() -> None:
    steps = crypto_round(2)["crypto_round_us"]
    assert {"sign_us", "verify_us", "commit_us", "derive_round_us", "round_total_us",
            "vss_us"} <= set(steps)
    assert _positive(steps)


@pytest.mark.e2e
def test_bare_rtt_and_discovery_run_against_child_processes() -> None:
    rtt = bare_rtt(20, warmup=5, idle_pings=3, idle_gap=0.001)
    assert set(rtt) == {"bare_rtt_us", "bare_rtt_us_p99", "bare_rtt_idle_us"}
    assert _positive(rtt)
    assert rtt["bare_rtt_us"] <= rtt["bare_rtt_us_p99"]
    found = discovery(2, cold_trials=1)
    assert set(found) == {"discovery_ms", "discovery_ms_max", "discovery_cold_ms"}
    assert _positive(found)


@pytest.mark.e2e
def test_command_prints_the_table_then_json_as_last_line_without_importing_pygame() -> None:
    # Run through the real entry point in a fresh interpreter, then check pygame stayed out of
    # the bench process (the UI figures come from a child).
    code = ("import sys; from dudo_p2p.cli.main import main; "
            "rc = main(['bench', '--quick', '--json', '--only', 'rtt,games,crypto,ui']); "
            "print(json.dumps({'rc': rc, 'pygame': 'pygame' in sys.modules}))")
    done = subprocess.run([sys.executable, "-c", "import json; " + code],
                          capture_output=True, text=True, timeout=180)
    lines = done.stdout.strip().splitlines()
    assert json.loads(lines[-1]) == {"rc": 0, "pygame": False}, done.stderr
    report = json.loads(lines[-2])
    for key in ("bare_rtt_us", "inproc_games_per_s", "crypto_round_us", "ui_frame_ms_p99",
                "ui_idle_cpu_pct"):
        assert _positive(report[key]), key
    assert report["errors"] == {} and report["quick"] is True
    assert report["machine"]["nproc"] >= 1 and len(report["machine"]["loadavg"]) == 3
    assert lines[0].split()[:2] == ["name", "value"]
    # the machine line, then a start and an end line per measurement
    assert done.stderr.count("bench: ") == 9
