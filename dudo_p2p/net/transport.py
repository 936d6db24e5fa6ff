"""What the node needs of the network: the :class:`Transport` protocol, over ZeroMQ links
(:class:`ZmqTransport`) or in memory (:class:`MemoryTransport`, its twin for tests).

A transport links to peers by key (``connect``, ``rekey`` of a placeholder, ``disconnect``),
sends a frame to a peer's link without blocking, waits for input up to a timeout, and gives
back the frames that arrived, each with its claimed sender, the remote address and its
connection id (:class:`~dudo_p2p.net.router.Incoming`), **after** the per-connection flood
limit (:class:`~dudo_p2p.net.flood.FloodLimiter`): a flood never reaches the node.

Young links: a ZeroMQ link refuses frames until its TCP and ZMTP handshakes are done
(``ZMQ_IMMEDIATE``), a few milliseconds after ``connect``, and every peer links to every seat
the moment the table is seated and sends at once. Frames sent to a link younger than
:data:`LINK_UP_GRACE` are held, in order per link, and retried every :data:`HOLD_RETRY`
(:meth:`ZmqTransport.next_deadline` says when) instead of being lost until the sender's next
re-send (200 ms to 1 s away); bounded in time and count (:data:`MAX_HELD`), so a peer that
never answers collects nothing stale. A refusal by an older link (full queue, peer gone)
drops the frame, as the protocol's re-sends expect.

Nothing here reads the clock: every call that needs the time is given ``now``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any, Protocol

import zmq

from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.flood import FloodLimiter
from dudo_p2p.net.links import Links
from dudo_p2p.net.router import Incoming
from dudo_p2p.net.routing import LINK_NONCE_LEN, ROUTING_PREFIX

LINK_UP_GRACE = 1.0
HOLD_RETRY = 0.003
MAX_HELD = 256


class Transport(Protocol):
    """The node's network (module docstring). ``port``: where peers reach us."""

    port: int
    flood: FloodLimiter

    def connect(self, peer: bytes, host: str, port: int, now: float) -> None:
        """Open (or keep) the link to ``peer`` at ``host:port``; InvalidValue for a bad
        address."""

    def disconnect(self, peer: bytes) -> None:
        """Close the link to ``peer``, dropping what it held."""

    def rekey(self, old: bytes, new: bytes) -> None:
        """The link held under ``old`` (a placeholder) is ``new``'s from now on."""

    def send(self, peer: bytes, frame: bytes, now: float) -> None:
        """Queue ``frame`` for ``peer``'s link without blocking (held while the link is
        young, else dropped when refused)."""

    def nonce(self, peer: bytes) -> bytes | None:
        """The nonce of our link to ``peer`` (what our link proofs name), None: no link."""

    def watch(self, fd: int) -> None:
        """Wake :meth:`wait` when file descriptor ``fd`` is readable too (the beacons)."""

    def wait(self, timeout: float) -> set[int]:
        """Sleep until a frame or event arrives or ``timeout`` seconds pass; the watched
        descriptors that are readable."""

    def receive(self, now: float) -> list[Incoming]:
        """The frames that arrived (and passed the flood limit), in order; retries held
        frames and relinks dropped connections on the way."""

    def next_deadline(self, now: float) -> float | None:
        """When held frames are next retried (None: nothing held)."""

    def take_up(self) -> list[bytes]:
        """The peers whose link came up (its handshake with the peer's process done) since
        the last call: reachable now, though none of their frames may have come yet."""

    def close(self, linger_ms: int = 0) -> None:
        """Close everything (idempotent); ``linger_ms``: what is queued may still go out
        for that long."""


