"""The other end of the loopback measurements, run as ``python -m dudo_p2p.bench.child MODE``.

Modes (every one prints one line per fact on stdout, flushed, and exits when its stdin
closes or after ``LIFETIME_S``, so a crashed bench never leaves it behind for long):

* ``echo``: bind a ZeroMQ ROUTER on a random port of 127.0.0.1, print the port, send every
  message back to its sender (the far end of the bare round trip).
* ``beacon PORT PEER_ID_HEX``: a discovery peer on UDP ``PORT`` announcing ``PEER_ID_HEX``,
  beaconing to 127.255.255.255 only; prints "ready" after its first beacon.
* ``seek PORT``: a fresh discovery peer that prints ``time.monotonic()`` at its first sight
  of another peer, then exits (the cold-start discovery figure; CLOCK_MONOTONIC is one clock
  for every process on Linux, so the parent can subtract its own reading).
"""

from __future__ import annotations

import os
import select
import sys
import time
from typing import Any

import zmq

from dudo_p2p.net.beacon import Beacon
from dudo_p2p.net.discovery import LOOPBACK_BROADCAST, Discovery

LIFETIME_S = 120.0
# The link port announced in the bench's beacons: nobody connects to it, it only has to be
# a valid non-zero port (0 would mean "leaving").
BEACON_LINK_PORT = 9


def _stdin_closed() -> bool:
    readable, _, _ = select.select([sys.stdin], [], [], 0)
    return bool(readable) and not os.read(sys.stdin.fileno(), 4096)


def echo() -> int:
    ctx: zmq.Context[Any] = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    print(port, flush=True)
    deadline = time.monotonic() + LIFETIME_S
    try:
        while time.monotonic() < deadline:
            # Block in recv (the floor we measure), but wake now and then to notice the end.
            if not router.poll(500):
                if _stdin_closed():
                    break
                continue
            parts = router.recv_multipart()
            if parts[-1] == b"":
                break
            router.send_multipart(parts)
    finally:
        router.close(linger=0)
        ctx.term()
    return 0


def loopback_discovery(port: int) -> Discovery:
    """A ``Discovery`` on ``port`` that beacons to the loopback broadcast address only."""
    return Discovery(port, interval=1.0, expiry=3.5, broadcast_addresses=[LOOPBACK_BROADCAST])


def beacon(port: int, peer_id: bytes) -> int:
    with loopback_discovery(port) as discovery:
        discovery.set_beacon(Beacon(peer_id, BEACON_LINK_PORT, name="bench-a"))
        discovery.tick(time.monotonic())
        print("ready", flush=True)
        deadline = time.monotonic() + LIFETIME_S
        while time.monotonic() < deadline:
            readable, _, _ = select.select([discovery.fileno(), sys.stdin], [], [], 0.2)
            now = time.monotonic()
            if discovery.fileno() in readable:
                discovery.on_readable(now)
            if sys.stdin in readable and not os.read(sys.stdin.fileno(), 4096):
                break
            discovery.tick(now)
    return 0


def seek(port: int) -> int:
    with loopback_discovery(port) as discovery:
        discovery.set_beacon(Beacon(os.urandom(32), BEACON_LINK_PORT, name="bench-seek"))
        discovery.tick(time.monotonic())
        deadline = time.monotonic() + LIFETIME_S
        while time.monotonic() < deadline:
            readable, _, _ = select.select([discovery.fileno()], [], [], 0.2)
            now = time.monotonic()
            if readable and any(not b.is_leaving for b in discovery.on_readable(now)):
                print(repr(now), flush=True)
                return 0
            discovery.tick(now)
    return 1


def main(argv: list[str]) -> int:
    match argv:
        case ["echo"]:
            return echo()
        case ["beacon", port, peer_id]:
            return beacon(int(port), bytes.fromhex(peer_id))
        case ["seek", port]:
            return seek(int(port))
    print(f"usage: python -m dudo_p2p.bench.child echo|beacon PORT ID|seek PORT; got {argv}",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
