"""Fuzzing a live peer: mutated real frames, random msgpack, envelope-shaped values, signed
nonsense and msgpack bombs into the honest host's link port (from several DEALERs that look
like dudo peers), and mutated beacons and junk into its beacon port, while a real game runs.
No crash, no hang: the honest peers finish and agree.

CI sends 5,000 frames (one game); ``--full`` sends 100,000 over as many games as it takes.
Frames are paced under the node's per-sender flood limit so that each one reaches the
decoder (a flood is dropped before parsing: that is the flood test's business).
"""

from __future__ import annotations

import random
import socket
import time
from pathlib import Path
from typing import Any

import pytest
import zmq
from node_helpers import LOOPBACK, LOOPBACK_BROADCAST, Peer

from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.beacon import encode as encode_beacon

from .hostile import HostileNode, drive
from .mutator import fuzz_frame, mutate
from .table import open_table

pytestmark = pytest.mark.e2e

CI_FRAMES = 5_000
FULL_FRAMES = 100_000
PER_GAME = 10_000
DEALERS = 8
RATE_PER_DEALER = 400.0  # frames per second, under the node's 500/s per sender


class Fuzzer:
    """DEALER sockets with dudo-like routing ids aimed at one link port, and a UDP socket
    aimed at the beacon port; every frame is drawn from one seeded RNG."""

    def __init__(self, link_port: int, beacon_port: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ctx: zmq.Context[Any] = zmq.Context()
        self.dealers: list[zmq.Socket[Any]] = []
        for _ in range(DEALERS):
            dealer = self.ctx.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.setsockopt(zmq.SNDHWM, 100_000)
            dealer.setsockopt(zmq.ROUTING_ID, b"\x01" + self.rng.randbytes(32))
            dealer.connect(f"tcp://{LOOPBACK}:{link_port}")
            self.dealers.append(dealer)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self.beacon_port = beacon_port
        self.sent_link = 0
        self.sent_beacon = 0
        real = Beacon(self.rng.randbytes(32), 40000, "KQ7XM", TableState.OPEN, 1, 4, "ana", 5)
        self.beacons = [encode_beacon(real)]

    def burst(self, node: HostileNode, count: int) -> None:
        """``count`` link frames (one round over the dealers per tick) and a beacon per 10."""
        m = node.table
        corpus = node.capture.frames[-400:]
        authors = list(m.seating.pubs)
        for i in range(count):
            frame = fuzz_frame(self.rng, corpus, m.seating.game_id, authors, node.identity)
            self.dealers[i % DEALERS].send(frame, zmq.NOBLOCK)
            self.sent_link += 1
            if i % 10 == 0:
                junk = (mutate(self.rng, self.beacons[0], self.beacons)
                        if self.rng.random() < 0.7 else self.rng.randbytes(self.rng.randrange(90)))
                self.udp.sendto(junk, (LOOPBACK_BROADCAST, self.beacon_port))
                self.sent_beacon += 1

    def close(self) -> None:
        for dealer in self.dealers:
            dealer.close(linger=0)
        self.ctx.term()
        self.udp.close()


def fuzz_one_game(tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode],
                  beacon_port: int, frames: int, seed: int) -> tuple[int, int]:
    table = open_table(tmp_path, peers, hostiles, 3, "--rule", "starting_dice=5",
                       beacon_port=beacon_port, seed=seed)
    node = table.hostile
    fuzzer = Fuzzer(table.port, beacon_port, seed)
    tick = DEALERS * RATE_PER_DEALER * 0.02  # frames per 20 ms step of the hostile node
    try:
        def each(node: HostileNode) -> None:
            if node.machine is not None and fuzzer.sent_link < frames:
                fuzzer.burst(node, int(min(tick, frames - fuzzer.sent_link)))

        drive(node, lambda: fuzzer.sent_link >= frames or node.table.over, 120, each_step=each)
        summaries = table.finish()
    finally:
        fuzzer.close()
    assert summaries[0]["winner"] is not None
    log = table.log()
    assert "garbage" in log or "rejected frame" in log, "the fuzz reached the host"
    for peer in table.honest:
        assert "Traceback" not in "\n".join(peer.lines), peer.explain()
    return fuzzer.sent_link, fuzzer.sent_beacon


def test_fuzzed_link_and_beacon_ports_during_a_game_no_crash_no_hang(
    tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode], full: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = FULL_FRAMES if full else CI_FRAMES
    sent_link = sent_beacon = games = 0
    started = time.monotonic()
    while sent_link < target:
        work = tmp_path / f"game{games}"
        work.mkdir()
        link, beacon = fuzz_one_game(work, peers, hostiles, free_beacon(),
                                     min(PER_GAME, target - sent_link), seed=games)
        sent_link += link
        sent_beacon += beacon
        games += 1
        for peer in peers:
            peer.stop()
        for node in hostiles:
            node.close()
    with capsys.disabled():
        print(f"\nfuzz: {sent_link} link frames + {sent_beacon} beacons into live hosts over "
              f"{games} games in {time.monotonic() - started:.1f} s; every game finished")
    assert sent_link >= target


def free_beacon() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("0.0.0.0", 0))
        port: int = probe.getsockname()[1]
        return port
