"""``dudo-p2p sim --peers N --json``: N real processes on loopback end on one log hash."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from node_helpers import FAST

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("n", [2, 4, 6])
def test_sim_peers_finish_on_the_same_log_hash(n: int) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "dudo_p2p", "sim", "--peers", str(n), "--json", "--seed", str(n),
         "--level", "easy", "--timeout", "90", *FAST],
        capture_output=True, text=True, timeout=150, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    hashes = {peer["log_hash"] for peer in result["peers"]}
    assert len(result["peers"]) == n
    assert len(hashes) == 1 and None not in hashes
    assert result["winner"] in {f"peer{i}" for i in range(n)}
    assert result["rounds"] >= 1 and result["seconds"] > 0
