"""A spectator's sockets: a link to every seat of the table it watches, driving the pure
:class:`~dudo_p2p.consensus.watch_spectator.Spectator` (protocol.md §4.9 "Watching").

The spectator binds a link port (the seats link back to it, as a host does to a joiner) and
dials the seat at ``host:port`` under a placeholder key: it never needs to know whose key
answers, because every frame it takes is checked against the genesis and its signatures.
Once the genesis is verified the placeholder link becomes that seat's, and the others are
dialled at the addresses the genesis gives, so any seat can serve it (rotation.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import zmq

from dudo_p2p.consensus.lobby import dialled_host
from dudo_p2p.consensus.watch_spectator import Spectator, Verified
from dudo_p2p.crypto.identity import Identity, KeyPin
from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.links import Links
from dudo_p2p.node.conns import Connections

log = logging.getLogger(__name__)


class Watcher:
    """Watch the table of the seat at ``host:port`` (``pin``: only if the genesis seats that
    host key first); drive with :meth:`step`, then :meth:`close`. ``bind`` is our link's
    address (``""`` in the watch when it is 0.0.0.0: the seat answers at the address our
    frames came from)."""

    def __init__(
        self, identity: Identity, host: str, port: int, *, table: str = "",
        pin: KeyPin | None = None, bind: str = "0.0.0.0",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self.ctx: zmq.Context[Any] = zmq.Context()
        try:
            self.links = Links(self.ctx, identity.public_key, bind_host=bind)
        except BaseException:
            self.ctx.term()
            raise
        self.seat = b"watch:" + f"{host}:{port}".encode()
        self.joined_host = host
        self.linked: set[bytes] = set()  # seats we linked to by key (after the genesis)
        self.links.connect(self.seat, host, port)
        self.conns = Connections()  # flood buckets per connection, as a seat's
        self.poller = zmq.Poller()
        for sock in self.links.sockets_for_poll():
            self.poller.register(sock, zmq.POLLIN)
        announced = "" if bind in ("0.0.0.0", "::") else bind
        self.spectator = Spectator(identity, table, announced, self.links.port, pin)
        self.reported = -1  # the item count last reported by progress()
        self.closed = False

    def step(self, max_wait: float) -> None:
        """Send what is due, wait up to ``max_wait`` s (less when something falls due
        sooner) for frames, take them."""
        now = self.clock()
        if self.spectator.seating is not None and not self.linked:
            self._link_seats()
        asked = self.spectator.rotation.target()
        for out in self.spectator.due(now):
            # refused while a link comes up or after its seat left: a watch is sent again,
            # an ask goes to the next seat (rotation.py)
            sent = self.links.send(self.seat if out.to is None else out.to, out.frame)
            if sent and out.enlist and out.to is not None:
                self.spectator.rotation.queued(out.to)
            elif not sent and out.poll:
                self.spectator.unsent(now)
        wait = min(max_wait, self.spectator.next_due() - now)
        ready = dict(self.poller.poll(max(1, int(wait * 1000))))
        if ready:
            now = self.clock()
            for incoming in self.links.recv_incoming():
                if not self.conns.admit(incoming.conn, now):
                    continue  # a flood: dropped before any signature check
                for note in self.spectator.receive(incoming.frame, now, incoming.sender):
                    log.log(logging.getLevelName(note.level.upper()), "%s", note.text)
        self.links.maintain()
        rotation = self.spectator.rotation
        target = rotation.target()
        if target != asked and target is not None:
            log.info("asking seat %s (%d of %d seats enlisted at; %d items verified)",
                     target.hex()[:8], len(rotation.enlisted), len(rotation.pubs),
                     len(self.spectator.items))

    def _link_seats(self) -> None:
        """Link to every seat at the address the genesis gives (the one we joined at when it
        gives none, or gives a loopback one while we joined over the LAN: a bot the host's
        window started, as a seat does, ``lobby.dialled_host``); the link we joined on
        becomes its seat's (no second connection)."""
        joined = self.spectator.rotation.target()
        if joined is not None:
            self.links.rekey(self.seat, joined)
            self.seat = joined
            self.linked.add(joined)
        for seat, (pub, host, port) in enumerate(self.spectator.addresses()):
            if pub not in self.linked and port:
                try:
                    self.links.connect(pub, dialled_host(host, seat, self.joined_host)
                                       or self.joined_host, port)
                except InvalidValue as exc:
                    log.warning("cannot link to seat %s: %s", pub[:4].hex(), exc)
                self.linked.add(pub)

    def progress(self) -> Verified | None:
        """The verified progress when it moved since the last call (else None)."""
        done = self.spectator.progress()
        if done is None or done.items == self.reported:
            return None
        self.reported = done.items
        return done

    def close(self) -> None:
        """Close the sockets (idempotent)."""
        if not self.closed:
            self.closed = True
            self.links.close()
            self.ctx.term()
