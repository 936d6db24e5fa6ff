"""How often an idle seated node wakes up (issue 19): ``idle_wakeups_per_s``.

Two nodes on 127.0.0.1 in this process (one thread each, as two peers' loops), a 2-seat
table with no turn timer; once both are seated nobody acts (a person thinking), so all
either node does is beat, re-send what the stuck log needs, and take the other's frames.
Each loop calls ``node.step(1.0)`` as a session's ``wait`` would; the figure counts the
returns from ``poll`` (every wake-up of the loop, for a deadline or a frame) per second and
node (the mean of the two, and the busier one).

The count is the node's ``stats.wakeups``; on an older tree, whose node owned its poller,
a counting poller in front of it, so the same file measures the tree before this issue
(``PYTHONPATH=OLD_TREE python path/to/idle.py`` prints the figures as JSON): there the node
ticked every 50 ms.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node import NetConfig, Node  # the package's names: older trees have them too
from dudo_p2p.rules import RuleSet

SEAT_TIMEOUT_S = 30.0
LOOPBACK = NetConfig(bind="127.0.0.1", discovery=False)


class _CountingPoller:
    """Stands in front of the node's poller and counts the returns from ``poll``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.wakeups = 0

    def register(self, sock: Any, flags: int) -> None:
        self.inner.register(sock, flags)

    def unregister(self, sock: Any) -> None:
        self.inner.unregister(sock)

    def poll(self, timeout: int | None = None) -> Any:
        ready = self.inner.poll(timeout)
        self.wakeups += 1
        return ready


class _Loop(threading.Thread):
    """One node's loop: step until told to stop; ``wakeups()`` counts its polls (the node's
    own counter, or a counting poller in front of an older node's)."""

    def __init__(self, node: Node) -> None:
        super().__init__(daemon=True)
        self.node = node
        self.stop = threading.Event()
        self.poller: _CountingPoller | None = None
        if not hasattr(node.stats, "wakeups"):  # an older tree: the node owned its poller
            self.poller = _CountingPoller(getattr(node, "poller"))  # noqa: B009
            setattr(node, "poller", self.poller)  # noqa: B010

    def wakeups(self) -> int:
        if self.poller is not None:
            return self.poller.wakeups
        return self.node.stats.wakeups

    def run(self) -> None:
        while not self.stop.is_set():
            self.node.step(1.0)


def _port(node: Node) -> int:
    """The node's link port (``node.links.port`` on a tree before the transport)."""
    port = getattr(node, "port", None)
    return port if isinstance(port, int) else int(node.links.port)


def idle_wakeups(seconds: float) -> dict[str, float | None]:
    """Seat two nodes, then count each one's wake-ups over ``seconds`` of nobody acting."""
    host = Node.host(Identity.generate(), "idle0", LOOPBACK, seats=2, rules=RuleSet(),
                     turn_timer_ms=0)
    joiner = Node.join(Identity.generate(), "idle1", LOOPBACK,
                       addresses=[("127.0.0.1", _port(host))], discover=False)
    loops = [_Loop(host), _Loop(joiner)]
    try:
        for loop in loops:
            loop.start()
        deadline = time.monotonic() + SEAT_TIMEOUT_S
        while host.machine is None or joiner.machine is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the two idle nodes were not seated in time")
            time.sleep(0.05)
        time.sleep(1.5)  # the first commitments and their acks go round; then all is quiet
        before = [loop.wakeups() for loop in loops]
        started = time.monotonic()
        time.sleep(seconds)
        elapsed = time.monotonic() - started
        counts = [loop.wakeups() - b for loop, b in zip(loops, before, strict=True)]
    finally:
        for loop in loops:
            loop.stop.set()
        for loop in loops:
            loop.join(5.0)
        host.close()
        joiner.close()
    return {"idle_wakeups_per_s": sum(counts) / len(counts) / elapsed,
            "idle_wakeups_per_s_max": max(counts) / elapsed}


if __name__ == "__main__":
    print(json.dumps(idle_wakeups(5.0)))
