"""Faults and removal (protocol.md §4.5, §4.6): equivocation evidence, votes, certificates.

- :class:`EntryBook` remembers which entry each author signed for each slot (epoch, kind,
  seq): a second, different valid entry for a taken slot is equivocation, and the first one
  kept here is the other half of the proof.
- :class:`VoteBook` holds the signed ``vote`` envelopes by (epoch, target), the evidence
  held against seats, and the removal certificates the votes completed: votes of a **strict
  majority of the target's other seats still in the epoch** remove the target, except that
  with **two seats** left one vote is only a claim unless the target consented (its own
  vote) or evidence proves it cheated (:meth:`VoteBook.tally`, protocol.md §4.6). A seat
  already removed in the epoch has no vote there and no longer counts in the majority
  (:func:`carries`): two colluders at four seats used the stale vote of the one removed
  first, with the other's, to remove an honest seat.
- :func:`removal_order` decides whether a set of removals of one epoch could have been
  made one after the other by that rule (what ``verify`` and a spectator check: a record
  keeps an epoch's removals in seat order, not in the order they were decided).
- :func:`majority_removed` decides whether votes against us, of an epoch our log has
  already left, still mean the table removed us (never a lone vote at two seats).

Bookkeeping only: the machine checks signatures (through the ``open_entry`` it passes),
sends, chains and journals.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.replica import Replica, Seating
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


def removed_in(rep: Replica, epoch: int) -> frozenset[int]:
    """The seats removed in ``epoch`` so far (after its call, or by the removals that voided
    it): their votes of that epoch no longer count (protocol.md §4.6)."""
    ep = rep.epoch
    if epoch == ep.number:
        return frozenset(ep.withheld)
    if ep.voided is not None and ep.voided[0].number == epoch:
        base, gone = ep.voided
        return frozenset(base.withheld) | {seat for seat, _ in gone}
    return frozenset()


def remaining(participants: Iterable[int], removed: Collection[int], target: int) -> list[int]:
    """The seats whose votes count against ``target``: the epoch's participants not removed
    in it (a removed seat's vote, even one signed before its removal, counts no more), but
    the target itself."""
    return [s for s in participants if s not in removed and s != target]


def carries(voters: Collection[int], others: Collection[int], proven: bool) -> bool:
    """Votes by ``voters`` remove a seat whose other remaining seats are ``others``: a
    strict majority of them; with one other left (two seats), only with the target's
    consent or evidence of its cheat (``proven``): one vote alone is a claim (§4.6)."""
    count = sum(1 for v in voters if v in others)
    return count * 2 > len(others) and (len(others) != 1 or proven)


def removal_order(
    participants: Iterable[int], certs: Mapping[int, tuple[frozenset[int], bool]]
) -> tuple[int, ...] | None:
    """An order in which the removals ``certs`` (target -> its voters, and whether its
    consent or evidence is held) of one epoch with ``participants`` can each be made by
    :func:`carries`, with the votes and seats of those removed before it left out; None if
    there is none. A live peer makes them in the order their votes complete, which a record
    does not keep (an epoch's removals are chained in seat order): a record is valid when
    some order works. An epoch removes a few seats at most: the search is small."""
    parts = tuple(participants)
    dead: set[frozenset[int]] = set()

    def search(removed: frozenset[int]) -> tuple[int, ...] | None:
        if len(removed) == len(certs):
            return ()
        if removed in dead:
            return None
        for target in sorted(set(certs) - removed):
            voters, proven = certs[target]
            if carries(voters, remaining(parts, removed, target), proven):
                rest = search(removed | {target})
                if rest is not None:
                    return (target, *rest)
        dead.add(removed)
        return None

    return search(frozenset())


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
        self, epoch: int, target: int, participants: Iterable[int], open_entry: OpenEntry,
        removed: Collection[int] = (),
    ) -> Verdict | None:
        """None until the votes against ``target`` come from a strict majority of its other
        seats still in ``epoch`` (its ``participants`` but those ``removed`` in it, whose
        votes no longer count); then a removal (the certificate is kept: the counted votes),
        or, with two seats left and neither the target's own vote nor evidence against it,
        a claim when the epoch has two participants (when it began with more and a removal
        left two, None: a lone vote there neither removes nor ends the game)."""
        parts = tuple(participants)
        others = remaining(parts, removed, target)
        box = self.votes.get((epoch, target), {})
        voters = sorted(v for v in box if v in others)
        if not carries(voters, others, proven=True):
            return None
        bodies = [open_entry(box[v]).body for v in voters]
        reason = next((Reason.parse(b.reason) for b in bodies if isinstance(b, Vote)),
                      Reason.UNKNOWN)
        cert = [box[v] for v in voters]
        if len(others) == 1:
            if target in box:
                cert = [box[v] for v in sorted({*voters, target})]  # consent: its own vote
            elif target in self.evidence:
                cert = [*cert, *self.evidence[target]]
            elif len(parts) == 2:
                return Verdict(False, reason, cert)
            else:
                return None
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