class ZmqTransport:
    """:class:`Transport` over :class:`~dudo_p2p.net.links.Links` (one ROUTER in, a DEALER
    per peer) and one ``zmq.Poller`` over the ROUTER, its monitor, every DEALER's monitor
    (a dropped connection is replaced at once) and the watched descriptors."""

    def __init__(
        self,
        key: bytes,
        *,
        bind: str,
        port: int,
        nonces: Callable[[int], bytes] = os.urandom,
        flood: FloodLimiter | None = None,
    ) -> None:
        self.ctx: zmq.Context[Any] = zmq.Context()
        try:
            self.links = Links(self.ctx, key, bind_host=bind, port=port, nonces=nonces)
        except BaseException:
            self.ctx.term()
            raise
        self.port = self.links.port
        self.flood = flood or FloodLimiter()
        self.poller = zmq.Poller()
        self.link_sockets = self.links.sockets_for_poll()
        for sock in self.link_sockets:
            self.poller.register(sock, zmq.POLLIN)
        self.dealer_monitors: list[zmq.Socket[Any]] = []
        self.fds: set[int] = set()
        self.linked_at: dict[bytes, float] = {}  # link key -> when its DEALER was (re)made
        self.held: list[tuple[bytes, bytes, float]] = []  # (link key, frame, give up at)
        self._ready: dict[Any, int] = {}
        self.closed = False

    # ---- links ------------------------------------------------------------------------------

    def connect(self, peer: bytes, host: str, port: int, now: float) -> None:
        before = self.links.peers().get(peer)
        self.links.connect(peer, host, port)
        if self.links.peers().get(peer) != before:  # a new DEALER: not up for a moment
            self.linked_at[peer] = now

    def disconnect(self, peer: bytes) -> None:
        self.links.disconnect(peer)
        self.held = [h for h in self.held if h[0] != peer]
        self.linked_at.pop(peer, None)

    def rekey(self, old: bytes, new: bytes) -> None:
        """Its held frames and its age go with the link, so nothing queued is lost."""
        self.links.rekey(old, new)
        self.held = [(new if key == old else key, frame, at) for key, frame, at in self.held]
        if old in self.linked_at:
            self.linked_at[new] = self.linked_at.pop(old)

    def nonce(self, peer: bytes) -> bytes | None:
        return self.links.nonce(peer)

    # ---- sending ------------------------------------------------------------------------------

    def send(self, peer: bytes, frame: bytes, now: float) -> None:
        """Send, or hold the frame for a link still in its handshake (module docstring)."""
        if self.held and any(key == peer for key, _, _ in self.held):
            self._hold(peer, frame, now)  # behind what is already held for that link: in order
        elif not self.links.send(peer, frame):
            self._hold(peer, frame, now)

    def _hold(self, peer: bytes, frame: bytes, now: float) -> None:
        linked = self.linked_at.get(peer)
        if linked is None or now - linked > LINK_UP_GRACE or len(self.held) >= MAX_HELD:
            return  # an old link refusing (full queue, peer gone): dropped, as ever
        self.held.append((peer, frame, linked + LINK_UP_GRACE))

    def _retry_held(self, now: float) -> None:
        """Send what links held in the order it was held; keep what is still refused until
        its link is LINK_UP_GRACE old."""
        held, self.held = self.held, []
        refused: set[bytes] = set()
        for peer, frame, give_up in held:
            if peer not in refused and self.links.send(peer, frame):
                continue
            refused.add(peer)  # keep that link's later frames behind this one
            if now < give_up:
                self.held.append((peer, frame, give_up))

    def next_deadline(self, now: float) -> float | None:
        return now + HOLD_RETRY if self.held else None

    def take_up(self) -> list[bytes]:
        return self.links.take_up()

    # ---- receiving ----------------------------------------------------------------------------

    def watch(self, fd: int) -> None:
        self.poller.register(fd, zmq.POLLIN)
        self.fds.add(fd)

    def wait(self, timeout: float) -> set[int]:
        self._watch_monitors()
        self._ready = dict(self.poller.poll(poll_timeout_ms(timeout)))
        return self.fds.intersection(self._ready) if self.fds else set()

    def _watch_monitors(self) -> None:
        """Poll the monitor of every DEALER the links hold now (they come and go)."""
        monitors = self.links.monitors_for_poll()
        if monitors == self.dealer_monitors:
            return
        for sock in self.dealer_monitors:
            self.poller.unregister(sock)
        for sock in monitors:
            self.poller.register(sock, zmq.POLLIN)
        self.dealer_monitors = monitors

    def receive(self, now: float) -> list[Incoming]:
        """Read the links only when poll saw something there (frames or monitor events): an
        empty read costs a call per socket on every timer wake-up. Poll is level-triggered,
        so what arrives after it is seen by the next poll at once."""
        ready, self._ready = self._ready, {}
        if self.held:
            self._retry_held(now)
        out: list[Incoming] = []
        if not ready:
            return out
        # set operations in C: these run on every wake-up (a generator each was 1 % of a
        # peer's CPU in a profile)
        keys = ready.keys()
        if not keys.isdisjoint(self.link_sockets):
            admit = self.flood.admit
            out = [m for m in self.links.recv_incoming() if admit(m.conn, now)]
        if not keys.isdisjoint(self.dealer_monitors):
            for peer in self.links.maintain():  # links whose connection dropped: new sockets
                self.linked_at[peer] = now
        return out

    def close(self, linger_ms: int = 0) -> None:
        if self.closed:
            return
        self.closed = True
        self.links.close(linger_ms)
        self.ctx.term()


