"""ZeroMQ links between peers: one ROUTER in, one DEALER out per known peer (as in ZRE).

Why this shape: every peer binds a single ROUTER and learns who sent each frame from the
routing id the sender's DEALER set, so one port serves everyone; every peer keeps a DEALER per
peer it talks to, so a send names exactly one destination and ZeroMQ queues, reconnects and
heartbeats each link on its own. A pair of peers therefore uses two TCP connections, one per
direction, and no frame ever goes back down the ROUTER (so nothing depends on routing tables
the other side controls). The ROUTER and reading it are :mod:`~dudo_p2p.net.router`'s; one
outgoing link is :mod:`~dudo_p2p.net.dealer`'s; ``Links`` holds them together.

What this layer guarantees and what it does not:

* Frames are opaque bytes of at most ``max_frame`` bytes, one ZeroMQ part each. ZeroMQ drops an
  oversize frame itself (``ZMQ_MAXMSGSIZE``) by closing that connection before the frame is
  read into memory; the sender's DEALER reconnects on its own. Anything that still arrives
  malformed (wrong number of parts, a routing id we did not issue, an oversize frame) is
  counted in ``stats``, logged and dropped, never raised.
* Delivery is best effort: ``send`` never blocks and says ``False`` when the frame was not
  queued (unknown peer, link not up yet, high-water mark reached). A frame can also be lost
  when a connection breaks. The consensus layer above re-sends and catches up; it must.
* The sender id returned by ``recv_ready`` is *claimed*: anyone who can reach our port can
  claim any id. It is a routing hint only; the node authenticates every message by its
  Ed25519 signature, and a connection by a signed proof bound to it (protocol.md §5.1).
* One connection, one routing id, never shared (protocol.md §5.1; :mod:`~dudo_p2p.net.routing`
  says how): a DEALER whose connection dropped is replaced by a new socket with a new nonce
  (:meth:`Links.maintain`); ``recv_incoming`` gives each frame's connection id (``conn``).
* libzmq 4.3.x aborts the process (``Assertion failed: !_io_error
  (src/stream_engine_base.cpp:310)``) when a connection whose input was stopped (its pipe
  full at ``ZMQ_RCVHWM``, or handed over to another connection by ``ROUTER_HANDOVER``) fails
  and a ZMTP heartbeat (or a PONG) is then written on it. The ROUTER therefore has no receive
  high-water mark and no handover, so no connection's input is ever stopped; the node reads
  as fast as frames come and drops floods by its own per-connection limit.
* Links are not encrypted (no CURVE) in protocol v1: every message is signed and bound to its
  game, round and seat, so it can be neither forged nor replayed; dice stay secret by
  commit-reveal until the table reveals them anyway; and the only secrets that travel, open
  palifico shares, are sealed end to end (X25519 + ChaCha20-Poly1305) by the crypto layer.
  CURVE would add a second key system and a ZAP handler to hide nothing else. protocol.md
  section 5 gives the full argument.

Nothing here reads the clock or the game; one thread owns a ``Links`` (ZeroMQ sockets are not
thread-safe).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import zmq

from dudo_p2p.errors import InvalidValue, LocalProtocolError
from dudo_p2p.net.dealer import Dealer, LinkTimers, close_dealer, drained_events, open_dealer
from dudo_p2p.net.router import MAX_BATCH as MAX_BATCH  # the links' limit, read by the spec test
from dudo_p2p.net.router import Incoming, Router
from dudo_p2p.net.routing import LINK_NONCE_LEN, MAX_PEER_ID, routing_id

log = logging.getLogger(__name__)

_NOBLOCK = int(zmq.NOBLOCK)  # a plain int: pyzmq's enum member costs a conversion per send

STAT_KEYS = (
    "received",  # frames handed to the caller
    "sent",  # frames queued by send()
    "send_unknown_peer",  # send() to a peer we hold no link for
    "send_would_block",  # send() refused: link not up yet (IMMEDIATE) or high-water mark
    "bad_parts",  # a message with other than one part after the routing id
    "bad_routing_id",  # a routing id without our prefix (not a dudo DEALER)
    "oversize",  # a frame over max_frame that got past ZMQ_MAXMSGSIZE (should stay 0)
    "accepted",  # incoming connections accepted (monitor)
    "disconnects",  # incoming connections closed: peer gone, heartbeat lost, oversize frame
    "handshake_failures",  # incoming connections that never spoke valid ZMTP (monitor)
    "relinks",  # our DEALERs replaced (new nonce) after their connection dropped
    "thin",  # TCP connections (ours and accepted) set to retransmit linearly (dealer.py)
)


class Links:
    """One ROUTER bound on ``bind_host:port`` (0 = the OS picks) and a DEALER per known peer.

    ``peer_id`` is our id (1..254 bytes; the Ed25519 public key in dudo), sent as the routing id
    of every DEALER we open. The constructor raises ``InvalidValue`` for a bad argument and
    ``zmq.ZMQError`` if the port cannot be bound; after ``close()`` nothing may be called but
    ``close()`` again.
    """

    def __init__(
        self,
        ctx: zmq.Context[Any],
        peer_id: bytes,
        *,
        bind_host: str = "127.0.0.1",
        port: int = 0,
        max_frame: int = 65536,
        hwm: int = 1000,
        timers: LinkTimers | None = None,
        nonces: Callable[[int], bytes] = os.urandom,
    ) -> None:
        if not 1 <= len(peer_id) <= MAX_PEER_ID:
            raise InvalidValue(f"peer id must be 1..{MAX_PEER_ID} bytes")
        if not 0 <= port <= 0xFFFF:
            raise InvalidValue("port must be 0..65535")
        if max_frame < 1 or hwm < 1:
            raise InvalidValue("max_frame and hwm must be positive")
        self._ctx = ctx
        self.peer_id = peer_id
        self.max_frame = max_frame
        self._hwm = hwm
        self._timers = timers or LinkTimers()
        self._nonces = nonces
        self._dealers: dict[bytes, Dealer] = {}
        self._up: set[bytes] = set()  # peers whose link came up since take_up()
        self.stats: dict[str, int] = dict.fromkeys(STAT_KEYS, 0)
        self._closed = False

        # the incoming side: one ROUTER and its monitor (router.py)
        self._in = Router(ctx, bind_host, port, max_frame, self._timers, self.stats)
        self._router = self._in.sock  # (a test polls it directly)
        self.port = self._in.port
        self.endpoint: str = self._in.endpoint

    # -- outgoing -------------------------------------------------------------------------

    def connect(self, peer_id: bytes, host: str, port: int) -> None:
        """Open (or keep) the link to ``peer_id`` at ``host:port``; returns at once.

        Idempotent for the same address. A different address (the peer restarted on another
        port or moved) replaces the old DEALER and drops what was queued on it. ZeroMQ makes
        the TCP connection in the background and retries it for ever; ``send`` returns False
        until it is up. Raises ``InvalidValue`` for a bad host or port.
        """
        if not 1 <= port <= 0xFFFF:
            raise InvalidValue(f"link port must be 1..65535, not {port}")
        if not host or any(ch in host for ch in "/ ;*"):
            raise InvalidValue(f"bad host {host!r}")
        endpoint = f"tcp://[{host}]:{port}" if ":" in host else f"tcp://{host}:{port}"
        current = self._dealers.get(peer_id)
        if current is not None:
            if current.endpoint == endpoint:
                return
            self.disconnect(peer_id)
        self._dealers[peer_id] = open_dealer(
            self._ctx, endpoint, routing_id(self.peer_id, self._nonces(LINK_NONCE_LEN)),
            self._hwm, self._timers)
        log.debug("link to %s at %s", peer_id[:4].hex(), endpoint)

    def disconnect(self, peer_id: bytes) -> None:
        """Close the link to ``peer_id`` and drop its queue; nothing happens for an unknown id."""
        entry = self._dealers.pop(peer_id, None)
        if entry is not None:
            close_dealer(entry)

    def rekey(self, old: bytes, new: bytes) -> None:
        """Hold the link kept under ``old`` (a placeholder) under ``new`` from now on: the same
        socket and connection, so no second connection to that peer is opened. A link already
        held under ``new`` is closed first; nothing happens when ``old`` is unknown."""
        entry = self._dealers.pop(old, None)
        if entry is None or old == new:
            if entry is not None:
                self._dealers[old] = entry
            return
        self.disconnect(new)
        self._dealers[new] = entry

    def nonce(self, peer_id: bytes) -> bytes | None:
        """The link nonce of our DEALER to ``peer_id`` (None: no link): the tail of the
        routing id the peer sees our frames come from, which our link proofs name."""
        entry = self._dealers.get(peer_id)
        return entry.nonce if entry is not None else None

    def maintain(self) -> list[bytes]:
        """Replace every DEALER whose connection dropped by a new one (a new socket, a new
        nonce, the same endpoint), so that no connection is ever redialled under a routing
        id a stale connection may still hold on the peer's ROUTER; returns the peers whose
        link was replaced (its queue is lost, as it was with the connection). Notes, for
        :meth:`take_up`, the links whose connection came up (ZMTP handshake done)."""
        replaced: list[bytes] = []
        if not self._dealers:
            return replaced
        # one poll over every monitor: this runs on every step of the node, and a read (or
        # a ZMQ_EVENTS query) per link cost a seat with 4 spectators' links more than
        # answering them (bench spectators, profile: 6,009 refused reads in 100 bids)
        ready = {sock for sock, _ in zmq.zmq_poll(
            [(entry.monitor, zmq.POLLIN) for entry in self._dealers.values()], 0)}
        for peer_id, entry in list(self._dealers.items()):
            if entry.monitor not in ready:
                continue
            dropped, up, thin = drained_events(entry.monitor)
            self.stats["thin"] += thin
            if up and not dropped:
                self._up.add(peer_id)
            if not dropped:
                continue
            close_dealer(entry)
            del self._dealers[peer_id]
            self._up.discard(peer_id)
            try:
                self._dealers[peer_id] = open_dealer(
                    self._ctx, entry.endpoint,
                    routing_id(self.peer_id, self._nonces(LINK_NONCE_LEN)), self._hwm,
                    self._timers)
            except InvalidValue as exc:  # the endpoint connected before: should not happen
                log.warning("cannot relink to %s: %s", peer_id[:4].hex(), exc)
                continue
            self.stats["relinks"] += 1
            # a peer's log then says when a link dropped (a silence of seconds under loss:
            # tests/lan/link_gaps.py), not only the vote it led to
            log.info("link to %s dropped: redialled (%d so far)", peer_id[:4].hex(),
                     self.stats["relinks"])
            replaced.append(peer_id)
        return replaced

    def take_up(self) -> list[bytes]:
        """The peers whose link came up (its ZMTP handshake with the peer's process
        succeeded) since the last call, as :meth:`maintain` saw them: the peer's process is
        there and reachable now, though none of its frames may have reached us yet."""
        up = [p for p in self._up if p in self._dealers]
        self._up.clear()
        return up

    def send(self, peer_id: bytes, frame: bytes) -> bool:
        """Queue ``frame`` for ``peer_id`` without blocking. True when queued, else False.

        False for an unknown peer, a link not connected yet, or a full queue (the HWM); it never
        raises for a peer that is gone. Raises ``LocalProtocolError`` for a frame over
        ``max_frame`` (a bug of ours: the peer would drop it and the link with it).
        """
        if len(frame) > self.max_frame:
            raise LocalProtocolError(f"frame of {len(frame)} bytes over {self.max_frame}")
        entry = self._dealers.get(peer_id)
        if entry is None:
            self.stats["send_unknown_peer"] += 1
            return False
        try:
            entry.sock.send(frame, _NOBLOCK)
        except zmq.Again:
            self.stats["send_would_block"] += 1
            log.debug("link to %s not ready or full; frame dropped", peer_id[:4].hex())
            return False
        self.stats["sent"] += 1
        return True

    def broadcast(self, frame: bytes) -> int:
        """``send`` to every known peer; returns how many queued it."""
        return sum(self.send(peer_id, frame) for peer_id in list(self._dealers))

    def peers(self) -> dict[bytes, str]:
        """Every peer we hold a link for, with the endpoint it points at."""
        return {peer_id: entry.endpoint for peer_id, entry in self._dealers.items()}

    # -- incoming -------------------------------------------------------------------------

    def sockets_for_poll(self) -> list[zmq.Socket[Any]]:
        """Register these with a ``zmq.Poller`` for POLLIN; call ``recv_ready`` when one fires."""
        return [self._in.sock, self._in.monitor]

    def monitors_for_poll(self) -> list[zmq.Socket[Any]]:
        """The monitor socket of every DEALER (they change as links are made, replaced and
        closed): poll them too and call :meth:`maintain` when one fires, so a node that
        sleeps until its next deadline still relinks a dropped connection at once."""
        return [entry.monitor for entry in self._dealers.values()]

    def recv_ready(self) -> list[tuple[bytes, bytes]]:
        """Every frame waiting now, as ``(claimed sender id, frame)``, in arrival order.

        Never blocks, never raises for what peers sent: malformed messages are counted in
        ``stats`` and dropped. Reads at most ``router.MAX_BATCH`` frames per call.
        """
        return [(m.sender, m.frame) for m in self.recv_incoming()]

    def recv_incoming(self) -> list[Incoming]:
        """Like ``recv_ready`` but also gives the remote IP (``Peer-Address``) and the
        connection of each frame.

        The node needs that address to link back to a peer that joined us by ``host:port``
        and told us only its link port.
        """
        return self._in.recv_incoming()

    # -- lifetime -------------------------------------------------------------------------

    def close(self, linger_ms: int = 0) -> None:
        """Close every socket (linger 0, the default: queued frames are dropped; else the
        links keep sending what is queued for up to ``linger_ms`` while the context
        terminates: a last word such as a lobby ``leave``). Idempotent."""
        if self._closed:
            return
        self._closed = True
        for entry in self._dealers.values():
            close_dealer(entry, linger_ms)
        self._dealers.clear()
        self._in.close()

    def __enter__(self) -> Links:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

