"""Catch-up attacks over real ZeroMQ links (issue 21 §3, §7): honest ``dudo-p2p host``/``bot``
processes on loopback, the hostile node of the test process in the last seat.

The same attacks, scripted on the in-memory network, are in
tests/consensus/test_consensus_catchup_attacks.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from node_helpers import Peer

from dudo_p2p.protocol.kinds import Ack, Act, Heartbeat, SyncReply

from .hostile import HostileNode, Out, drive, opened
from .table import open_table

pytestmark = pytest.mark.e2e

BEAT_EVERY = 0.1  # the hostile's heartbeats to the victim: ten times the honest rate


def test_acks_withheld_from_one_seat_do_not_get_it_removed(
    tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode]
) -> None:
    """The hostile seat sends its acks of acts to everyone but the victim (a bot), never
    answers the victim's sync-requests, and beats to the victim ten times a second so its
    heartbeat is always the first to show a longer log. Before: the victim asked only the
    hostile, never caught up, and the host and the hostile voted it out for 'timeout'. Now
    the victim asks the seats ahead of it in turn; the host answers with each act and the
    acks that made it final (the withheld one included); the game ends with the victim
    seated to the end, or beaten by the dice, never removed."""
    table = open_table(tmp_path, peers, hostiles, 3, seed=6)
    node = table.hostile
    me = node.table.seat
    victim = next(s for s in node.honest_seats() if s != 0)  # the bot; seat 0 is the host
    withheld = [0]

    def tamper(node: HostileNode, frame: bytes, to: int | None) -> Out:
        env = opened(frame)
        if env is None:
            return [(frame, to)]
        if isinstance(env.body, SyncReply) and to == victim:
            return []
        if isinstance(env.body, Ack) and (inner := opened(env.body.entry)) is not None \
                and isinstance(inner.body, Act):
            withheld[0] += 1
            return [(frame, s) for s in node.honest_seats() if s != victim and to in (None, s)]
        return [(frame, to)]

    last_beat = [0.0]

    def beat(node: HostileNode) -> None:
        m = node.machine
        if m is None or m.over or time.monotonic() - last_beat[0] < BEAT_EVERY:
            return
        last_beat[0] = time.monotonic()
        node.send_raw(node.seal(Heartbeat(m.replica.head, len(m.replica.chain))), victim)

    node.tamper = tamper
    drive(node, lambda: all(p.proc.poll() is not None for p in table.honest), 150,
          each_step=beat)
    summaries = table.finish()
    assert withheld[0] > 0, "the hostile never acked an act"
    removals = table.record().removals
    assert victim not in [seat for seat, _ in removals], (removals, table.log())
    for peer in table.honest:
        assert "bot1 left" not in table.log(peer) and "b1 left" not in table.log(peer), \
            peer.explain()
    assert summaries[0]["winner"] is not None
    assert me is not None
