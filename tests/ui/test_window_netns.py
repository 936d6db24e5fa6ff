"""Two players' windows on two machines (two network namespaces on one bridge, built by the
test), each its own process with the real program's window (SDL dummy driver) driven by
synthetic input (``window_peer.py``): Ana creates a table, Beto joins it by address, they
play to the end, both say "Jugar otra vez", Beto's window follows Ana's new table by itself
(no stranding on the old address), game 2 names game 1's final log hash, and both end
screens count the evening (2 games). Needs root (skips with the reason otherwise)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from netns import NetnsLab, bridged_lan  # type: ignore[import-not-found, unused-ignore]

pytestmark = [pytest.mark.netns, pytest.mark.e2e]

PEER = Path(__file__).with_name("window_peer.py")
PORT = "47100"
RUN_S = 200.0  # two games of two, 3 dice each, with two windows drawing: well under a minute


def window(lab: NetnsLab, ns: str, tmp: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "cfg"),
           "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.Popen(
        [*lab.exec_prefix(ns), sys.executable, str(PEER), *args,
         "--identity", str(tmp / "id"), "--timeout", str(RUN_S - 20)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_two_windows_on_two_machines_play_one_more_game_and_count_the_evening(
    lab: NetnsLab, tmp_path: Path
) -> None:
    (ns_a, address_a), (ns_b, _) = bridged_lan(lab, 2)
    (tmp_path / "ana").mkdir()
    (tmp_path / "beto").mkdir()
    procs = {"Ana": window(lab, ns_a, tmp_path / "ana", "--create", "Ana", "--port", PORT)}
    procs["Beto"] = window(lab, ns_b, tmp_path / "beto", "--join", "Beto",
                           f"{address_a}:{PORT}")
    seen = {}
    try:
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=RUN_S)
            assert proc.returncode == 0, f"{name} rc={proc.returncode}\n{err[-3000:]}"
            seen[name] = json.loads(out.strip().splitlines()[-1])
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    ana, beto = seen["Ana"], seen["Beto"]
    assert ana["heads"] == beto["heads"] and len(ana["heads"]) == 2
    assert ana["prevs"] == beto["prevs"] == ["", ana["heads"][0]]
    for board in (ana["board"], beto["board"]):
        assert board["games"] == 2
        assert set(board["wins"]) == {"Ana", "Beto"} and sum(board["wins"].values()) == 2
