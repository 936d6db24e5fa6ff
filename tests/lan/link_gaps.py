"""How long a live peer goes unheard on the lossy LAN: the silences a seat's links make.

``python tests/lan/link_gaps.py --seconds 300 --loss 0.25 [--no-thin] [--pin-arp] [--seed N]
[--connect-timeout MS]``
(root) makes two namespaces on the lossy switch (``tests/net/lossy.py``; 40 +- 10 ms, 3 %
duplication, as ``lan_sweep --hard`` seed 13), and in each a process that holds our real
``Links`` (one ROUTER, one DEALER to the other, relinked on a drop as the node does) and sends
what a seat sends: a heartbeat-sized frame every second and 1-3 frames of 200 bytes at random
moments (3 a second on average). Each side prints one JSON line: the frames it received, every
silence over 2 s (when it began, how long), how many over 4.5 s (the silence limit, §4.6) and
the links' counters. ``--no-thin`` turns off the linear retransmission timer
(``dealer.thin_stream``) in both processes; ``--pin-arp`` gives both permanent ARP entries (so
no silence comes from ARP under loss). One run at a time is what the figures in the README
came from (the machine is shared).

Why: at ``lan_sweep --hard`` seed 13 (25 % loss) two live bots, the last two seats with no
grace, ended "abandoned" because one did not hear the other for 4.5 s: a claim (§4.6).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dudo_p2p.net.dealer import LinkTimers

_HERE = Path(__file__).resolve().parent
for _where in (_HERE.parent / "net",):
    sys.path.insert(0, str(_where))

PORT = 47000
LINK_TIMERS = LinkTimers()


def peer(me: str, bind: str, other: str, seconds: float, seed: int, thin: bool,
         connect_timeout: int) -> None:
    """One side: send like a seat, note when frames arrive (run inside its namespace)."""
    import zmq

    from dudo_p2p.net import dealer, router
    from dudo_p2p.net.links import Links

    if not thin:
        dealer.thin_stream = router.thin_stream = lambda fd: False  # type: ignore[assignment]
    rng = random.Random(f"{seed}-{me}")
    ctx: zmq.Context[object] = zmq.Context()
    links = Links(ctx, me.encode() * 8, bind_host=bind, port=PORT,
                  timers=LinkTimers(connect_timeout=connect_timeout))
    links.connect(b"other", other, PORT)
    poller = zmq.Poller()
    for sock in links.sockets_for_poll():
        poller.register(sock, zmq.POLLIN)
    monitors: list[zmq.Socket[object]] = []
    start = time.monotonic()
    next_beat, next_extra = start, start + rng.expovariate(3)
    arrivals: list[float] = []
    counter = 0
    while (now := time.monotonic()) - start < seconds:
        if now >= next_beat:
            counter += 1
            links.send(b"other", json.dumps({"hb": counter}).encode().ljust(180))
            next_beat += 1.0
        if now >= next_extra:
            for _ in range(rng.randint(1, 3)):
                links.send(b"other", b"e" * 200)
            next_extra = now + rng.expovariate(3)
        current = links.monitors_for_poll()
        if current != monitors:
            for sock in monitors:
                poller.unregister(sock)
            for sock in current:
                poller.register(sock, zmq.POLLIN)
            monitors = current
        poller.poll(int(max(0.0, min(next_beat, next_extra) - time.monotonic()) * 1000) + 1)
        links.maintain()
        arrivals += [time.monotonic() - start for _ in links.recv_incoming()]
    gaps = [(round(a, 1), round(b - a, 2)) for a, b in itertools.pairwise(arrivals)
            if b - a > 2]
    print(json.dumps({"me": me, "thin": thin, "frames": len(arrivals), "silences_over_2s": gaps,
                      "over_4_5s": sum(g > 4.5 for _, g in gaps),
                      "longest": max((g for _, g in gaps), default=0.0), "links": links.stats}),
          flush=True)
    links.close()
    ctx.term()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--loss", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--no-thin", action="store_true")
    parser.add_argument("--pin-arp", action="store_true")
    parser.add_argument("--connect-timeout", type=int, default=LINK_TIMERS.connect_timeout,
                        help="ms (LinkTimers.connect_timeout)")
    parser.add_argument("--peer", nargs=3, metavar=("ME", "BIND", "OTHER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:
        peer(*args.peer, args.seconds, args.seed, not args.no_thin, args.connect_timeout)
        return 0
    from lossy import LossyLan
    from netns import NetnsLab

    reason = NetnsLab.unavailable()
    if reason is not None:
        print(f"link_gaps: {reason}", file=sys.stderr)
        return 2
    lab = NetnsLab()
    lab.prefix = f"dudo-lan-{os.getpid()}-"
    work = Path(tempfile.mkdtemp(prefix="dudo-lan-gaps-"))
    try:
        lan = LossyLan(lab, ["a", "b"], work, seed=args.seed)
        try:
            lan.set(None, delay_ms=40, jitter_ms=10, loss=args.loss, dup=0.03, reorder=0.0)
            if args.pin_arp:
                lan.pin_neighbours()
            procs = [subprocess.Popen(
                [*lan.prefix(me), sys.executable, __file__, "--seconds", str(args.seconds),
                 "--seed", str(args.seed), *(["--no-thin"] if args.no_thin else []),
                 "--connect-timeout", str(args.connect_timeout),
                 "--peer", me, lan.address(me), lan.address(other)],
                stdout=subprocess.PIPE, text=True) for me, other in (("a", "b"), ("b", "a"))]
            for proc in procs:
                out, _ = proc.communicate(timeout=args.seconds + 60)
                print(out.strip(), flush=True)
            print(json.dumps({"switch": lan.stats()["counts"]}), flush=True)
        finally:
            lan.close()
    finally:
        lab.teardown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