class MemoryHub:
    """The loopback network of :class:`MemoryTransport` twins: ``(host, port)`` -> transport.
    Frames are handed over at once, in order; nothing is lost (tests drop frames by
    wrapping ``deliver``)."""

    def __init__(self) -> None:
        self.bound: dict[int, MemoryTransport] = {}
        self.next_port = 40_000

    def bind(self, transport: MemoryTransport, port: int) -> int:
        if port == 0:
            while self.next_port in self.bound:
                self.next_port += 1
            port = self.next_port
        if port in self.bound:
            raise InvalidValue(f"port {port} is taken")
        self.bound[port] = transport
        return port

    def deliver(self, port: int, message: Incoming) -> bool:
        """Queue ``message`` on the transport bound to ``port``; False: nobody there."""
        dst = self.bound.get(port)
        if dst is None or dst.closed:
            return False
        dst.inbox.append(message)
        return True


class MemoryTransport:
    """:class:`Transport` in memory, for tests: links are (port, nonce) on a
    :class:`MemoryHub`, a send lands in the peer's inbox at once, ``wait`` never sleeps
    (the test owns the clock); the same flood limit as on the wire."""

    def __init__(self, hub: MemoryHub, key: bytes, *, port: int = 0,
                 nonces: Callable[[int], bytes] = os.urandom, host: str = "127.0.0.1") -> None:
        self.hub = hub
        self.key = key
        self.host = host
        self.port = hub.bind(self, port)
        self.flood = FloodLimiter()
        self.links: dict[bytes, tuple[int, bytes]] = {}  # peer -> (its port, our nonce)
        self.inbox: list[Incoming] = []
        self.sent: list[tuple[bytes, bytes]] = []  # (peer, frame), for tests
        self.up: list[bytes] = []  # links made since take_up()
        self._nonces = nonces
        self.closed = False

    def connect(self, peer: bytes, host: str, port: int, now: float) -> None:
        if not 1 <= port <= 0xFFFF or not host:
            raise InvalidValue(f"bad address {host!r}:{port}")
        current = self.links.get(peer)
        if current is None or current[0] != port:
            self.links[peer] = (port, self._nonces(LINK_NONCE_LEN))
            if port in self.hub.bound:
                self.up.append(peer)  # in memory a link is up as soon as it is made

    def disconnect(self, peer: bytes) -> None:
        self.links.pop(peer, None)

    def rekey(self, old: bytes, new: bytes) -> None:
        link = self.links.pop(old, None)
        if link is not None:
            self.links[new] = link

    def send(self, peer: bytes, frame: bytes, now: float) -> None:
        link = self.links.get(peer)
        if link is None:
            return
        port, nonce = link
        conn = ROUTING_PREFIX + self.key + nonce
        if self.hub.deliver(port, Incoming(self.key, frame, self.host, conn)):
            self.sent.append((peer, frame))

    def nonce(self, peer: bytes) -> bytes | None:
        link = self.links.get(peer)
        return link[1] if link is not None else None

    def watch(self, fd: int) -> None:
        pass  # nothing to poll in memory

    def wait(self, timeout: float) -> set[int]:
        return set()

    def receive(self, now: float) -> list[Incoming]:
        inbox, self.inbox = self.inbox, []
        return [m for m in inbox if self.flood.admit(m.conn, now)]

    def next_deadline(self, now: float) -> float | None:
        return None

    def take_up(self) -> list[bytes]:
        up, self.up = self.up, []
        return up

    def close(self, linger_ms: int = 0) -> None:
        self.closed = True  # what was sent was delivered already: nothing lingers
        self.hub.bound.pop(self.port, None)


def poll_timeout_ms(seconds: float) -> int:
    """The ``zmq.Poller.poll`` timeout for a timer ``seconds`` away: 0 only when it is due,
    else rounded *up* to whole milliseconds. Rounding down made the last millisecond before
    every timer a busy loop (poll(0) returns at once until the timer is due: 30-60 empty
    turns per 50 ms tick on each peer), burning the CPU the other peers needed; waking up to
    1 ms late is harmless for timers of 50 ms and more."""
    return 0 if seconds <= 0 else math.ceil(seconds * 1000)
