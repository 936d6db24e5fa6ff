"""Helpers for the transport tests: free ports and bounded waits (poll with a deadline)."""

from __future__ import annotations

import json
import os
import random
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import zmq

from dudo_p2p.net.links import Links

WAIT = 5.0  # generous bound for anything that crosses a real socket


# Ports come from below Linux's ephemeral range (32768-60999): a port the OS picked for a
# probe is also what it hands out next to outgoing connections, and a peer of another test
# connecting at that moment took it before our peer's bind ("Address already in use").
_PORTS = random.Random(os.getpid())  # port choice only, never game randomness


def _probe_port(kind: int, host: str) -> int:
    for _ in range(500):
        port = _PORTS.randrange(20_000, 32_000)
        with socket.socket(socket.AF_INET, kind) as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000")


def free_udp_port() -> int:
    return _probe_port(socket.SOCK_DGRAM, "0.0.0.0")


def free_tcp_port() -> int:
    return _probe_port(socket.SOCK_STREAM, "127.0.0.1")


def recv_frames(links: Links, count: int, timeout: float = WAIT) -> list[tuple[bytes, bytes]]:
    """Poll ``links`` until ``count`` frames arrived or ``timeout`` passed; return them."""
    poller = zmq.Poller()
    for sock in links.sockets_for_poll():
        poller.register(sock, zmq.POLLIN)
    got: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + timeout
    while len(got) < count:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        poller.poll(int(remaining * 1000) + 1)
        got.extend(links.recv_ready())
    return got


def send_until_queued(links: Links, peer_id: bytes, frame: bytes, timeout: float = WAIT) -> bool:
    """Retry ``send`` while the link comes up (ZMQ_IMMEDIATE refuses frames until then)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if links.send(peer_id, frame):
            return True
        select.select([], [], [], 0.005)  # bounded by the deadline above
    return False


def wait_readable(fd: int, timeout: float = WAIT) -> bool:
    readable, _, _ = select.select([fd], [], [], timeout)
    return bool(readable)


# -- the demo peer as a subprocess (end-to-end and netns tests) ------------------------------

DEMO = [sys.executable, str(Path(__file__).resolve().parent / "demo_peer.py")]


class DemoRun:
    """One ``demo_peer.py`` process; ``prefix`` runs it elsewhere (``ip netns exec X``)."""

    def __init__(self, name: str, args: list[str], prefix: list[str] | None = None) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [*(prefix or []), *DEMO, "--name", name, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.events: list[dict[str, Any]] = []
        self.stderr = ""

    def first_event(self, timeout: float = WAIT) -> dict[str, Any]:
        """The ``started`` line, read with a bounded wait."""
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert readable, f"{self.name} printed nothing in {timeout} s"
        event: dict[str, Any] = json.loads(self.proc.stdout.readline())
        self.events.append(event)
        return event

    def finish(self, timeout: float) -> int:
        """Wait for the process to exit by itself (killed after ``timeout``); parse its output."""
        try:
            out, self.stderr = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, self.stderr = self.proc.communicate()
        self.events.extend(json.loads(line) for line in out.splitlines() if line.strip())
        return self.proc.returncode

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == kind]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
