"""What the node knows of each incoming connection: which seat it proved (and its flood budget).

A connection is one routing id on our ROUTER (``prefix || claimed key || link nonce``: one
per sending socket, protocol.md §5.1). Anyone can open a connection and claim any key, so:

- **Flood limits are per connection** (:class:`~dudo_p2p.net.flood.FloodLimiter`, in ``net``
  where the transport applies them before a frame reaches the node); a connection that
  proved a seat keeps its bucket for as long as we run.
- **A connection belongs to a seat only once it proved it** (:meth:`Connections.prove`): the
  node checked a heartbeat that the seat signed for us and for this very connection (our key,
  the connection's link nonce) with a counter above every one this connection proved before.
  Only frames arriving on a connection proven for seat X count as "heard from X" (§4.6): a
  frame relayed or replayed by anyone else, however validly signed, never does.

Pure bookkeeping on the times it is given (no I/O, no clock); the node owns the sockets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.net.flood import FloodLimiter
from dudo_p2p.net.routing import split_routing_id
from dudo_p2p.protocol.kinds import Heartbeat

if TYPE_CHECKING:
    from dudo_p2p.consensus.machine import TableMachine

__all__ = ["Connections", "link_proof"]


class Connections:
    """Link proofs per connection, and the flood buckets they keep (module docstring)."""

    def __init__(self, flood: FloodLimiter | None = None) -> None:
        self.flood = flood or FloodLimiter()
        self._seat: dict[bytes, int] = {}  # connection -> the seat it proved
        self._counter: dict[bytes, int] = {}  # connection -> highest proved counter

    @property
    def dropped(self) -> int:
        """Frames the flood buckets dropped."""
        return self.flood.dropped

    def admit(self, conn: bytes, now: float) -> bool:
        """Take a token from ``conn``'s bucket; False: drop the frame (counted)."""
        return self.flood.admit(conn, now)

    def seat_of(self, conn: bytes) -> int | None:
        """The seat ``conn`` proved, or None."""
        return self._seat.get(conn)

    def fresh(self, conn: bytes, counter: int) -> bool:
        """``counter`` is above every counter ``conn`` proved with so far."""
        return counter > self._counter.get(conn, 0)

    def prove(self, conn: bytes, seat: int, counter: int) -> bool:
        """``conn`` carried seat ``seat``'s heartbeat for us and for this connection, with
        ``counter`` (the node checked signature, receiver and link nonce): the connection is
        the seat's from now on. False (nothing changes) when the counter is not fresh or the
        connection proved another seat before (a seat cannot take over another's link)."""
        if not self.fresh(conn, counter) or self._seat.get(conn, seat) != seat:
            return False
        self._counter[conn] = counter
        if conn not in self._seat:
            self._seat[conn] = seat
            self.flood.keep(conn)
        return True


def link_proof(
    machine: TableMachine, conns: Connections, sender: bytes, conn: bytes, frame: bytes
) -> int | None:
    """Check a heartbeat that arrived on connection ``conn`` (claiming key ``sender``) as a
    proof that the connection is its author's (module docstring); the author's seat when it
    is one (the connection is then proven), None when it proves nothing: not a valid
    heartbeat of a seat of this game, signed by another key than the connection claims,
    addressed to another seat or another link, or not fresh on this connection."""
    try:
        env = machine.open_frame(frame)  # cached: machine.receive opens it next
    except RemoteProtocolError:
        return None
    body = env.body
    seat = machine.seating.seat_of(env.author)
    _, nonce = split_routing_id(conn)
    if (
        seat is None or seat == machine.seat or not isinstance(body, Heartbeat)
        or env.author != sender or body.to != machine.identity.public_key
        or body.link != nonce
    ):
        return None
    return seat if conns.prove(conn, seat, body.counter) else None
