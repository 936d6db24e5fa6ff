"""Heartbeats bound to a link, and what counts as "heard from a seat" (protocol.md §4.6, §5.1).

A heartbeat is addressed: one per other seat, naming that seat's key (``to``), the nonce of
our link to it (``link``: the tail of the routing id its ROUTER receives our frames under)
and a ``counter`` that grows with every round of heartbeats. The receiving node takes a
heartbeat that names it, names the connection it arrived on and carries a counter above any
that connection proved before as the proof that this connection is the author's own
(:mod:`~dudo_p2p.node.conns`); a heartbeat copied from the wire, relayed or replayed proves
nothing (another receiver, another connection, or an old counter).

Only the node knows connections, so only the node says when a seat was *heard*: it calls
:meth:`~dudo_p2p.consensus.machine.TableMachine.heard` for every frame that arrives on a
connection proven for that seat, before handing the frame to ``receive``. ``receive`` itself
never counts as hearing anyone: a validly signed frame may come from anyone who holds a copy.
The silence clock of a seat (:class:`~dudo_p2p.consensus.timers.Timers`) starts when it is
first heard, that is when its link first came up and proved itself, not at the start of the
game: under loss a link can take seconds to come up (TCP retries its SYN after 1 s, then 3 s).
A seat never heard at all is judged silent ``Timeouts.link_setup`` seconds after the start.

Pure: the machine is told the link nonces (``Beats.links``) and the times; no I/O, no clock.
"""

from __future__ import annotations

from dudo_p2p.consensus.replica import Seating
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.kinds import Heartbeat


class Beats:
    """Our heartbeat counter and, per seat, the nonce of our link to it (the node keeps it
    current: a link redialled from a new socket has a new nonce)."""

    def __init__(self) -> None:
        self.counter = 0
        self.links: dict[int, bytes] = {}

    def round(self, head: bytes, length: int, seating: Seating, me: int) -> list[
            tuple[int, Heartbeat]]:
        """One heartbeat for each other seat, all with the next counter."""
        self.counter += 1
        return [
            (seat, Heartbeat(head, length, self.counter, pub, self.links.get(seat, b"")))
            for seat, pub in enumerate(seating.pubs) if seat != me
        ]


def check_addressed(beat: Heartbeat, me: bytes) -> None:
    """Raise RemoteProtocolError unless ``beat`` was sent to us (a heartbeat for another
    seat is a copy: replayed or relayed)."""
    if beat.to != me:
        raise RemoteProtocolError("a heartbeat addressed to another seat")
