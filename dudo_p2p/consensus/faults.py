"""Faults and removal (protocol.md §4.5, §4.6): equivocation evidence, votes, certificates.

- :class:`EntryBook` remembers which entry each author signed for each slot (epoch, kind,
  seq): a second, different valid entry for a taken slot is equivocation, and the first one
  kept here is the other half of the proof.
- :class:`VoteBook` holds the signed ``vote`` envelopes by (epoch, target), the evidence
  held against seats, and the removal certificates the votes completed: votes of a **strict
  majority of the epoch's other live seats** remove the target, except that with **two
  seats** left one vote is only a claim unless the target consented (its own vote) or
  evidence proves it cheated (:meth:`VoteBook.tally`, protocol.md §4.6).
- :func:`majority_removed` decides whether votes against us, of an epoch our log has
  already left, still mean the table removed us (never a lone vote at two seats).

Bookkeeping only: the machine checks signatures (through the ``open_entry`` it passes),
sends, chains and journals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dudo_p2p.consensus.reasons import Reason
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


@dataclass(frozen=True)
class Verdict:
    """What the votes against a seat decide: ``remove`` it (``cert`` is the removal
    certificate: the votes in seat order, then any evidence), or, with two seats left and
    neither consent nor evidence, only a ``claim`` (``cert``: the claiming votes) that ends
    the game abandoned, with no winner."""

    remove: bool
    reason: Reason
    cert: list[bytes]


class VoteBook:
    """Signed removal votes by (epoch, target seat), the evidence held against seats, and
    the certificates the votes completed."""

    def __init__(self) -> None:
        self.votes: dict[tuple[int, int], dict[int, bytes]] = {}
        self.certificates: dict[tuple[int, int], list[bytes]] = {}
        self.evidence: dict[int, tuple[bytes, bytes]] = {}  # seat -> two entries it signed
        self.withdrawn: set[tuple[int, int]] = set()  # (epoch, target) we voted, then withdrew
        # seats we withdrew a vote against: the table hears them when we do not (our link
        # from them is bad), so we no longer vote them out on our own for what such a link
        # causes (their silence, their missing acks), only seconding another seat's vote
        self.disputed: set[int] = set()

    def voted(self, epoch: int, target: int, voter: int) -> bool:
        """``voter``'s vote against ``target`` in ``epoch`` is held."""
        return voter in self.votes.get((epoch, target), {})

    def box(self, epoch: int, target: int) -> dict[int, bytes]:
        """The votes against ``target`` in ``epoch`` by voter (a live dict, created empty)."""
        return self.votes.setdefault((epoch, target), {})

    def own(self, epoch: int, me: int) -> list[bytes]:
        """Our votes of ``epoch``, in the order their targets were first voted on."""
        return [box[me] for (e, _), box in self.votes.items() if e == epoch and me in box]

    def withdraw(self, epoch: int, target: int, me: int) -> None:
        """Forget our vote against ``target`` in ``epoch`` and never vote it again there: the
        table went on without the removal (protocol.md §4.6, withdrawal)."""
        self.votes.get((epoch, target), {}).pop(me, None)
        self.withdrawn.add((epoch, target))
        self.disputed.add(target)

    def seconded(self, epoch: int, target: int, me: int) -> bool:
        """Another seat than ``me`` (and than the target) voted ``target`` out in ``epoch``."""
        return any(v not in (me, target) for v in self.votes.get((epoch, target), {}))

    def tally(
        self, epoch: int, target: int, participants: Iterable[int], open_entry: OpenEntry
    ) -> Verdict | None:
        """None until the votes against ``target`` come from a strict majority of the other
        ``participants`` of ``epoch``; then a removal (the certificate is kept), or, with two
        participants and neither the target's own vote nor evidence against it, a claim."""
        parts = tuple(participants)
        box = self.votes.get((epoch, target), {})
        voters = sorted(v for v in box if v in parts and v != target)
        if len(voters) * 2 <= len(parts) - 1:
            return None
        bodies = [open_entry(box[v]).body for v in voters]
        reason = next((Reason.parse(b.reason) for b in bodies if isinstance(b, Vote)),
                      Reason.UNKNOWN)
        cert = [box[v] for v in voters]
        if len(parts) == 2:
            if target in box:
                cert = [box[v] for v in sorted({*voters, target})]  # consent: its own vote
            elif target in self.evidence:
                cert = [*cert, *self.evidence[target]]
            else:
                return Verdict(False, reason, cert)
        self.certificates[(epoch, target)] = cert
        return Verdict(True, reason, cert)


def majority_removed(
    votes: Iterable[Envelope], me: int, others: set[int], epoch: int, seating: Seating
) -> bool:
    """Signed votes against seat ``me``, from a strict majority of ``others`` (the other
    seats still in our game): the table removed us, even in an epoch our log has left (the
    certificate can no longer be chained) or not reached yet (they finished an epoch whose
    last entries we never got, then voted us out of the next: we cannot chain it before we
    catch up, and the entries to catch up with may be ones we refuse). A strict majority of
    the others is the table's word whatever the epoch (``epoch``, ours, is kept for the
    record of the call). One other seat is never a majority here: at two seats a lone vote
    is a claim (§4.6)."""
    target = seating.pubs[me]
    voters = {
        seating.seat_of(v.author) for v in votes
        if isinstance(v.body, Vote) and v.body.target == target
    }
    return len(others) >= 2 and len(voters & others) * 2 > len(others)
