"""What binds an ack and a vote to what it is about, and refusing replays (protocol.md §4.4,
§4.6, §6).

- An ``ack`` is signed in the context of the entry it relays: its envelope's ``round_no``
  and ``seq`` are the acked entry's (epoch, seq), and its body carries the whole entry, so
  the signature covers the entry's hash. An ack whose context is not its entry's is refused
  (:func:`check_ack`): an ack says "I accept this entry for this slot" and nothing else.
- A ``vote`` is signed with ``round_no`` = the epoch it removes from and ``seq`` = the seat
  it targets (whose key is its body's ``target``): a vote counts only in its epoch and only
  against that seat (:func:`check_vote`).
- :class:`ReplayGuard` remembers the acks and votes a machine took; the same signed frame
  again is a replay: it is refused before it can count for anything, not even as a sign of
  life of its signer (a dead seat's old acks, sent again by anyone, must not keep it at
  the table).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from typing import Final

from dudo_p2p.consensus.replica import Seating
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Vote

MAX_TAKEN: Final = 8192  # acks and votes remembered (a flood cannot grow memory)


def ack_context(entry: Envelope) -> tuple[int, int]:
    """The (round_no, seq) an ack of ``entry`` is signed with: the entry's own."""
    return entry.round_no, entry.seq


def check_ack(ack: Envelope, entry: Envelope) -> None:
    """RemoteProtocolError unless ``ack`` is signed in ``entry``'s context (epoch, seq)."""
    if (ack.round_no, ack.seq) != ack_context(entry):
        raise RemoteProtocolError(
            f"ack signed for ({ack.round_no}, {ack.seq}) relays the entry of "
            f"({entry.round_no}, {entry.seq}): not bound to what it acks"
        )


def vote_seq(seating: Seating, target_key: bytes) -> int:
    """The ``seq`` a vote against ``target_key`` is signed with: the target's seat."""
    seat = seating.seat_of(target_key)
    if seat is None:
        raise RemoteProtocolError("a vote against a key that has no seat")
    return seat


def check_vote(vote: Envelope, seating: Seating) -> int:
    """The seat ``vote`` targets; RemoteProtocolError unless it is a vote whose ``seq`` is
    that seat (a vote is bound to its epoch by ``round_no``, to its target by ``seq``)."""
    if not isinstance(vote.body, Vote):
        raise RemoteProtocolError(f"a {vote.kind} is not a vote")
    seat = vote_seq(seating, vote.body.target)
    if vote.seq != seat:
        raise RemoteProtocolError(
            f"vote against seat {seat} signed with seq {vote.seq}: not bound to its target"
        )
    return seat


class ReplayGuard:
    """The digests of the acks and votes a machine took (the last MAX_TAKEN): one seen again
    is a replay. Only frames that took effect are remembered (an ack that arrived before it
    could count is not), so an honest re-send of a frame we could not use yet still gets in.
    Frames of an epoch we have left are refused as stale before they reach the guard, so
    forgetting the oldest ones lets nothing old back in."""

    def __init__(self) -> None:
        self.taken: dict[bytes, None] = {}  # insertion-ordered: the oldest is dropped first

    def replayed(self, env: Envelope) -> bool:
        """``env`` (an ack or a vote) was taken already."""
        return env.digest() in self.taken

    def take(self, env: Envelope) -> None:
        """Remember ``env`` as taken."""
        self.taken[env.digest()] = None
        if len(self.taken) > MAX_TAKEN:
            del self.taken[next(iter(self.taken))]
