"""A tiny peer that uses the transport alone, for the end-to-end tests of ``net`` (only they
use it, so it lives with them and does not ship in the package).

``python tests/net/demo_peer.py --name X --beacon-port P [--join HOST:PORT] [--expect N]``

It announces itself by beacon, links to every peer it discovers (or is told to ``--join``),
sends each a hello and answers each hello with an ack. It prints one JSON object per line per
event on stdout: ``started``, ``discovered``, ``left``, ``hello``, ``ack``, ``done``,
``timeout``. With ``--expect N`` it prints ``done`` once it has both a hello and an ack from N
peers, keeps serving for ``--linger`` seconds (so the others get their acks) and exits 0;
without it, it runs until ``--timeout`` and exits 0 (1 when ``--expect`` was not met).

The hello is JSON, not the game protocol: this program knows nothing of dudo but the beacon.
A peer joined by address is linked under a placeholder key until its own hello names it; the
joined side links back to the IP the hello came from (ZeroMQ's Peer-Address) and the link
port the hello gives.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import zmq

from dudo_p2p.net.beacon import Beacon
from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT, Discovery
from dudo_p2p.net.links import Links

RESEND_EVERY = 0.1  # seconds between hello attempts while a link comes up


@dataclass
class PeerState:
    """What the demo knows of one peer."""

    name: str = "?"
    hello_from: bool = False  # they said hello
    ack_from: bool = False  # they acknowledged our hello
    ack_owed: bool = False  # we still have to acknowledge theirs
    next_hello: float = 0.0


@dataclass
class Demo:
    """The demo's state; ``run`` is its loop."""

    args: argparse.Namespace
    peer_id: bytes
    links: Links
    discovery: Discovery | None
    started: float
    peers: dict[bytes, PeerState] = field(default_factory=dict)
    joins: dict[bytes, tuple[str, int]] = field(default_factory=dict)
    announced: dict[bytes, tuple[str, int]] = field(default_factory=dict)  # discovered at
    next_join_hello: float = 0.0
    stop: bool = False

    def emit(self, event: str, **fields: Any) -> None:
        elapsed = round((time.monotonic() - self.started) * 1000, 1)
        line = {"event": event, "name": self.args.name, "t_ms": elapsed, **fields}
        print(json.dumps(line), flush=True)

    def hello(self) -> bytes:
        body = {"kind": "hello", "peer": self.peer_id.hex(), "name": self.args.name,
                "port": self.links.port}
        return json.dumps(body).encode()

    def ack(self) -> bytes:
        return json.dumps({"kind": "ack", "name": self.args.name}).encode()

    def on_beacons(self, now: float) -> None:
        if self.discovery is None:
            return
        for beacon in self.discovery.on_readable(now):
            if self.args.verbose:
                self.emit("beacon", peer_name=beacon.name, leaving=beacon.is_leaving)
            if beacon.is_leaving:
                self.emit("left", peer=beacon.peer_id.hex()[:16], peer_name=beacon.name)
                self.links.disconnect(beacon.peer_id)
                self.announced.pop(beacon.peer_id, None)
                continue
            where = self.discovery.peers(now).get(beacon.peer_id)
            if where is None:  # the peer table was full
                continue
            address = (where.host, beacon.port)
            if self.announced.get(beacon.peer_id) != address:
                self.announced[beacon.peer_id] = address
                self.emit("discovered", peer=beacon.peer_id.hex()[:16], peer_name=beacon.name,
                          host=where.host, port=beacon.port)
            self.links.connect(beacon.peer_id, where.host, beacon.port)
            self.peers.setdefault(beacon.peer_id, PeerState(name=beacon.name))

    def on_frames(self) -> None:
        self.links.maintain()  # a dropped link is redialled from a new socket (links.py)
        for incoming in self.links.recv_incoming():
            try:
                body = json.loads(incoming.frame)
                kind, name = body["kind"], str(body["name"])
            except (ValueError, TypeError, KeyError):
                self.emit("junk", size=len(incoming.frame))
                continue
            state = self.peers.setdefault(incoming.sender, PeerState())
            state.name = name
            if kind == "hello":
                self.link_back(incoming.sender, incoming.address, body.get("port"))
                if not state.hello_from:
                    self.emit("hello", peer=incoming.sender.hex()[:16], peer_name=name,
                              host=incoming.address)
                state.hello_from = True
                state.ack_owed = True
            elif kind == "ack" and not state.ack_from:
                state.ack_from = True
                self.emit("ack", peer=incoming.sender.hex()[:16], peer_name=name)

    def link_back(self, sender: bytes, address: str | None, port: object) -> None:
        """Link to a peer that said hello first (it joined us by address)."""
        if address is None or not isinstance(port, int) or not 1 <= port <= 0xFFFF:
            return
        self.links.connect(sender, address, port)
        for key, (host, join_port) in list(self.joins.items()):
            if (host, join_port) == (address, port):  # its own hello replaces the placeholder
                self.links.disconnect(key)
                del self.joins[key]

    def send_pending(self, now: float) -> None:
        for peer_id, state in self.peers.items():
            if state.ack_owed and self.links.send(peer_id, self.ack()):
                state.ack_owed = False
            if not state.ack_from and now >= state.next_hello:
                self.links.send(peer_id, self.hello())
                state.next_hello = now + RESEND_EVERY
        if self.joins and now >= self.next_join_hello:
            for key in self.joins:
                self.links.send(key, self.hello())
            self.next_join_hello = now + RESEND_EVERY

    def done_with(self) -> list[str]:
        return sorted(s.name for s in self.peers.values() if s.hello_from and s.ack_from)

    def run(self) -> int:
        poller = zmq.Poller()
        for sock in self.links.sockets_for_poll():
            poller.register(sock, zmq.POLLIN)
        if self.discovery is not None:
            poller.register(self.discovery.fileno(), zmq.POLLIN)
        deadline = self.started + self.args.timeout
        finish_at: float | None = None
        while not self.stop:
            now = time.monotonic()
            if finish_at is not None and now >= finish_at:
                return 0
            if now >= deadline:
                if self.args.expect is None:
                    return 0
                self.emit("timeout", peers=self.done_with())
                return 1
            if self.discovery is not None:
                self.discovery.tick(now)
            poller.poll(50)
            now = time.monotonic()
            self.on_beacons(now)
            self.on_frames()
            self.send_pending(now)
            done = self.done_with()
            if finish_at is None and self.args.expect is not None and len(done) >= self.args.expect:
                self.emit("done", peers=done)
                finish_at = now + self.args.linger
        return 0


