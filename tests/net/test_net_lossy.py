"""The userspace lossy switch (lossy_switch.py) does what its profile says, measured with
datagrams between two namespaces: clean forwarding, delay and jitter, loss, duplication, a
pulled cable and a one-way block. Bounds are wide (several standard deviations of the seeded
draws plus scheduling on a loaded machine): they catch a switch that ignores a setting."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from lossy import LossyLan
from netns import NetnsLab

pytestmark = [pytest.mark.netns, pytest.mark.e2e]

PROBE = Path(__file__).with_name("udp_probe.py")
PORT = 5000


@pytest.fixture
def lan(lab: NetnsLab, tmp_path: Path) -> Iterator[LossyLan]:
    network = LossyLan(lab, ["a", "b"], tmp_path, seed=1)
    network.pin_neighbours()  # no ARP: every datagram counted is ours
    try:
        yield network
    finally:
        network.close()


def probe(lan: LossyLan, source: str, target: str, count: int) -> list[list[float]]:
    """Send ``count`` datagrams from ``source`` to ``target``: [[seq, one_way_ms], ...]."""
    receiver = subprocess.Popen(
        [*lan.prefix(target), sys.executable, str(PROBE), "recv", str(PORT), "0.5", "4"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert receiver.stdout is not None
        assert receiver.stdout.readline().strip() == "bound"
        subprocess.run([*lan.prefix(source), sys.executable, str(PROBE), "send",
                        lan.address(target), str(PORT), str(count)], check=True, timeout=30)
        out, _ = receiver.communicate(timeout=30)
    finally:
        receiver.kill()
        receiver.wait()
    got: list[list[float]] = json.loads(out)["got"]
    return got


def test_a_clean_switch_forwards_every_datagram_once_in_order(lan: LossyLan) -> None:
    got = probe(lan, "a", "b", 200)
    assert [seq for seq, _ in got] == list(range(200))
    assert statistics.median(ms for _, ms in got) < 20


def test_delay_and_jitter_spread_the_one_way_time(lan: LossyLan) -> None:
    lan.set(delay_ms=80, jitter_ms=40)
    got = probe(lan, "a", "b", 300)
    delays = [ms for _, ms in got]
    assert len(got) == 300
    assert min(delays) >= 40
    assert 65 < statistics.median(delays) < 110
    assert max(delays) - min(delays) > 50  # uniform over 80 ms: spread, not a fixed delay
    seqs = [seq for seq, _ in got]
    assert seqs != sorted(seqs)  # 2 ms apart with 80 ms of jitter: overtaken


def test_loss_and_duplication_happen_at_their_rates(lan: LossyLan) -> None:
    lan.set(loss=0.3)
    seqs = [seq for seq, _ in probe(lan, "a", "b", 400)]
    assert 200 < len(seqs) < 360 and len(set(seqs)) == len(seqs)
    lan.set(loss=0, dup=0.5)
    seqs = [seq for seq, _ in probe(lan, "a", "b", 400)]
    assert set(seqs) == set(range(400))
    assert 120 < len(seqs) - 400 < 280


def test_a_pulled_cable_passes_nothing_and_plugged_back_everything(lan: LossyLan) -> None:
    lan.down("b")
    assert probe(lan, "a", "b", 50) == []
    assert probe(lan, "b", "a", 50) == []
    lan.up("b")
    assert len(probe(lan, "a", "b", 50)) == 50
    assert lan.stats()["counts"]["down"] >= 100


def test_a_block_is_one_way(lan: LossyLan) -> None:
    lan.block("a", "b")
    assert probe(lan, "a", "b", 50) == []
    assert len(probe(lan, "b", "a", 50)) == 50
    lan.unblock("a", "b")
    assert len(probe(lan, "a", "b", 50)) == 50


def test_a_bad_command_is_refused_and_the_switch_keeps_running(lan: LossyLan) -> None:
    for bad in ("set loss=2", "set nosuch=1", "down nosuchport", "jump"):
        with pytest.raises(RuntimeError):
            lan.command(bad)
    assert len(probe(lan, "a", "b", 20)) == 20
