"""The incoming side of :class:`~dudo_p2p.net.links.Links`: the one ROUTER every peer binds,
its monitor, and reading what arrives there.

What it guarantees (``links`` says why the shape): frames are read without blocking, at most
:data:`MAX_BATCH` per call, in arrival order; a message that is not one frame of at most
``max_frame`` bytes from a dudo DEALER (:func:`~dudo_p2p.net.routing.classify`) is counted in
``stats``, logged once per kind and dropped, never raised. The ROUTER has no receive
high-water mark and no handover, so no connection's input is ever stopped (the libzmq 4.3.x
abort of the ``links`` docstring). Each frame comes with the sender id it *claims*, the remote
IP ZeroMQ saw and its connection (the whole routing id): routing hints, never proofs.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

import zmq

from dudo_p2p.net.dealer import LinkTimers, monitor_event, set_heartbeats, thin_stream
from dudo_p2p.net.routing import classify, split_routing_id

log = logging.getLogger(__name__)

# At most this many messages per recv_incoming() call, so one flooding peer cannot starve the
# node's loop; zmq.Poller is level-triggered, so the rest is read on the next turn.
MAX_BATCH = 10_000

# plain ints: pyzmq's enum constants make every `&` and every option lookup build an enum
# member (a tenth of the loop's zmq time in a CPU profile)
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_NOBLOCK = int(zmq.NOBLOCK)

HANDSHAKE_FAILED = (
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
)


class Incoming(NamedTuple):
    """One received frame: the sender's claimed id, the bytes, the remote IP ZeroMQ saw, and
    the connection it came on (its whole routing id: unique per sending socket)."""

    sender: bytes
    frame: bytes
    address: str | None
    conn: bytes = b""


class Router:
    """A ROUTER bound on ``bind_host:port`` (0: the OS picks) and its monitor; counts into
    ``stats`` (the ``Links``' dict: "received", "bad_parts", "bad_routing_id", "oversize",
    "accepted", "disconnects", "handshake_failures"). Raises ``zmq.ZMQError`` if the port
    cannot be bound (nothing is left open then)."""

    def __init__(self, ctx: zmq.Context[Any], bind_host: str, port: int, max_frame: int,
                 timers: LinkTimers, stats: dict[str, int]) -> None:
        self.max_frame = max_frame
        self.stats = stats
        router: zmq.Socket[Any] = ctx.socket(zmq.ROUTER)
        router.setsockopt(zmq.LINGER, 0)
        # No ROUTER_HANDOVER and no RCVHWM: either lets a connection's input stop, and a
        # stopped connection that then fails aborts libzmq 4.3.x (links docstring). Ids
        # never collide between honest sockets (a nonce each), so handover buys nothing.
        router.setsockopt(zmq.ROUTER_HANDOVER, 0)
        router.setsockopt(zmq.RCVHWM, 0)
        # ZeroMQ refuses an oversize frame from its length header, before allocating it.
        router.setsockopt(zmq.MAXMSGSIZE, max_frame)
        set_heartbeats(router, timers)
        self.sock = router
        try:
            if port == 0:
                self.port = router.bind_to_random_port(f"tcp://{bind_host}")
            else:
                router.bind(f"tcp://{bind_host}:{port}")
                self.port = port
            self.monitor: zmq.Socket[Any] = router.get_monitor_socket(
                zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED | HANDSHAKE_FAILED
            )
        except BaseException:
            router.close(linger=0)
            raise
        self.endpoint: str = router.getsockopt_string(zmq.LAST_ENDPOINT)

    def recv_incoming(self) -> list[Incoming]:
        """Every frame waiting now (at most :data:`MAX_BATCH`), in arrival order; malformed
        messages are counted and dropped. Never blocks, never raises for what peers sent."""
        self._drain_monitor()
        out: list[Incoming] = []
        sock = self.sock
        events = sock.get
        accept = self._accept
        for _ in range(MAX_BATCH):
            # ask before reading (_readable, inlined: once per frame): a read of an empty
            # socket raises zmq.Again, which cost more than the frame it ended (a third of
            # the loop's zmq time in a profile)
            ready = events(_EVENTS)
            if not (isinstance(ready, int) and ready & _POLLIN):
                break
            try:
                parts = _recv_parts(sock)
            except zmq.Again:
                break
            message = accept(parts)
            if message is not None:
                out.append(message)
        self.stats["received"] += len(out)
        return out

    def _accept(self, parts: list[zmq.Frame]) -> Incoming | None:
        """Check one ROUTER message (routing id + parts); None (counted) when malformed."""
        rid = parts[0].bytes
        problem = classify(rid, [len(p) for p in parts[1:]], self.max_frame)
        if problem is not None:
            self._drop(problem, rid)
            return None
        sender, _ = split_routing_id(rid)
        try:
            address = parts[1].get("Peer-Address")
        except zmq.ZMQError:  # transports without an address (inproc, ipc)
            address = None
        return Incoming(sender, parts[1].bytes, address if isinstance(address, str) else None,
                        rid)

    def _drop(self, kind: str, rid: bytes) -> None:
        self.stats[kind] += 1
        # Warn once per kind so a peer spraying garbage cannot flood the log.
        level = logging.WARNING if self.stats[kind] == 1 else logging.DEBUG
        log.log(level, "dropped a message (%s) from routing id %s", kind, rid[:8].hex())

    def _drain_monitor(self) -> None:
        while _readable(self.monitor):
            try:
                raw = self.monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            event, value = monitor_event(raw)
            if event == zmq.EVENT_ACCEPTED:
                self.stats["accepted"] += 1
                self.stats["thin"] += thin_stream(value)
            elif event == zmq.EVENT_DISCONNECTED:
                self.stats["disconnects"] += 1
            elif event & HANDSHAKE_FAILED:
                self.stats["handshake_failures"] += 1

    def close(self) -> None:
        """Close the monitor and the ROUTER (whatever is unread is dropped)."""
        self.sock.disable_monitor()
        self.monitor.close(linger=0)
        self.sock.close(linger=0)


def _readable(sock: zmq.Socket[Any]) -> bool:
    """A message is waiting on ``sock`` (ZMQ_EVENTS: no read, no raised zmq.Again)."""
    events = sock.get(_EVENTS)
    return isinstance(events, int) and bool(events & _POLLIN)


def _recv_parts(sock: zmq.Socket[Any]) -> list[zmq.Frame]:
    """Every part of the message waiting on ``sock``, without blocking (zmq.Again when none
    is). What ``recv_multipart(NOBLOCK, copy=False)`` gives, but a part says whether more
    follow (``Frame.more``) instead of a ``getsockopt(RCVMORE)`` per part. ZeroMQ hands a
    message over whole, so once its first part is read the others are there."""
    frame = sock.recv(_NOBLOCK, copy=False)
    parts = [frame]
    while frame.more:
        frame = sock.recv(_NOBLOCK, copy=False)
        parts.append(frame)
    return parts
