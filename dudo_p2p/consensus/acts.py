"""Agreement on acts (protocol.md §4.4): candidates for the next act, acks, racing calls.

An ``act`` is chained only when every live seat has acked it (its author's own message counts
as its ack). A peer acks exactly one candidate per slot (epoch, seq): the first valid one it
sees; when the acks show two candidates for one slot it switches its ack, once per better
candidate, to the winner by :func:`priority` (a ¡Calzo! beats any other act; between calls,
the seat nearest after the standing bidder in the direction of play; then the lower digest).
A seat acks a loser only if it saw it first, and the winner's author never acks a worse one,
so a loser can never gather every ack once any seat acked the winner.

:class:`ActRace` is that bookkeeping and nothing else: it decides, the machine sends (our
ack is a relay of the chosen candidate) and chains. Candidates reach it already checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dudo_p2p.consensus.replica import Seating
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act
from dudo_p2p.rules import GameState


@dataclass
class ActSlot:
    """Candidates for the next act of the epoch (one slot = one seq) and the one we acked."""

    candidates: dict[bytes, Envelope] = field(default_factory=dict)
    mine: bytes | None = None


def priority(env: Envelope, engine: GameState, seating: Seating) -> tuple[int, int, bytes]:
    """Lower wins a race: a call beats a raise, then the seat nearest after the bidder."""
    author = seating.seat_of(env.author)
    assert author is not None  # candidates are checked entries of seated authors
    assert isinstance(env.body, Act)
    bidder = engine.standing_bidder if engine.standing_bidder is not None else author
    n = seating.n
    step = 1 if engine.clockwise else -1
    distance = next(d for d in range(1, n + 1) if (bidder + step * d) % n == author % n)
    return (0 if env.body.kind == "calzo" else 1, distance, env.digest())


class ActRace:
    """Our seat's view of the race for the next act: the slot's candidates, every ack seen
    in the current epoch, and which candidate we ack."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.slot = ActSlot()
        # who acked which act (by digest) in the current epoch, kept even for acts one step
        # ahead of our head: an ack that arrives before its act fits must still count later
        self.book: dict[bytes, set[int]] = {}
        # the signed acks behind the book, by act digest and acker: an agreed act's
        # certificate (act_certs.py), which catch-up carries with it
        self.signed: dict[bytes, dict[int, bytes]] = {}
        self.book_epoch = 0

    def next_slot(self) -> None:
        """The head moved: the next act is a new slot (acks already seen are kept)."""
        self.slot = ActSlot()

    def acks(self, digest: bytes, epoch: int) -> set[int]:
        """The seats that acked ``digest`` (a live set); the book restarts with each epoch."""
        if self.book_epoch != epoch:
            self.book = {}
            self.signed = {}
            self.book_epoch = epoch
        return self.book.setdefault(digest, set())

    def offer(self, env: Envelope, author: int, epoch: int) -> bool:
        """A checked candidate for the slot from ``author`` (which acks it). True when it
        becomes the one we ack (the first we see): the caller relays it as our ack."""
        digest = env.digest()
        self.slot.candidates[digest] = env
        self.acks(digest, epoch).add(author)
        if self.slot.mine is not None:
            return False
        self.slot.mine = digest
        self.acks(digest, epoch).add(self.me)
        return True

    def record_ack(
        self, inner: Envelope, acker: int, epoch: int, acts: int, ack: bytes
    ) -> None:
        """``acker`` acked the act ``inner`` of ``epoch`` by the signed envelope ``ack`` (ours
        too: we relay it); acts already chained are ignored."""
        if inner.seq >= acts:
            digest = inner.digest()
            self.acks(digest, epoch).add(acker)
            self.signed.setdefault(digest, {})[acker] = ack

    def certificate(self, env: Envelope, author: int, participants: tuple[int, ...]) -> list[bytes]:
        """The signed acks of ``env`` by every participant but its author, in seat order
        (call once it is agreed: then every one of them is held)."""
        held = self.signed.get(env.digest(), {})
        return [held[s] for s in participants if s != author and s in held]

    def settle(self, epoch: int, engine: GameState, seating: Seating) -> Envelope | None:
        """When acks show two candidates, switch our ack to the winner; returns the winner
        when we switched (the caller relays it as our ack), else None."""
        slot = self.slot
        acked = [d for d in slot.candidates if self.acks(d, epoch)]
        if len(acked) < 2 or slot.mine is None:
            return None
        best = min(acked, key=lambda d: priority(slot.candidates[d], engine, seating))
        if best == slot.mine:
            return None
        slot.mine = best
        self.acks(best, epoch).add(self.me)
        return slot.candidates[best]

    def agreed(self, epoch: int, participants: tuple[int, ...]) -> Envelope | None:
        """The candidate every participant acked, if any: the act to chain."""
        parts = set(participants)
        for digest, env in self.slot.candidates.items():
            if parts <= self.acks(digest, epoch):
                return env
        return None
