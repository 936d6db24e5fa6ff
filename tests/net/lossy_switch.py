"""A lossy Ethernet switch in userspace, for network-namespace tests (stdlib only).

This kernel has no ``sch_netem``, so the impairment a real LAN evening brings (Wi-Fi delay and
jitter, loss, duplicated and reordered frames, a laptop out of range, a one-way fault) is made
here: the switch runs in its own namespace with one veth end per peer namespace, reads every
Ethernet frame entering a port on an ``AF_PACKET`` raw socket, decides its fate, and writes it
out of the destination port(s) when its delay has run (a heap of timers under ``select``).

How a frame from port A to port B is treated (each destination of a flooded frame on its own):

* dropped when A or B is ``down`` (the cable is pulled: nothing in, nothing out), or when the
  direction A -> B is ``block``-ed (a one-way fault: B -> A still passes);
* otherwise the *profile* applies: A's own profile if one was set for A, else B's, else the
  switch-wide one. A profile is ``delay_ms``, ``jitter_ms`` (the delay is uniform in
  delay +- jitter, so jitter alone already reorders), ``loss`` (probability the frame is
  dropped), ``dup`` (probability a second copy is sent, with its own delay) and ``reorder``
  (probability a copy skips the delay and overtakes the queue, as netem's ``reorder``).

Forwarding is a learning switch: a source MAC is remembered on its port; broadcast, multicast
and unknown destinations are flooded to every other port. Frames the kernel shows us as our
own outgoing ones are ignored.

The peers' veth ends must not use checksum or segmentation offload (a frame read off a veth
would carry a partial checksum or be a 64 KB super-frame): run this file with
``--offloads-off IFACE`` inside each peer namespace first (the legacy ethtool ioctls, no
``ethtool`` binary needed); the switch turns them off on its own ports itself.

Control: a UNIX stream socket (``--control PATH``, a file path so the test outside the
namespace reaches it), one command per line, one JSON line back (``{"ok": true, ...}``):

* ``set KEY=VALUE ...`` the switch-wide profile; ``set PORT KEY=VALUE ...`` one port's
  (``unset PORT`` drops it);
* ``down PORT`` / ``up PORT``: pull / plug the cable;
* ``block A B`` / ``unblock A B``: drop / pass frames from A to B;
* ``stats``: counters per port and of the fates; ``quit``: exit.

Start: ``lossy_switch.py --control PATH --port NAME=IFACE ... [--seed N]``; it prints
``ready`` on stdout once every socket is open. It exits on ``quit``, SIGTERM, when its parent
dies or when a port vanishes (its namespace was deleted), so a crashed test leaves nothing.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import fcntl
import heapq
import itertools
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time
from dataclasses import asdict, dataclass, fields, replace
from types import FrameType

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
FRAME_MAX = 65_536
RCVBUF = 4 << 20
DRAIN_BATCH = 256  # frames read from one port before looking at the timers again
SIOCETHTOOL = 0x8946
# Legacy ethtool "set" commands: tx checksum, scatter-gather, TSO, GSO, GRO.
OFFLOADS = {"tx": 0x17, "sg": 0x19, "tso": 0x1F, "gso": 0x24, "gro": 0x2C}
IFREQ_SIZE = 40


@dataclass(frozen=True)
class Profile:
    """What happens to a frame on its way through the switch (see the module docstring)."""

    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss: float = 0.0
    dup: float = 0.0
    reorder: float = 0.0

    def updated(self, pairs: list[str]) -> Profile:
        """This profile with ``KEY=VALUE`` pairs applied (ValueError on a bad key or value)."""
        known = {f.name for f in fields(self)}
        changes: dict[str, float] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or key not in known:
                raise ValueError(f"not a profile setting: {pair!r} (known: {sorted(known)})")
            number = float(value)
            if number < 0 or (key in ("loss", "dup", "reorder") and number > 1):
                raise ValueError(f"{key} out of range: {number}")
            changes[key] = number
        return replace(self, **changes)


def offloads_off(ifname: str) -> list[str]:
    """Turn off checksum/segmentation offloads of ``ifname`` (in our namespace); the names of
    the ones the device would not change (veth changes them all)."""
    refused = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for name, command in OFFLOADS.items():
            value = ctypes.create_string_buffer(struct.pack("II", command, 0))
            request = struct.pack("16sP", ifname.encode(), ctypes.addressof(value))
            try:
                fcntl.ioctl(sock.fileno(), SIOCETHTOOL, request.ljust(IFREQ_SIZE, b"\0"))
            except OSError:
                refused.append(name)
    return refused


class Switch:
    """The forwarding loop and its state; ``run`` returns when told to stop."""

    def __init__(self, ports: dict[str, str], control_path: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.names = list(ports)
        self.socks: dict[str, socket.socket] = {}
        for name, ifname in ports.items():
            offloads_off(ifname)
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
            sock.bind((ifname, ETH_P_ALL))
            sock.setblocking(False)
            self.socks[name] = sock
        self.by_fd = {sock.fileno(): name for name, sock in self.socks.items()}
        self.profile = Profile()
        self.port_profiles: dict[str, Profile] = {}
        self.down: set[str] = set()
        self.blocked: set[tuple[str, str]] = set()
        self.macs: dict[bytes, str] = {}
        self.queue: list[tuple[float, int, str, bytes]] = []
        self.order = itertools.count()
        self.counts = {k: 0 for k in ("in", "out", "lost", "down", "blocked", "dup", "reordered",
                                      "send_errors")}
        self.port_counts = {name: {"in": 0, "out": 0, "bytes_in": 0} for name in self.names}
        if os.path.exists(control_path):
            os.unlink(control_path)
        self.control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.control.bind(control_path)
        self.control.listen(4)
        self.clients: dict[int, tuple[socket.socket, bytearray]] = {}
        self.running = True
        self.parent = os.getppid()

    # ---- forwarding -------------------------------------------------------------------------

    def receive(self, name: str) -> None:
        sock = self.socks[name]
        for _ in range(DRAIN_BATCH):
            try:
                frame, address = sock.recvfrom(FRAME_MAX)
            except BlockingIOError:
                return
            except OSError as exc:  # the port vanished: our namespace is being deleted
                if exc.errno in (errno.ENETDOWN, errno.ENODEV, errno.ENXIO):
                    self.running = False
                return
            if address[2] == PACKET_OUTGOING or len(frame) < 14:
                continue
            self.counts["in"] += 1
            self.port_counts[name]["in"] += 1
            self.port_counts[name]["bytes_in"] += len(frame)
            self.forward(name, frame)

    def forward(self, source: str, frame: bytes) -> None:
        destination, sender = frame[0:6], frame[6:12]
        if not sender[0] & 1:
            self.macs[sender] = source
        known = self.macs.get(destination) if not destination[0] & 1 else None
        targets = [known] if known is not None else [n for n in self.names if n != source]
        now = time.monotonic()
        for target in targets:
            if target == source:
                continue
            if source in self.down or target in self.down:
                self.counts["down"] += 1
                continue
            if (source, target) in self.blocked:
                self.counts["blocked"] += 1
                continue
            self.impair(now, source, target, frame)

    def impair(self, now: float, source: str, target: str, frame: bytes) -> None:
        profile = self.port_profiles.get(source) or self.port_profiles.get(target) or self.profile
        rng = self.rng
        if profile.loss and rng.random() < profile.loss:
            self.counts["lost"] += 1
            return
        copies = 2 if profile.dup and rng.random() < profile.dup else 1
        self.counts["dup"] += copies - 1
        for _ in range(copies):
            if profile.reorder and rng.random() < profile.reorder:
                self.counts["reordered"] += 1
                delay = 0.0
            else:
                spread = rng.uniform(-profile.jitter_ms, profile.jitter_ms)
                delay = max(0.0, profile.delay_ms + spread) / 1000
            if delay == 0.0:
                self.send(target, frame)
            else:
                heapq.heappush(self.queue, (now + delay, next(self.order), target, frame))

    def send(self, target: str, frame: bytes) -> None:
        if target in self.down:  # pulled while the frame was on its way
            self.counts["down"] += 1
            return
        try:
            self.socks[target].send(frame)
        except OSError:  # ENOBUFS under a burst: a lost frame, as on a real switch
            self.counts["send_errors"] += 1
            return
        self.counts["out"] += 1
        self.port_counts[target]["out"] += 1

    def release_due(self) -> float | None:
        """Send every frame whose time has come; seconds until the next one (None: none)."""
        now = time.monotonic()
        while self.queue and self.queue[0][0] <= now:
            _, _, target, frame = heapq.heappop(self.queue)
            self.send(target, frame)
        return self.queue[0][0] - now if self.queue else None

    # ---- control ----------------------------------------------------------------------------

    def command(self, line: str) -> dict[str, object]:
        words = line.split()
        if not words:
            return {"ok": False, "error": "empty command"}
        verb, rest = words[0], words[1:]
        if verb == "set":
            if rest and "=" not in rest[0]:
                port = self.port(rest[0])
                base = self.port_profiles.get(port, self.profile)
                self.port_profiles[port] = base.updated(rest[1:])
                return {"ok": True, "profile": asdict(self.port_profiles[port])}
            self.profile = self.profile.updated(rest)
            return {"ok": True, "profile": asdict(self.profile)}
        if verb == "unset" and len(rest) == 1:
            self.port_profiles.pop(self.port(rest[0]), None)
            return {"ok": True}
        if verb in ("down", "up") and len(rest) == 1:
            port = self.port(rest[0])
            (self.down.add if verb == "down" else self.down.discard)(port)
            return {"ok": True, "down": sorted(self.down)}
        if verb in ("block", "unblock") and len(rest) == 2:
            pair = (self.port(rest[0]), self.port(rest[1]))
            (self.blocked.add if verb == "block" else self.blocked.discard)(pair)
            return {"ok": True, "blocked": sorted(f"{a}>{b}" for a, b in self.blocked)}
        if verb == "stats" and not rest:
            return {"ok": True, "counts": self.counts, "ports": self.port_counts,
                    "queued": len(self.queue), "down": sorted(self.down),
                    "blocked": sorted(f"{a}>{b}" for a, b in self.blocked),
                    "profile": asdict(self.profile),
                    "port_profiles": {k: asdict(v) for k, v in self.port_profiles.items()}}
        if verb == "quit" and not rest:
            self.running = False
            return {"ok": True}
        return {"ok": False, "error": f"unknown command: {line!r}"}

    def port(self, name: str) -> str:
        if name not in self.socks:
            raise ValueError(f"no port {name!r} (ports: {self.names})")
        return name

    def serve_control(self, fd: int) -> None:
        if fd == self.control.fileno():
            client, _ = self.control.accept()
            self.clients[client.fileno()] = (client, bytearray())
            return
        client, pending = self.clients[fd]
        data = client.recv(4096)
        if not data:
            del self.clients[fd]
            client.close()
            return
        pending += data
        while b"\n" in pending:
            line, _, remainder = bytes(pending).partition(b"\n")
            pending[:] = remainder
            try:
                reply = self.command(line.decode("utf-8", "replace"))
            except ValueError as exc:
                reply = {"ok": False, "error": str(exc)}
            client.sendall(json.dumps(reply).encode() + b"\n")

    # ---- loop -------------------------------------------------------------------------------

    def run(self) -> None:
        while self.running:
            wait = self.release_due()
            timeout = 0.5 if wait is None else min(0.5, max(0.0, wait))
            watched = [*self.by_fd, self.control.fileno(), *self.clients]
            readable, _, _ = select.select(watched, [], [], timeout)
            for fd in readable:
                if fd in self.by_fd:
                    self.receive(self.by_fd[fd])
                else:
                    self.serve_control(fd)
            if os.getppid() != self.parent:  # the test died without stopping us
                self.running = False

    def close(self) -> None:
        for sock in self.socks.values():
            sock.close()
        for client, _ in self.clients.values():
            client.close()
        self.control.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offloads-off", metavar="IFACE",
                        help="only turn off IFACE's offloads (run in a peer namespace) and exit")
    parser.add_argument("--control", metavar="PATH", help="UNIX socket path for commands")
    parser.add_argument("--port", action="append", default=[], metavar="NAME=IFACE")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fates")
    args = parser.parse_args(argv)
    if args.offloads_off:
        refused = offloads_off(args.offloads_off)
        if refused:
            print(f"could not turn off {refused} on {args.offloads_off}", file=sys.stderr)
        return 1 if refused else 0
    if not args.control or not args.port:
        parser.error("--control and at least one --port are needed")
    ports = dict(item.split("=", 1) for item in args.port)
    switch = Switch(ports, args.control, args.seed)

    def stop(_signum: int, _frame: FrameType | None) -> None:
        switch.running = False

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("ready", flush=True)
    try:
        switch.run()
    finally:
        switch.close()
        if os.path.exists(args.control):
            os.unlink(args.control)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
