"""Faults and removal (protocol.md §4.5, §4.6): equivocation evidence, votes, certificates.

- :class:`EntryBook` remembers which entry each author signed for each slot (epoch, kind,
  seq): a second, different valid entry for a taken slot is equivocation, and the first one
  kept here is the other half of the proof.
- :class:`VoteBook` holds the signed ``vote`` envelopes by (epoch, target) and the removal
  certificates they completed: votes of a **strict majority of the epoch's other live
  seats** remove the target (:meth:`VoteBook.tally`).
- :func:`majority_removed` decides whether votes against us, of an epoch our log has
  already left, still mean the table removed us.

Bookkeeping only: the machine checks signatures (through the ``open_entry`` it passes),
sends, chains and journals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from dudo_p2p.consensus.replica import Seating
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Vote

Slot = tuple[bytes, int, str, int]  # author key, epoch (round_no), kind, seq
OpenEntry = Callable[[bytes], Envelope]


def slot_of(env: Envelope) -> Slot:
    """The slot an entry fills: one author signs one entry per slot."""
    return (env.author, env.round_no, env.kind, env.seq)


class EntryBook:
    """The digest accepted for each slot and the bytes of every accepted entry."""

    def __init__(self) -> None:
        self.slots: dict[Slot, bytes] = {}
        self.by_digest: dict[bytes, bytes] = {}

    def rivals(self, env: Envelope, digest: bytes) -> bool:
        """True when another entry was accepted for ``env``'s slot: a proof in the making."""
        other = self.slots.get(slot_of(env))
        return other is not None and other != digest

    def first(self, env: Envelope) -> bytes | None:
        """The bytes of the entry accepted for ``env``'s slot (the proof's first half)."""
        return self.by_digest.get(self.slots[slot_of(env)])

    def accept(self, env: Envelope, digest: bytes) -> None:
        """Take ``env`` as the entry of its slot, and keep its bytes for a later proof."""
        self.slots[slot_of(env)] = digest
        self.by_digest[digest] = env.to_bytes()


class VoteBook:
    """Signed removal votes by (epoch, target seat) and the certificates they completed."""

    def __init__(self) -> None:
        self.votes: dict[tuple[int, int], dict[int, bytes]] = {}
        self.certificates: dict[tuple[int, int], list[bytes]] = {}

    def voted(self, epoch: int, target: int, voter: int) -> bool:
        """``voter``'s vote against ``target`` in ``epoch`` is held."""
        return voter in self.votes.get((epoch, target), {})

    def box(self, epoch: int, target: int) -> dict[int, bytes]:
        """The votes against ``target`` in ``epoch`` by voter (a live dict, created empty)."""
        return self.votes.setdefault((epoch, target), {})

    def own(self, epoch: int, me: int) -> list[bytes]:
        """Our votes of ``epoch``, in the order their targets were first voted on."""
        return [box[me] for (e, _), box in self.votes.items() if e == epoch and me in box]

    def tally(
        self, epoch: int, target: int, participants: Iterable[int], open_entry: OpenEntry
    ) -> tuple[str, list[bytes]] | None:
        """When the votes against ``target`` come from a strict majority of the other
        ``participants`` of ``epoch``: the reason (the first vote's) and the certificate
        (their votes in seat order), which is kept; else None."""
        parts = tuple(participants)
        box = self.votes.get((epoch, target), {})
        voters = {v for v in box if v in parts and v != target}
        if len(voters) * 2 <= len(parts) - 1:
            return None
        bodies = [open_entry(b).body for b in box.values()]
        reason = next((b.reason for b in bodies if isinstance(b, Vote)), "removed")
        cert = [box[v] for v in sorted(voters)]
        self.certificates[(epoch, target)] = cert
        return reason, cert


def majority_removed(
    votes: Iterable[Envelope], me: int, others: set[int], epoch: int, seating: Seating
) -> bool:
    """Signed votes against seat ``me`` of epoch ``epoch`` or earlier, from a strict
    majority of ``others`` (the other seats still in our game): the table removed us, even
    in an epoch our log has left and where the certificate can no longer be chained."""
    target = seating.pubs[me]
    voters = {
        seating.seat_of(v.author) for v in votes
        if isinstance(v.body, Vote) and v.body.target == target and v.round_no <= epoch
    }
    return bool(others) and len(voters & others) * 2 > len(others)
