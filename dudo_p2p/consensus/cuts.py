"""Relaying across a cut (protocol.md §4.6): two seats that cannot hear each other while we
hear both.

A one-way cut between two seats (b1's frames to b2 lost, the other way open) kills both TCP
connections between them (neither direction gets its ACKs), so neither hears the other
while both hear the rest of the table. Each of them then gets the other's entries only from
our relays of concurrent entries (sent when the log has been stuck a heartbeat interval)
and the other's acks only by catching up (when our heartbeat shows a longer log): every step
of every round waited about a second, and a game of three bots that takes 5 s took 35-55 s
after the cut (tests/lan, one-way partition: over its 30 s bound 2 runs in 3).

The sign of such a cut is a vote: a seat votes another out for ``silent`` or ``timeout``
while we still hear that seat (we do not second it). From then on, for the rest of the game,
every log entry and ack that seat signs and we take is sent on to the voter at once, once
each. A relayed frame is signed by its author and checked by the voter like any other; it
never counts as *heard* (it does not come on its author's own connection, liveness.py), so
relaying cannot keep a dead seat at the table, and a voter that lied gains only copies of
frames it could have asked for. Pure bookkeeping: the machine sends the copies.
"""

from __future__ import annotations

from dudo_p2p.consensus.evidence import LOG_KINDS
from dudo_p2p.consensus.reasons import Reason

# votes that say "I do not hear that seat" (the others are about what it did)
RELAY_REASONS = frozenset({Reason.SILENT, Reason.TIMEOUT})
RELAYED_KINDS = LOG_KINDS | {"ack"}
MAX_RELAYED = 65_536  # digests remembered (a game relays a few hundred); forgotten beyond


class Cuts:
    """Who cannot hear whom, as far as the votes we took show, and what we relayed."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.listeners: dict[int, set[int]] = {}  # speaker -> seats that cannot hear it
        self.relayed: set[bytes] = set()  # digests of the frames we sent on

    def note(self, voter: int, target: int, reason: Reason, target_heard: bool) -> bool:
        """A vote of ``voter`` against ``target``; True when it shows a new cut: a vote for
        silence or missing acks against a seat we hear (``target_heard``), by another seat."""
        if (reason not in RELAY_REASONS or not target_heard
                or self.me in (voter, target) or voter == target):
            return False
        seats = self.listeners.setdefault(target, set())
        if voter in seats:
            return False
        seats.add(voter)
        return True

    def relay_to(self, author: int, kind: str, digest: bytes) -> list[int]:
        """The seats to send ``author``'s frame (of ``kind``, with ``digest``) on to, once."""
        seats = self.listeners.get(author)
        if not seats or kind not in RELAYED_KINDS or digest in self.relayed:
            return []
        if len(self.relayed) >= MAX_RELAYED:
            self.relayed.clear()
        self.relayed.add(digest)
        return sorted(seats)
