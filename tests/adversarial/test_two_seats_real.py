"""Issue 21 §1 with real processes: at a two-seat table a hostile seat signs one
``vote{silent}`` against the live host. It used to be a strict majority of one: the host
accepted its own removal, the hostile "won", and the host's own record verified "won by
hostile". Now the host never accepts its own removal on one peer's word: the game ends
abandoned, no winner (exit 6), and the host's record says so (protocol.md §4.6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from node_helpers import Peer

from dudo_p2p.cli.exits import Exit
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.protocol.kinds import Vote

from .hostile import HostileNode, drive, phase_of
from .table import open_table

pytestmark = pytest.mark.e2e


def test_a_hostile_seat_of_two_cannot_win_by_claiming_the_live_host_silent(
    tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode]
) -> None:
    table = open_table(tmp_path, peers, hostiles, 2)
    hostile = table.hostile
    assert drive(hostile, lambda: phase_of(hostile) is EpochPhase.BIDDING
                 and hostile.table.replica.epoch.number >= 1, 30), table.log()
    seating = hostile.table.seating
    hostile.send_raw(hostile.seal(Vote(seating.pubs[0], "silent"), seq=0), 0)  # seq: the target
    drive(hostile, lambda: table.host.proc.poll() is not None, 30, play=False)
    assert table.host.finish(timeout=10) == Exit.ABANDONED, table.host.explain()
    summary = table.host.summary()
    assert summary["outcome"] == "abandoned" and summary["winner"] is None
    log = table.log()
    assert "votes to remove us" in log and "game over" not in log
    assert "mallory claimed we went silent" in log
    record = table.record()
    assert record.abandoned and record.winner is None and not record.removals