def host_port(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` as a pair; argparse turns the ValueError into a usage message."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 0xFFFF:
        raise ValueError(text)
    return host, int(port)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="demo_peer.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True)
    parser.add_argument("--beacon-port", type=int, default=DEFAULT_BEACON_PORT)
    parser.add_argument("--port", type=int, default=0, help="link port (0: the OS picks)")
    parser.add_argument("--bind", default="0.0.0.0", help="address the link port binds")
    parser.add_argument("--join", action="append", default=[], metavar="HOST:PORT",
                        type=host_port)
    parser.add_argument("--broadcast", action="append", default=None, metavar="ADDR",
                        help="send beacons only here (repeatable; default: every interface)")
    parser.add_argument("--no-discovery", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print every beacon received")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--expect", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--linger", type=float, default=1.5)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    peer_id = os.urandom(32)
    ctx: zmq.Context[Any] = zmq.Context()
    links = Links(ctx, peer_id, bind_host=args.bind, port=args.port)
    discovery = None
    if not args.no_discovery:
        discovery = Discovery(args.beacon_port, interval=args.interval,
                              expiry=3.5 * args.interval, broadcast_addresses=args.broadcast)
        discovery.set_beacon(Beacon(peer_id, links.port, name=args.name))
    demo = Demo(args, peer_id, links, discovery, time.monotonic())

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        demo.stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    demo.emit("started", peer=peer_id.hex()[:16], port=links.port,
              broadcast=discovery.broadcast_addresses if discovery else [])
    for host, port in args.join:
        key = f"join:{host}:{port}".encode()  # placeholder until the peer's hello names it
        links.connect(key, host, port)
        demo.joins[key] = (host, port)
    try:
        return demo.run()
    finally:
        demo.emit("stats", links=links.stats, discovery=discovery.stats if discovery else {})
        if discovery is not None:
            discovery.close()
        links.close()
        ctx.term()


if __name__ == "__main__":
    sys.exit(main())
