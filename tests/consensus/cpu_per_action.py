"""The consensus layer's CPU per action, without processes, sockets or disks (issue 19):
6-seat FakeNet games of random-legal players (``tests/consensus/fakenet.py``), timed by the
process's CPU clock; prints the CPU per action per seat, the Ed25519 checks per action per
seat with ``--count`` (which slows the run), and a hash of every seat's log head and journal
(equal hashes: the two trees played the very same games). Run it on two trees alternately to
compare them (the tree is the one ``dudo_p2p`` and ``tests`` are imported from)::

    scripts/consensus_cpu [--count] [SEED ...]         (default seeds 1 2)
    PYTHONPATH=OLD_TREE python OLD_TREE/tests/consensus/cpu_per_action.py

Not a test: a measurement (speed lives in scripts/bench and here, never in a timed test).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections import Counter

import dudo_p2p.protocol.envelope as envelope
from dudo_p2p.consensus import events as ev
from dudo_p2p.rules import RuleSet
from tests.consensus.fakenet import FakeNet

SEATS = 6


def main(argv: list[str]) -> int:
    count = "--count" in argv
    seeds = [int(a) for a in argv if not a.startswith("--")] or [1, 2]
    checks: Counter[str] = Counter()
    if count:
        real = envelope.verify

        def counting(public_key: bytes, data: bytes, signature: bytes) -> bool:
            checks["ed25519"] += 1
            return real(public_key, data, signature)

        envelope.verify = counting  # type: ignore[assignment]
    cpu, actions, digest = 0.0, 0, hashlib.sha256()
    for seed in seeds:
        net = FakeNet(SEATS, RuleSet(), seed)
        start = time.process_time()
        net.run()
        cpu += time.process_time() - start
        actions += sum(isinstance(e, ev.ActionTaken) for e in net.events[0])
        for seat, machine in enumerate(net.machines):
            digest.update(machine.replica.head)
            for record in net.journals[seat]:
                digest.update(record)
    per_seat = actions * SEATS
    line = (f"seeds {seeds}: {actions} actions, {cpu:.2f} s CPU, "
            f"{cpu / per_seat * 1000:.3f} ms per action per seat")
    if count:
        line += f", {checks['ed25519'] / per_seat:.2f} Ed25519 checks per action per seat"
    print(f"{line}; games {digest.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
